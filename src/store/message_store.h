// MessageStore: the broker's storage engine facade (RocketMQ's DefaultMessageStore).
//
// It owns the CommitLog, the ConsumeQueues (one per topic-queue, created on first use), the
// IndexService and the FlushService, and keeps them consistent:
//
//  * put_message / put_messages append records (common's encoder) with the body CRC, the
//    next queue offset of the topic-queue, the store timestamp (node wall clock) and the
//    physical offset. Put is synchronous and in memory only.
//  * Visibility. ASYNC_FLUSH: records are dispatched at once (ConsumeQueue units and index
//    entries built before put returns, the arrival listener told the queue's new max offset for
//    long polling), as RocketMQ does; a power loss may then take back what consumers saw.
//    SYNC_FLUSH: records are dispatched only once durable (after the group commit that covers
//    them, before their senders hear SEND_OK), so a consumer never sees, and never commits an
//    offset past, a message a power loss can take back — otherwise the queue offset would be
//    given again to a new message, which that consumer would skip. The caller awaits
//    wait_durable(result.end()) for its reply. Controller mode adds a bound
//    (set_visibility_bound: the confirm offset): nothing past it is dispatched either, so no
//    consumer reads what a failover may cut.
//  * get_messages reads a topic-queue from a queue offset with a subscription filter and returns
//    zero-copy views of the stored records plus next/min/max offsets and a status.
//  * open() loads and recovers (docs/store.md, "Recovery"); start() runs the flush loops, the
//    cleanup loop (cleanup_service.h) and CommitLog pre-allocation; shutdown() stops them,
//    flushes everything, writes the checkpoint and removes the abort file.
//  * Puts are refused with service_not_available while the disk is 90 % full (as of the last
//    cleanup pass, every 10 s, or refresh_disk()); reads go on.
//  * The next CommitLog file is created only when the disk has room for all of it plus the
//    ConsumeQueue and index files its records need (file_room.h; commit_log.cc says why the
//    reserve): otherwise the put that needed it gets service_not_available "disk full: the next
//    CommitLog file needs N bytes, M free", nothing is appended or created, and every later put
//    is refused alike (write_refusal() says so) until the disk has that room again, which each
//    put and write_refusal() ask the disk: writes resume by themselves.
//  * A record that cannot be indexed (a ConsumeQueue or index file that cannot be created: no
//    space, EIO, no descriptors) is a state, not a crash: its put stands (it is in the
//    CommitLog), new puts are refused with service_not_available saying why, dispatch is retried
//    every kDispatchRetryInterval from that record, and writes resume once it succeeds. open()
//    likewise serves what is indexed instead of failing.
//
// Threading: the node's loop only. Lifetime: the store outlives the node's tasks (the loops it
// spawns in start() capture `this`).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/host_port.h"
#include "common/offsets.h"
#include "common/subscription_filter.h"
#include "runtime/log_limiter.h"
#include "runtime/runtime.h"
#include "store/checkpoint.h"
#include "store/cleanup_service.h"
#include "store/commit_log.h"
#include "store/consume_queue.h"
#include "store/flush_service.h"
#include "store/index_service.h"
#include "store/store_config.h"
#include "store/store_recovery.h"
#include "store/store_results.h"

namespace ferry::store {

// One message to store. Views: valid for the duration of the put call only.
struct PutRequest {
  std::string_view topic;
  QueueId queue_id;
  std::int32_t flag = 0;
  Bytes body;
  std::string_view properties;  // encoded (common/properties.h)
  std::int32_t sys_flag = 0;
  WallMs born_timestamp_ms = 0;
  HostPort born_host;
  std::int32_t reconsume_times = 0;
  std::int64_t prepared_transaction_offset = 0;
};

// Called after dispatch with the topic-queue and its new max offset (wake long polls). Must not
// call back into the store synchronously (post instead).
using ArrivalListener = std::function<void(const std::string& topic, QueueId queue_id, QueueOffset max_offset)>;

// Computes a tagsCode other than the TAGS hash (the delay topic stores its delivery time);
// nullopt = use the default. Set it before open(): opening re-dispatches the records the
// ConsumeQueues miss, and their units need the same tagsCode as at the put.
using TagsCodeHook = std::function<std::optional<std::int64_t>(std::string_view topic,
                                                               std::string_view properties,
                                                               WallMs store_timestamp_ms)>;

class MessageStore {
 public:
  // How often a failed dispatch (indexing) is retried.
  static constexpr Duration kDispatchRetryInterval = std::chrono::seconds(1);

  MessageStore(Runtime& rt, StoreConfig config);
  ~MessageStore();
  MessageStore(const MessageStore&) = delete;
  MessageStore& operator=(const MessageStore&) = delete;

  // Loads and recovers every file (store_recovery.h: clean stop, scan the last 3 CommitLog
  // files; crash, scan from the checkpoint; cut torn tails and queues past the log end),
  // re-dispatches what the ConsumeQueues and index miss, and creates the abort file. Success:
  // the store serves exactly what recovery kept (what it could not index yet is retried after
  // start(), writes refused meanwhile). Errors: corrupt (naming the file), io_error, no_space.
  Task<Status> open();
  // Starts the flush loops (ASYNC_FLUSH CommitLog loop, ConsumeQueue/index/checkpoint loop),
  // the cleanup loop, and from then on pre-allocation of the next CommitLog file (a spawned
  // task whenever no successor of the last file is ready or being prepared).
  void start();
  // True while the next CommitLog file is being pre-allocated (benchmarks wait for it to measure
  // a store in its steady state, not one warming its next file at boot).
  bool preallocating() const { return preallocating_; }
  // Stops the loops, waits for a pre-allocation in flight, flushes everything, writes the
  // checkpoint, removes the abort file.
  Task<Status> shutdown();
  const RecoveryInfo& recovery() const { return recovery_; }
  // True once open() has succeeded: recovery() is final, and the CommitLog is what recovery kept
  // plus what was appended since (the broker may still fail to start after it: a bad config file).
  bool opened() const { return opened_; }

  PutResult put_message(const PutRequest& request);
  // A batch for one topic-queue: consecutive queue offsets, all records in one CommitLog file.
  PutResult put_messages(std::span<const PutRequest> batch);
  // SYNC_FLUSH: ok once durable past `end`, flush_disk_timeout after 5 s.
  Task<PutStatus> wait_durable(PhysicalOffset end) { return flush_.wait_durable(end); }

  // Messages of topic-queue from `offset`, at most `max_count`, that `filter` selects (null =
  // everything): its tags-code step on each ConsumeQueue unit, then, for an SQL92 filter, its
  // properties step on the record (read in place; a record that does not decode is kept, so the
  // client sees and reports it rather than the store dropping it silently). Units the filter
  // skips still advance next_begin_offset; they count towards the scan bound, not the batch.
  GetMessageResult get_messages(const std::string& topic, QueueId queue_id, QueueOffset offset,
                                std::int32_t max_count, const SubscriptionFilter* filter);
  // The message record that starts at `offset`, which may come from a client: it is returned only
  // when a record boundary is there (the message magic, and the record's stored physical offset
  // equal to `offset`) and its size is within [kMinRecordBytes, maxMessageSize] and written.
  // Errors: not_found (outside the log), corrupt (no record starts there).
  Result<FileView> message_at(PhysicalOffset offset) const;

  QueueOffset min_offset(const std::string& topic, QueueId queue_id) const;
  QueueOffset max_offset(const std::string& topic, QueueId queue_id) const;
  PhysicalOffset min_phy_offset() const { return log_.min_offset(); }
  PhysicalOffset max_phy_offset() const { return log_.max_offset(); }
  // What replication may ship (HaMaster's senders): under SYNC_FLUSH only what is durable, as
  // consumers see only what is durable; under ASYNC_FLUSH the whole log (RocketMQ's HAConnection).
  // A SYNC_FLUSH master that shipped unsynced bytes and then lost power would come back shorter
  // than its slave, take new records at the same places, and splice two histories into the
  // slave's log wherever its first check (a record boundary at the slave's end) is fooled by
  // records of equal sizes: the slave then met queue offsets its ConsumeQueue did not continue.
  // Never above max_phy_offset(); only grows within one life.
  PhysicalOffset replicable_offset() const {
    return config_.flush_mode == FlushMode::sync_flush ? log_.flushed_offset() : log_.max_offset();
  }
  PhysicalOffset reput_offset() const { return reput_offset_; }
  // First queue offset stored at or after `ts` (see ConsumeQueue::offset_by_time).
  Result<QueueOffset> offset_by_time(const std::string& topic, QueueId queue_id, WallMs ts) const;
  // Store time of the queue's first message. Errors: not_found for an empty queue.
  Result<WallMs> earliest_store_time(const std::string& topic, QueueId queue_id) const;
  // Store time of the queue's message at `offset`. Errors: not_found when the queue has no
  // message there (empty, cleaned up, not yet written), those of reading the log.
  Result<WallMs> store_time_at(const std::string& topic, QueueId queue_id, QueueOffset offset) const;

  // Records whose "topic#key" matches (re-checked against each record's UNIQ_KEY and KEYS),
  // newest first, at most max_results.
  struct [[nodiscard]] QueryResult {
    std::vector<FileView> messages;
    WallMs index_last_update_timestamp_ms = 0;
    PhysicalOffset index_last_update_phy_offset;
  };
  Result<QueryResult> query_by_key(std::string_view topic, std::string_view key,
                                   std::size_t max_results, WallMs begin_ms, WallMs end_ms) const;

  void set_arrival_listener(ArrivalListener l) { arrival_ = std::move(l); }
  // Called after every successful put with the log's new end, and under SYNC_FLUSH after every
  // completed sync with the durable end (replication wakes its senders: replicable_offset() grew).
  // Must not call back into the store synchronously.
  void set_append_listener(std::function<void(PhysicalOffset end)> l) { appended_ = std::move(l); }

  // Replication (a slave; store/ha/ha_slave.h): appends bytes its master sent at `at` byte for
  // byte (CommitLog::append_raw) and indexes the complete records among them — at once under
  // ASYNC_FLUSH, once durable under SYNC_FLUSH (a group commit is requested). Queue offsets are
  // the master's, so a promoted slave continues them. Errors: those of append_raw, closed after
  // shutdown, io_error after a failed sync.
  Status append_replicated(PhysicalOffset at, Bytes data);
  // Replication (a slave, before it reports where to resume): cuts the log back to the end of
  // the last indexed record (with a visibility bound, of the last record it would index without
  // one), dropping a partial record a link left behind (the master sends it again), so that the
  // slave's end is always a record boundary of its master's history.
  // Errors: io_error.
  Status truncate_to_indexed();
  // Replication (a replica rejoining a new master under controller mode, store/ha/ha_slave.h):
  // drops the log at and after `offset` (a record boundary of this log: where the replica and its
  // master's epochs agree), the queue units of the messages there, and their queue offsets (the
  // next message to a queue gets the first dropped one, as the master's does). The index keeps
  // its entries: a query re-checks each record it finds. Only while nothing appends (the HA link
  // is down). Errors: invalid_argument (`offset` outside [min offset, max offset]), io_error.
  Status truncate_to(PhysicalOffset offset);
  // The cuts truncate_to() and truncate_to_indexed() made since the store opened: how many, the
  // offset of the last, and the lowest (observers that digest the log, sim/scenario/
  // store_observer.h, forget what lies past a cut: the last one when one was made since they
  // looked, else the lowest). truncate_to_indexed() may cut below what was synced: a partial
  // record, or a BLANK whose file's next one has not arrived (a promoted slave's log ends in the
  // padding of its master's last file: failover-sync-master under --swarm seed 135).
  struct Cuts {
    std::uint64_t count = 0;
    PhysicalOffset last;
    std::optional<PhysicalOffset> lowest_since_open;
  };
  const Cuts& cuts() const { return cuts_; }
  // Controller mode without readUnCommitted (RocketMQ 5's confirmOffset): nothing at or past
  // `bound` is dispatched — no queue unit, no arrival, so no consumer reads it — until the bound
  // moves past it; moving it dispatches what it now covers. nullopt: no bound (what is stored,
  // or under SYNC_FLUSH what is durable, is visible). A bound past the log's end counts as the end.
  // Set before open(), it holds what recovery finds past the queues' end too. Held records keep
  // their queue offsets: a put numbers its messages after them.
  void set_visibility_bound(std::optional<PhysicalOffset> bound);
  std::optional<PhysicalOffset> visibility_bound() const { return visibility_bound_; }
  // Replication (a master checking where a slave resumes): true when `offset` is the log's end,
  // the start of one of its files, or where a message record or a BLANK marker starts — the
  // places a slave's indexed end can be if it holds this log's history.
  bool record_boundary(PhysicalOffset offset) const;
  void set_tags_code_hook(TagsCodeHook h) { tags_code_hook_ = std::move(h); }
  // Walks the whole message records in [from, limit) (`from` a record boundary; BLANK markers
  // skip to the next file), each seen by `on_message` (its views valid during the call only).
  // Returns where it stopped: `limit`, or the start of a partial or unreadable record.
  PhysicalOffset for_each_record(PhysicalOffset from, PhysicalOffset limit,
                                 const std::function<void(const RecordFields&)>& on_message) const {
    return walk_whole_records(from, limit, on_message);
  }

  // The offset msgIds of a put's records (comma-joined for a batch), from the offsets and sizes
  // the put recorded: built only when a reply needs them, so the put path does not format them.
  // `r` must be a stored result.
  std::string offset_msg_ids(const PutResult& r) const;

  // What clean_expired_queues() removed.
  struct [[nodiscard]] ExpiredQueuesReport {
    PhysicalOffset log_min;          // the CommitLog's min offset the queues were judged against
    std::vector<QueueKey> removed;   // (topic, queue id) of each destroyed queue, in name order
    std::size_t topic_dirs_removed = 0;
  };
  // CLEAN_EXPIRED_CONSUMEQUEUE (RocketMQ's DefaultMessageStore.cleanExpiredConsumerQueue):
  // destroys every ConsumeQueue whose last message lies wholly below the CommitLog's min offset
  // (every message it indexes was deleted by cleanup), except those of `kept_topics` (the broker
  // keeps the delay topic, whose offsets the schedule service tracks). A destroyed queue's files
  // and directory are removed (ConsumeQueue::removal_order), it leaves the table, and its next
  // queue offset is forgotten: the next message to it gets queue offset 0, as in RocketMQ (whose
  // removeQueueFromTopicQueueTable does the same) and as a restart would give. Also destroyed: a
  // queue holding no file (what a crash between removing a queue's last file and its directory
  // leaves), and empty topic directories no queue uses. Kept: a queue holding only holes or
  // pre-blanks (RocketMQ's "maybe created just now"), and a queue with a message put but not yet
  // indexed (SYNC_FLUSH waits for the sync; its next queue offset is past its end).
  // RocketMQ compares the last record's end with `<`; a record ending exactly at the log's min
  // offset is wholly deleted too, so Ferry uses `<=`.
  //
  // Crash safety: files go newest first, then the queue's directory, then an emptied topic's
  // directory; each removal is durable when it returns. A crash after any of them leaves, per
  // queue, a contiguous prefix of full segments whose units all point below the log's start
  // (recovery keeps them and moves the min offset to the end: the queue reads as empty and the
  // next clean destroys it), an empty queue directory (an empty queue: destroyed next time), or
  // an empty topic directory (removed next time). Nothing in the CommitLog, the index or the
  // checkpoint changes. A flush in flight keeps a destroyed queue's object alive until it ends.
  // Errors: closed (not open, or shut down), io_error from a removal or a read (what was removed
  // before stays removed; the queue being removed stays in the table with what is left).
  Result<ExpiredQueuesReport> clean_expired_queues(const std::vector<std::string>& kept_topics);

  // Cleanup: one pass now (what the loop does every 10 s), the disk state, a disk re-read.
  Result<CleanupReport> run_cleanup() { return cleanup_.run_once(); }
  CleanupService& cleanup() { return cleanup_; }
  DiskPressure refresh_disk() { return cleanup_.refresh_disk(); }
  // Why puts are refused now (a failed CommitLog sync, a full disk or no room for the next
  // CommitLog file, a shut-down store), or
  // nullopt while the store takes writes. For operators (GET_BROKER_RUNTIME_INFO).
  std::optional<std::string> write_refusal() const;
  // A CommitLog sync failed: the store refuses writes until it is restarted (see above).
  bool sync_failed() const { return flush_.sync_failure().has_value(); }

  const StoreConfig& config() const { return config_; }
  CommitLog& commit_log() { return log_; }
  const CommitLog& commit_log() const { return log_; }
  IndexService& index() { return index_; }
  FlushService& flusher() { return flush_; }
  // Every topic that has a ConsumeQueue here, with its highest queue id + 1 (a promoted slave
  // recreates the topics whose config its master had not copied to it yet).
  std::map<std::string, std::int32_t> queue_counts() const;
  // The queue, or nullptr when it does not exist.
  ConsumeQueue* find_queue(const std::string& topic, QueueId queue_id) const;
  // Flushes ConsumeQueues and index, then writes the checkpoint. Errors: io_error.
  Task<Status> flush_queues_and_checkpoint();

 private:
  Result<ConsumeQueue*> queue_for(std::string_view topic, QueueId queue_id);
  // Builds ConsumeQueue units and index entries for records from reput_offset_ to the log end.
  // Builds ConsumeQueue units and index entries for the records in [reput_offset_, limit).
  Status dispatch(PhysicalOffset limit);
  // SYNC_FLUSH: publishes what became durable (FlushService's on_flushed).
  void dispatch_durable();
  // Records the outcome of a dispatch: a failure refuses writes (write_refusal) until a retry of
  // run_dispatch_retry_loop succeeds; logged once when it starts and once when it ends.
  void note_dispatch(Status st);
  Task<void> run_dispatch_retry_loop();
  // Records whether an append was refused for want of room for the next CommitLog file (see the
  // class comment); logged once when the refusal starts and once when it ends.
  void note_next_file_room(AppendStatus appended, const std::string& detail);
  Status dispatch_record(const RecordFields& f, std::size_t size);
  // After a recovery that skipped damaged ranges: holes for the queue offsets of lost messages
  // below `to`, within lost_offsets_budget_. Errors: corrupt (beyond the budget), io_error.
  Status fill_lost_queue_offsets(ConsumeQueue& q, QueueOffset to);
  // open(), after recovery: a new store's first CommitLog file (failure only logged), then the
  // abort file (from now on a stop without shutdown() counts as a crash).
  Task<void> preallocate_first_file();
  Task<Status> create_abort_file();
  PutResult put(std::span<const PutRequest> batch);
  Task<void> run_queue_flush_loop();
  // While a flush_queues_and_checkpoint() is in flight (it holds queue pointers across syncs),
  // queues destroyed by clean_expired_queues() wait in retired_queues_; the last flush to end
  // frees them.
  struct QueueFlushScope;
  // Whether clean_expired_queues() destroys `q` (see there). Errors: io_error.
  Result<bool> queue_expired(const ConsumeQueue& q, PhysicalOffset log_min) const;
  // Removes the empty directories under consumequeue/ of topics no queue uses. Errors: io_error.
  Result<std::size_t> remove_empty_topic_dirs();
  void maybe_preallocate();
  Task<void> run_preallocation();
  std::string path(std::string_view name) const;

  Runtime& rt_;
  StoreConfig config_;
  CommitLog log_;
  IndexService index_;
  FlushService flush_;
  ConsumeQueueTable queues_;
  std::vector<std::unique_ptr<ConsumeQueue>> retired_queues_;  // see QueueFlushScope
  std::int32_t queue_flushes_ = 0;  // flush_queues_and_checkpoint() calls in flight
  // The queue offset the next message to each queue gets: one past the highest any whole record
  // in [log start, counted_to_) or in what is dispatched holds. A put first counts the records
  // past both (count_queue_offsets): under a visibility bound, under SYNC_FLUSH and on a slave
  // the log holds records not dispatched yet, whose queue offsets a put must not give again.
  std::map<QueueKey, QueueOffset, QueueKeyLess> next_queue_offset_;
  PhysicalOffset counted_to_;
  // Counts the whole records from max(counted_to_, reput_offset_) to the log's end (stops at a
  // partial record).
  void count_queue_offsets();
  // next_queue_offset_ of f's queue: at least one past f's queue offset.
  void note_queue_offset(const RecordFields& f);
  // After a cut: the counts again from the queues alone (what is dispatched); the records past
  // reput_offset_ are counted again by the next put.
  void recount_from_queues();
  CleanupService cleanup_;
  PhysicalOffset reput_offset_;
  Cuts cuts_;
  void note_cut(PhysicalOffset at);
  std::optional<PhysicalOffset> visibility_bound_;
  // Where dispatch may go now: the log's end, under SYNC_FLUSH what is durable, and at most the
  // visibility bound.
  PhysicalOffset dispatch_limit() const;
  // Where dispatch would end without the visibility bound: the end of the last whole record
  // below the log's end (under SYNC_FLUSH, below what is durable).
  PhysicalOffset indexable_end() const;
  // Walks the whole records in [from, limit): `on_message` sees each message record, BLANK
  // markers skip to the next file. Returns where it stopped: `limit`, or the start of a partial
  // or unreadable record.
  PhysicalOffset walk_whole_records(PhysicalOffset from, PhysicalOffset limit,
                                    const std::function<void(const RecordFields&)>& on_message) const;
  std::optional<Error> dispatch_failure_;  // the last dispatch failed at reput_offset_
  RecoveryInfo recovery_;
  // How many queue offsets dispatch may still fill with holes (fill_lost_queue_offsets).
  std::int64_t lost_offsets_budget_ = 0;
  ArrivalListener arrival_;
  std::function<void(PhysicalOffset)> appended_;
  TagsCodeHook tags_code_hook_;
  std::vector<RecordFields> fields_;  // reused per put
  bool opened_ = false;
  bool started_ = false;
  bool stopped_ = false;
  bool preallocating_ = false;  // a run_preallocation() task is in flight
  bool preallocation_refused_ = false;  // the last pre-allocation found no room (logged once)
  LogLimiter preallocation_log_;         // other pre-allocation failures (tried after every put), by Errc
  bool next_file_refused_ = false;  // the last append found no room for the next CommitLog file
};

}  // namespace ferry::store
