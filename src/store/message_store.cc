#include "store/message_store.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/crc.h"
#include "common/message_const.h"
#include "common/msg_id.h"
#include "common/record_format.h"
#include "common/record_writer.h"
#include "common/sys_flag.h"
#include "runtime/log_limiter.h"
#include "runtime/assert.h"
#include "store/dispatch_rules.h"
#include "store/file_names.h"
#include "store/property_scan.h"

namespace ferry::store {

MessageStore::MessageStore(Runtime& rt, StoreConfig config)
    : rt_(rt),
      config_(std::move(config)),
      log_(rt.fs(), config_),
      index_(rt.fs(), rt.clock(), config_.root, config_.index_geometry, config_.index_query_results_max),
      flush_(rt, log_, config_),
      cleanup_(rt, log_, queues_, index_, config_) {
  if (config_.flush_mode == FlushMode::sync_flush) {
    flush_.set_on_flushed([this] {
      dispatch_durable();
      if (appended_) appended_(log_.flushed_offset());  // replicable_offset() grew
    });
  }
}

MessageStore::~MessageStore() = default;

std::string MessageStore::path(std::string_view name) const { return join_path(config_.root, name); }

Task<Status> MessageStore::open() {
  // 1. Recovery: every file loaded, torn tails cut, the re-dispatch start found.
  StoreRecovery recovery(rt_, config_, log_, queues_, index_);
  Task<Result<RecoveryInfo>> recovered = recovery.run();
  Result<RecoveryInfo> info = co_await std::move(recovered);
  if (!info.ok()) co_return std::move(info).error();
  recovery_ = std::move(*info);
  // 2. Queue offsets continue from each queue's end; dispatch what the queues and index miss.
  for (const auto& [key, q] : queues_) next_queue_offset_[key] = q->max_offset();
  reput_offset_ = recovery_.reput_from;
  // A skipped range of n bytes held at most n / kMinRecordBytes messages whose queue offsets the
  // re-dispatch may find missing (fill_lost_queue_offsets).
  for (const DamagedRange& r : recovery_.commit_log.skipped) {
    lost_offsets_budget_ += (r.to - r.from) / static_cast<std::int64_t>(record::kMinRecordBytes);
  }
  if (config_.flush_mode == FlushMode::sync_flush && !log_.files().empty()) {
    // What recovery found may be only in the page cache (a killed process, or pages a failed
    // fsync marked clean without writing): written again past the last durable offset and
    // synced first, then visible (the flush dispatches it).
    log_.files().last_file()->require_sync();
    if (!recovery_.clean_shutdown) {
      const std::int64_t durable = recovery_.checkpoint ? recovery_.checkpoint->physic.value() : 0;
      if (Status rewritten = log_.files().rewrite_for_sync(durable); !rewritten.ok()) co_return rewritten;
    }
    Status synced = co_await flush_.flush_all();
    if (!synced.ok()) co_return synced;
  }
  // A record that cannot be indexed now (no space for a ConsumeQueue file, EIO) does not stop the
  // store from opening: it serves what is indexed, refuses writes, and retries (start()). A
  // visibility bound set before open() holds what lies past it.
  note_dispatch(dispatch(dispatch_limit()));
  // 3. The disk state, a new store's first file, and the abort file.
  cleanup_.refresh_disk();
  co_await preallocate_first_file();
  Status created = co_await create_abort_file();
  opened_ = created.ok();
  co_return created;
}

Task<void> MessageStore::preallocate_first_file() {
  // A new store creates its first CommitLog segment now, reserved (and, in production, faulted
  // into memory) off the loop, rather than on the first put.
  if (!config_.commit_log_preallocate || !log_.files().empty()) co_return;
  Status first = co_await log_.files().preallocate_next(0);
  if (!first.ok()) {
    rt_.log().warn("store: pre-allocating the first CommitLog file failed (the first put will "
                   "create it): {}", first.error().to_string());
  }
}

Task<Status> MessageStore::create_abort_file() {
  OpenOptions create;
  create.create = true;
  auto abort_file = rt_.fs().open(path(kAbortFileName), create);
  if (!abort_file.ok()) co_return std::move(abort_file).error();
  co_return co_await rt_.fs().sync_dir(config_.root);
}

void MessageStore::start() {
  FERRY_ASSERT(!started_, "MessageStore::start() called twice");
  started_ = true;
  rt_.spawn(flush_.run_async_loop(), "store-flush-commitlog");
  rt_.spawn(run_queue_flush_loop(), "store-flush-queues");
  rt_.spawn(cleanup_.run_loop(), "store-cleanup");
  rt_.spawn(run_dispatch_retry_loop(), "store-dispatch-retry");
  maybe_preallocate();
}

Task<void> MessageStore::run_dispatch_retry_loop() {
  while (!stopped_) {
    co_await rt_.sleep(kDispatchRetryInterval);
    if (stopped_) break;
    if (!dispatch_failure_) continue;
    note_dispatch(dispatch(dispatch_limit()));
  }
}

void MessageStore::note_dispatch(Status st) {
  if (!st.ok()) {
    if (!dispatch_failure_) {
      rt_.log().error("store: indexing the CommitLog at offset {} failed; writes are refused until it succeeds "
                      "(retried every {} ms): {}", reput_offset_.value(), to_ms(kDispatchRetryInterval),
                      st.error().to_string());
    }
    dispatch_failure_ = std::move(st).error();
    return;
  }
  if (dispatch_failure_) {
    rt_.log().warn("store: indexing caught up at CommitLog offset {}; writes are taken again", reput_offset_.value());
    dispatch_failure_.reset();
  }
}

void MessageStore::maybe_preallocate() {
  if (!config_.commit_log_preallocate || !started_ || stopped_ || preallocating_) return;
  if (!log_.files().preallocation_wanted()) return;
  preallocating_ = true;
  rt_.spawn(run_preallocation(), "store-preallocate");
}

Task<void> MessageStore::run_preallocation() {
  FERRY_ASSERT(preallocating_, "run_preallocation without the flag");
  // buggify: pre-allocation starts late, so a roll-over may find no file ready and create it
  // itself.
  if (FERRY_BUGGIFY(rt_)) co_await rt_.sleep(std::chrono::milliseconds(rt_.random().between(1, 500)));
  Status st = co_await log_.files().preallocate_next();
  preallocating_ = false;
  // Retried after every put: a disk without room for the file is logged once, when it starts.
  const bool no_room = !st.ok() && st.error().is(Errc::no_space);
  if (!st.ok() && !(no_room && preallocation_refused_)) {
    if (auto held = preallocation_log_.admit(rt_.now(), static_cast<std::int64_t>(st.error().code))) {
      rt_.log().warn("store: pre-allocating the next CommitLog file failed (the roll-over will "
                     "create it): {}{}", st.error().to_string(), held_back_note(*held));
    }
  }
  preallocation_refused_ = no_room;
}

Task<void> MessageStore::run_queue_flush_loop() {
  // A failed ConsumeQueue sync stays failed until the restart (mapped_file_queue.h): said at once
  // at error level, then once a minute while it lasts, not at every round. Kept apart by error
  // code, not by text: with descriptors exhausted each round names another file.
  LogLimiter failure_log(std::chrono::minutes(1));
  bool failing = false;
  Errc failing_with{};
  while (!stopped_) {
    co_await rt_.sleep(config_.consume_queue_flush_interval);
    // buggify: the ConsumeQueue flush runs late (recovery re-dispatches from the checkpoint).
    if (FERRY_BUGGIFY(rt_)) {
      co_await rt_.sleep(std::chrono::milliseconds(rt_.random().between(1, 3 * to_ms(config_.consume_queue_flush_interval))));
    }
    if (stopped_) break;
    Status st = co_await flush_queues_and_checkpoint();
    if (st.ok()) {
      if (failing) rt_.log().info("store: queue flush works again");
      failing = false;
      failure_log.reset();
      continue;
    }
    const bool news = !failing || st.error().code != failing_with;
    if (auto held = failure_log.admit(rt_.now(), static_cast<std::int64_t>(st.error().code))) {
      if (news) {
        rt_.log().error("store: queue flush failed: {}", st.error().to_string());
      } else {
        rt_.log().warn("store: queue flush still failing ({} more rounds; the checkpoint stays where it was): {}", *held,
                       st.error().to_string());
      }
    }
    failing = true;
    failing_with = st.error().code;
  }
}

struct MessageStore::QueueFlushScope {
  explicit QueueFlushScope(MessageStore& s) : store(s) { ++store.queue_flushes_; }
  ~QueueFlushScope() {
    FERRY_ASSERT(store.queue_flushes_ > 0, "queue flush scope ends with {} flushes in flight", store.queue_flushes_);
    if (--store.queue_flushes_ == 0) store.retired_queues_.clear();
  }
  QueueFlushScope(const QueueFlushScope&) = delete;
  QueueFlushScope& operator=(const QueueFlushScope&) = delete;
  MessageStore& store;
};

Task<Status> MessageStore::flush_queues_and_checkpoint() {
  // Units and entries for every record below `reput` are written now; after the flushes below
  // they are durable, which is what the checkpoint promises.
  const PhysicalOffset reput = reput_offset_;
  const QueueFlushScope scope(*this);  // queues destroyed meanwhile stay alive until it ends
  std::vector<ConsumeQueue*> queues;
  queues.reserve(queues_.size());
  for (auto& [key, q] : queues_) queues.push_back(q.get());
  for (ConsumeQueue* q : queues) {
    Status st = co_await q->flush();
    if (!st.ok()) co_return st;
  }
  Status st = co_await index_.flush();
  if (!st.ok()) co_return st;
  const Checkpoint cp{log_.flushed_offset(), reput, reput};
  co_return co_await write_checkpoint(rt_.fs(), path(kCheckpointFileName), cp);
}

Task<Status> MessageStore::shutdown() {
  stopped_ = true;
  flush_.stop();
  cleanup_.stop();
  // A pre-allocation in flight uses the CommitLog: let it finish (one allocate() call).
  while (preallocating_) co_await rt_.sleep(std::chrono::milliseconds(1));
  Status st = co_await flush_.flush_all();
  if (!st.ok()) co_return st;
  st = co_await flush_queues_and_checkpoint();
  if (!st.ok()) co_return st;
  st = rt_.fs().remove(path(kAbortFileName));
  if (!st.ok() && !st.error().is(Errc::not_found)) co_return st;
  co_return co_await rt_.fs().sync_dir(config_.root);
}

ConsumeQueue* MessageStore::find_queue(const std::string& topic, QueueId queue_id) const {
  auto it = queues_.find(QueueKeyView(topic, queue_id.value()));
  return it == queues_.end() ? nullptr : it->second.get();
}

Result<ConsumeQueue*> MessageStore::queue_for(std::string_view topic, QueueId queue_id) {
  auto it = queues_.find(QueueKeyView(topic, queue_id.value()));
  if (it != queues_.end()) return it->second.get();
  QueueKey key(std::string(topic), queue_id.value());
  auto q = std::make_unique<ConsumeQueue>(rt_.fs(), config_.root, key.first, queue_id,
                                          config_.consume_queue_units_per_file);
  FERRY_TRY(q->load_and_recover());
  ConsumeQueue* raw = q.get();
  queues_.emplace(std::move(key), std::move(q));
  return raw;
}

std::optional<std::string> MessageStore::write_refusal() const {
  if (stopped_) return std::string("the store is shut down");
  if (const std::optional<Error>& failed = flush_.sync_failure()) {
    return "a CommitLog sync failed; the store refuses writes until it is restarted: " + failed->detail;
  }
  if (dispatch_failure_) {
    return fmt::format("indexing the CommitLog at offset {} failed (retried every {} ms): {}", reput_offset_.value(),
                       to_ms(kDispatchRetryInterval), dispatch_failure_->to_string());
  }
  if (cleanup_.disk_full()) {
    return fmt::format("disk full: {}% used (limit {}%)", cleanup_.used_pct(), config_.disk_space_warning_level_ratio_pct);
  }
  if (next_file_refused_) {
    // Asked again each time: the refusal ends as soon as the disk has room for the next file.
    Status room = log_.files().check_room_for_next();
    if (!room.ok()) return room.error().detail;
  }
  return std::nullopt;
}

void MessageStore::note_next_file_room(AppendStatus appended, const std::string& detail) {
  const bool refused = appended == AppendStatus::no_space;
  if (refused && !next_file_refused_) {
    rt_.log().error("store: writes are refused until the disk has room for the next CommitLog file: {}", detail);
  } else if (!refused && next_file_refused_ && appended == AppendStatus::ok) {
    rt_.log().warn("store: the disk has room for the next CommitLog file again; writes are taken again");
  }
  if (refused) next_file_refused_ = true;
  if (appended == AppendStatus::ok) next_file_refused_ = false;
}

PutResult MessageStore::put_message(const PutRequest& request) {
  return put(std::span<const PutRequest>(&request, 1));
}

PutResult MessageStore::put_messages(std::span<const PutRequest> batch) { return put(batch); }

PutResult MessageStore::put(std::span<const PutRequest> batch) {
  FERRY_ASSERT(!batch.empty(), "put of an empty batch");
  PutResult result;
  auto refuse = [&](PutStatus s, std::string detail) {
    result.status = s;
    result.detail = std::move(detail);
    return result;
  };
  if (std::optional<std::string> why = write_refusal()) return refuse(PutStatus::service_not_available, std::move(*why));
  const PutRequest& first = batch.front();
  for (const PutRequest& r : batch) {
    if (r.topic != first.topic || r.queue_id != first.queue_id) {
      return refuse(PutStatus::message_illegal, "a batch must target one topic-queue");
    }
    if (r.topic.empty() || r.topic.size() > record::kTopicBytesMax) {
      return refuse(PutStatus::message_illegal, fmt::format("topic of {} bytes", r.topic.size()));
    }
    if (r.properties.size() > record::kPropertiesBytesMax) {
      return refuse(PutStatus::properties_size_exceeded,
                    fmt::format("properties of {} bytes (max {})", r.properties.size(),
                                record::kPropertiesBytesMax));
    }
    if (static_cast<std::int64_t>(r.body.size()) > config_.message_size_max_bytes) {
      return refuse(PutStatus::message_illegal, fmt::format("body of {} bytes (max {})",
                                                            r.body.size(), config_.message_size_max_bytes));
    }
    // Recovery takes zeros in a record's properties for a lost write (commit_log.cc): a record
    // holding them would cut the log at the next crash.
    if (const auto nul = r.properties.find('\0'); nul != std::string_view::npos) {
      return refuse(PutStatus::message_illegal,
                    fmt::format("properties hold a NUL byte (at {} of {}): properties are text", nul, r.properties.size()));
    }
  }
  if (counted_to_ < log_.max_offset()) count_queue_offsets();
  const bool counted_to_end = counted_to_ >= log_.max_offset();
  const QueueKeyView key(first.topic, first.queue_id.value());
  auto next_it = next_queue_offset_.find(key);
  QueueOffset next = next_it == next_queue_offset_.end() ? QueueOffset(0) : next_it->second;
  result.queue_offset = next;
  fields_.clear();
  for (const PutRequest& r : batch) {
    RecordFields f;
    f.body_crc = body_crc(r.body);
    f.queue_id = r.queue_id;
    f.flag = r.flag;
    f.sys_flag = with_host_flags(r.sys_flag, r.born_host, config_.store_host);
    f.queue_offset = skips_consume_queue(r.sys_flag) ? QueueOffset(0) : next;
    if (!skips_consume_queue(r.sys_flag)) next += 1;
    f.born_timestamp_ms = r.born_timestamp_ms;
    f.born_host = r.born_host;
    f.store_host = config_.store_host;
    f.reconsume_times = r.reconsume_times;
    f.prepared_transaction_offset = r.prepared_transaction_offset;
    f.body = r.body;
    f.topic = r.topic;
    f.properties = r.properties;
    fields_.push_back(f);
  }
  const WallMs now = rt_.wall_ms();
  // buggify: the CommitLog rolls to its next file early, before this put (a BLANK marker far
  // from the file's end; readers skip from any BLANK to the next file). Rare: each roll costs a
  // whole file on every replica (at one put in 8 of a site firing 40%, the hour-long soak under
  // swarm held 15 GB of files in the simulator's memory; at one in 512, a few hundred rolls).
  if (FERRY_BUGGIFY(rt_) && rt_.random().one_in(512)) {
    if (Status rolled = log_.roll(); !rolled.ok()) {
      rt_.log().warn("store: an early CommitLog roll failed (the put goes on): {}", rolled.error().to_string());
    }
  }
  const bool dispatched_to_end = reput_offset_ == log_.max_offset();
  const bool visible_when_durable = config_.flush_mode == FlushMode::sync_flush;
  const AppendResult appended = log_.append(fields_, now);
  note_next_file_room(appended.status, appended.detail);
  switch (appended.status) {
    case AppendStatus::ok: break;
    case AppendStatus::message_illegal: return refuse(PutStatus::message_illegal, appended.detail);
    case AppendStatus::invalid_fields: return refuse(PutStatus::message_illegal, appended.detail);
    case AppendStatus::no_space: return refuse(PutStatus::service_not_available, appended.detail);
    case AppendStatus::io_error: return refuse(PutStatus::create_mapped_file_failed, appended.detail);
  }
  result.wrote_offset = appended.wrote_offset;
  result.wrote_bytes = appended.wrote_bytes;
  result.message_count = static_cast<std::int32_t>(batch.size());
  if (batch.size() > 1) {
    const std::span<const std::size_t> sizes = log_.last_record_sizes();
    result.record_sizes.assign(sizes.begin(), sizes.end());
  }
  result.store_timestamp_ms = now;
  if (counted_to_end) counted_to_ = log_.max_offset();
  if (appended_) appended_(log_.max_offset());
  if (next_it == next_queue_offset_.end()) {
    next_queue_offset_.emplace(QueueKey(std::string(first.topic), first.queue_id.value()), next);
  } else {
    next_it->second = next;
  }
  if (visible_when_durable || visibility_bound_) {
    if (visible_when_durable) {
      flush_.request(appended.wrote_offset + appended.wrote_bytes);  // dispatched once durable
    } else {
      note_dispatch(dispatch(dispatch_limit()));  // up to the bound; the rest when it moves
    }
    maybe_preallocate();
    return result;
  }
  // Dispatch (which also advances next_queue_offset_ for the queue). When everything before was
  // dispatched, the records just written are dispatched from their fields (append set their
  // offsets and store time) instead of being decoded back from the log; anything between the
  // old end and wrote_offset is the BLANK of a roll-over, which dispatch() would skip too.
  Status st;
  if (dispatched_to_end) {
    reput_offset_ = appended.wrote_offset;
    const std::span<const std::size_t> sizes = log_.last_record_sizes();
    FERRY_ASSERT_EQ(sizes.size(), fields_.size());
    for (std::size_t i = 0; i < fields_.size() && st.ok(); ++i) {
      FERRY_ASSERT_EQ(fields_[i].physical_offset.value(), reput_offset_.value());
      st = dispatch_record(fields_[i], sizes[i]);
      if (st.ok()) reput_offset_ += static_cast<std::int64_t>(sizes[i]);  // else retried from this record
    }
  } else {
    st = dispatch(log_.max_offset());
  }
  // The records are in the CommitLog, so the put stands; a record that could not be indexed
  // (no space for a ConsumeQueue file, EIO) becomes readable once the retry succeeds, and until
  // then the store refuses new writes (write_refusal()).
  const bool indexed = st.ok();
  note_dispatch(std::move(st));
  if (indexed) FERRY_ASSERT_EQ(reput_offset_.value(), log_.max_offset().value());
  maybe_preallocate();
  return result;
}

std::string MessageStore::offset_msg_ids(const PutResult& r) const {
  FERRY_ASSERT(r.stored(), "msgIds of a put that stored nothing ({})", put_status_name(r.status));
  if (r.record_sizes.empty()) {
    FERRY_ASSERT_EQ(r.message_count, 1);
    return encode_offset_msg_id(config_.store_host, r.wrote_offset);
  }
  FERRY_ASSERT_EQ(r.record_sizes.size(), static_cast<std::size_t>(r.message_count));
  std::string ids;
  PhysicalOffset at = r.wrote_offset;
  for (std::size_t i = 0; i < r.record_sizes.size(); ++i) {
    if (i > 0) ids.push_back(',');
    ids += encode_offset_msg_id(config_.store_host, at);
    at += r.record_sizes[i];
  }
  FERRY_ASSERT_EQ(at.value(), r.end().value());
  return ids;
}

Status MessageStore::append_replicated(PhysicalOffset at, Bytes data) {
  if (stopped_) return Error(Errc::closed, "the store is shut down");
  // A log of two histories takes no more (the slave's HA link ends, saying why).
  if (dispatch_failure_ && dispatch_failure_->is(Errc::corrupt)) return *dispatch_failure_;
  if (const auto& failed = flush_.sync_failure()) {
    return Error(Errc::io_error, "a CommitLog sync failed earlier: " + failed->to_string());
  }
  FERRY_TRY(log_.append_raw(at, data));
  if (config_.flush_mode == FlushMode::sync_flush) {
    flush_.request(log_.max_offset());  // dispatched once durable (dispatch_durable)
  } else {
    note_dispatch(dispatch(dispatch_limit()));
  }
  maybe_preallocate();
  return {};
}

std::map<std::string, std::int32_t> MessageStore::queue_counts() const {
  std::map<std::string, std::int32_t> out;
  for (const auto& [key, q] : queues_) {
    std::int32_t& n = out[key.first];
    n = std::max(n, key.second + 1);
  }
  return out;
}

PhysicalOffset MessageStore::indexable_end() const {
  const PhysicalOffset limit = config_.flush_mode == FlushMode::sync_flush ? log_.flushed_offset() : log_.max_offset();
  return walk_whole_records(std::max(reput_offset_, log_.min_offset()), limit, [](const RecordFields&) {});
}

PhysicalOffset MessageStore::walk_whole_records(PhysicalOffset from, PhysicalOffset limit,
                                                const std::function<void(const RecordFields&)>& on_message) const {
  const RecordDecodeOptions options = dispatch_options(config_);
  PhysicalOffset at = from;
  while (at < limit) {
    auto view = log_.view_to_file_end(at);
    if (!view.ok()) break;
    const RecordRead r = decode_record(view->bytes(), options);
    if (r.kind == RecordKind::message && static_cast<std::int64_t>(r.size_bytes) <= limit - at &&
        r.fields.physical_offset == at) {
      on_message(r.fields);
      at += static_cast<std::int64_t>(r.size_bytes);
    } else if (r.kind == RecordKind::blank && log_.next_file_start(at) <= limit) {
      at = log_.next_file_start(at);
    } else {
      break;  // a partial record (a slave's log ends anywhere), or one dispatch will judge
    }
  }
  return at;
}

Status MessageStore::truncate_to_indexed() {
  // Past a visibility bound lie whole records that are not indexed yet: they stay.
  const PhysicalOffset end = visibility_bound_ ? indexable_end() : reput_offset_;
  if (end >= log_.max_offset()) return {};
  rt_.log().info("store: cutting the log back from {} to {}, the end of its last whole record",
                 log_.max_offset().value(), end.value());
  FERRY_TRY(log_.files().truncate(end.value()));
  flush_.truncated(end);
  note_cut(end);
  FERRY_ASSERT_EQ(log_.max_offset().value(), end.value());
  recount_from_queues();
  return {};
}

void MessageStore::note_cut(PhysicalOffset at) {
  ++cuts_.count;
  cuts_.last = at;
  cuts_.lowest_since_open = std::min(cuts_.lowest_since_open.value_or(at), at);
}

Status MessageStore::truncate_to(PhysicalOffset offset) {
  if (offset > log_.max_offset() || (offset < log_.min_offset() && offset != log_.max_offset())) {
    return Error(Errc::invalid_argument, fmt::format("cannot cut the log back to {}: it holds [{}, {})",
                                                     offset.value(), log_.min_offset().value(),
                                                     log_.max_offset().value()));
  }
  if (offset == log_.max_offset()) return {};
  rt_.log().warn("store: cutting the log back from {} to {} ({} bytes another master's epoch does not hold)",
                 log_.max_offset().value(), offset.value(), log_.max_offset() - offset);
  FERRY_TRY(log_.files().truncate(offset.value()));
  flush_.truncated(offset);
  note_cut(offset);
  reput_offset_ = std::min(reput_offset_, offset);
  for (auto& [key, q] : queues_) FERRY_TRY(q->truncate_dirty(offset));
  recount_from_queues();
  return {};
}

void MessageStore::recount_from_queues() {
  // A queue without units has no entry: a message counted for it lay past reput_offset_.
  next_queue_offset_.clear();
  for (const auto& [key, q] : queues_) next_queue_offset_[key] = q->max_offset();
  counted_to_ = reput_offset_;
}

void MessageStore::note_queue_offset(const RecordFields& f) {
  auto next = next_queue_offset_.find(QueueKeyView(f.topic, f.queue_id.value()));
  if (next == next_queue_offset_.end()) {
    next_queue_offset_.emplace(QueueKey(std::string(f.topic), f.queue_id.value()), f.queue_offset + 1);
  } else {
    next->second = std::max(next->second, f.queue_offset + 1);
  }
}

void MessageStore::count_queue_offsets() {
  const PhysicalOffset from = std::max({counted_to_, reput_offset_, log_.min_offset()});
  counted_to_ = walk_whole_records(from, log_.max_offset(), [this](const RecordFields& f) {
    if (skips_consume_queue(f.sys_flag) || is_damage_filler(f.topic)) return;
    note_queue_offset(f);
  });
}

bool MessageStore::record_boundary(PhysicalOffset offset) const {
  if (offset == log_.max_offset()) return true;
  if (offset < log_.min_offset() || offset > log_.max_offset()) return false;
  if (offset.value() % log_.file_size() == 0) return true;
  if (message_at(offset).ok()) return true;
  auto head = log_.view(offset, static_cast<std::int32_t>(std::min<std::int64_t>(static_cast<std::int64_t>(record::kBlankBytes), log_.max_offset() - offset)));
  return head.ok() && decode_record(head->bytes()).kind == RecordKind::blank;
}

void MessageStore::dispatch_durable() { note_dispatch(dispatch(dispatch_limit())); }

PhysicalOffset MessageStore::dispatch_limit() const {
  PhysicalOffset limit = config_.flush_mode == FlushMode::sync_flush ? log_.flushed_offset() : log_.max_offset();
  if (visibility_bound_) limit = std::min(limit, *visibility_bound_);
  return limit;
}

void MessageStore::set_visibility_bound(std::optional<PhysicalOffset> bound) {
  if (visibility_bound_ == bound) return;
  visibility_bound_ = bound;
  if (opened_ && !stopped_) note_dispatch(dispatch(dispatch_limit()));
}

Status MessageStore::dispatch(PhysicalOffset limit) {
  FERRY_ASSERT_LE(limit.value(), log_.max_offset().value());
  const RecordDecodeOptions options = dispatch_options(config_);
  reput_offset_ = std::max(reput_offset_, log_.min_offset());
  while (reput_offset_ < limit) {
    auto view = log_.view_to_file_end(reput_offset_);
    if (!view.ok()) return std::move(view).error();
    const RecordRead r = decode_record(view->bytes(), options);
    // A slave's log may end inside a record (a replicated batch ends anywhere), and under
    // SYNC_FLUSH `limit` (what is durable) too: what reaches past `limit` waits for more.
    const std::int64_t left = (limit - reput_offset_);
    switch (r.kind) {
      case RecordKind::message:
        if (static_cast<std::int64_t>(r.size_bytes) > left) return {};
        if (r.fields.physical_offset != reput_offset_) {
          return Error(Errc::corrupt, fmt::format("dispatch at {}: the record there says it is at {}",
                                                  reput_offset_.value(), r.fields.physical_offset.value()));
        }
        FERRY_TRY(dispatch_record(r.fields, r.size_bytes));
        reput_offset_ += static_cast<std::int64_t>(r.size_bytes);
        break;
      case RecordKind::blank:
        if (log_.next_file_start(reput_offset_) > limit) return {};
        reput_offset_ = log_.next_file_start(reput_offset_);
        break;
      case RecordKind::torn:
        if (r.size_bytes == 0 || static_cast<std::int64_t>(r.size_bytes) > left) return {};
        [[fallthrough]];
      case RecordKind::unwritten:
      case RecordKind::corrupt:
        return Error(Errc::corrupt, fmt::format("dispatch at {}: {} record below the log end {}: {}",
                                                reput_offset_.value(), record_kind_name(r.kind),
                                                log_.max_offset().value(), r.detail));
    }
  }
  FERRY_ASSERT_LE(reput_offset_.value(), log_.max_offset().value());
  return {};
}

Status MessageStore::dispatch_record(const RecordFields& f, std::size_t size) {
  FERRY_ASSERT(size <= static_cast<std::size_t>(INT32_MAX), "record of {} bytes", size);
  if (is_damage_filler(f.topic)) return {};  // marks a damaged range: no unit, no index entry
  const DispatchProperties props = find_dispatch_properties(f.properties);
  if (!skips_consume_queue(f.sys_flag)) {
    std::optional<std::int64_t> code;
    if (tags_code_hook_) code = tags_code_hook_(f.topic, f.properties, f.store_timestamp_ms);
    if (!code) code = tags_code(props.tags);
    auto q = queue_for(f.topic, f.queue_id);
    if (!q.ok()) return std::move(q).error();
    if (f.queue_offset > (*q)->max_offset() && (*q)->max_offset() > QueueOffset(0)) {
      FERRY_TRY(fill_lost_queue_offsets(**q, f.queue_offset));
    }
    if (f.queue_offset > (*q)->max_offset() && (*q)->max_offset() > QueueOffset(0)) {
      // Not a damaged range recovery skipped: the log and its queues disagree. A slave whose
      // master lost what it had sent (a lying disk, then a power loss) and wrote new records over
      // the same offsets ends so: its own records, then the master's, numbered from another count.
      return Error(Errc::corrupt, fmt::format("dispatch at {}: {}:{} record has queue offset {} but the queue ends at {}: "
                                              "this log holds records of two histories (a slave whose master lost data "
                                              "it had sent?); wipe this store and let it copy its master again",
                                              f.physical_offset.value(), f.topic, f.queue_id.value(),
                                              f.queue_offset.value(), (*q)->max_offset().value()));
    }
    auto appended = (*q)->append(f.queue_offset,
                                 cq::Unit{f.physical_offset, static_cast<std::int32_t>(size), *code});
    if (!appended.ok()) return std::move(appended).error();
    note_queue_offset(f);
    if (arrival_) arrival_((*q)->topic(), f.queue_id, (*q)->max_offset());
  }
  IndexRequest ir;
  ir.topic = f.topic;
  ir.keys = props.keys.value_or("");
  ir.uniq_key = props.uniq_key.value_or("");
  ir.offset = f.physical_offset;
  ir.store_timestamp_ms = f.store_timestamp_ms;
  ir.sys_flag = f.sys_flag;
  return index_.build(ir);
}

Status MessageStore::fill_lost_queue_offsets(ConsumeQueue& q, QueueOffset to) {
  // Only after recovery skipped damaged ranges may a queue miss offsets (messages in a range whose
  // units were not written yet); anywhere else dispatch_record refuses the gap.
  const std::int64_t gap = (to - q.max_offset());
  if (lost_offsets_budget_ == 0) return {};
  if (gap > lost_offsets_budget_) {
    return Error(Errc::corrupt, fmt::format("dispatch: {}:{} jumps from queue offset {} to {}, more than the {} "
                                            "message(s) the skipped CommitLog ranges could have held",
                                            q.topic(), q.queue_id().value(), q.max_offset().value(), to.value(),
                                            lost_offsets_budget_));
  }
  rt_.log().error("store: {}:{} queue offsets [{}, {}) were messages in a damaged CommitLog range; they are holes "
                  "that readers skip", q.topic(), q.queue_id().value(), q.max_offset().value(), to.value());
  FERRY_TRY(q.append_holes(to));
  lost_offsets_budget_ -= gap;
  return {};
}

QueueOffset MessageStore::min_offset(const std::string& topic, QueueId queue_id) const {
  const ConsumeQueue* q = find_queue(topic, queue_id);
  return q == nullptr ? QueueOffset(0) : q->min_offset();
}

QueueOffset MessageStore::max_offset(const std::string& topic, QueueId queue_id) const {
  const ConsumeQueue* q = find_queue(topic, queue_id);
  return q == nullptr ? QueueOffset(0) : q->max_offset();
}

Result<FileView> MessageStore::message_at(PhysicalOffset offset) const {
  if (offset < log_.min_offset() || offset >= log_.max_offset()) {
    return Error(Errc::not_found, fmt::format("commit-log offset {} is outside the log [{}, {})", offset.value(),
                                              log_.min_offset().value(), log_.max_offset().value()));
  }
  // The offset may come from a client (VIEW_MESSAGE_BY_ID, a send-back): read only the fixed head
  // first and believe its size only when the head is a message record that says it starts here.
  constexpr std::size_t kHeadBytes = record::kPhysicalOffsetPos + record::kPhysicalOffsetBytes;
  const std::int64_t left = log_.max_offset().value() - offset.value();
  if (left < static_cast<std::int64_t>(kHeadBytes)) {
    return Error(Errc::corrupt, fmt::format("no record starts at commit-log offset {} (only {} bytes follow)", offset.value(), left));
  }
  auto head = log_.view(offset, static_cast<std::int32_t>(kHeadBytes));
  if (!head.ok()) return std::move(head).error();
  const std::uint8_t* h = head->bytes().data();
  const auto size = static_cast<std::int32_t>(load_be32(h + record::kTotalSizePos));
  const std::uint32_t magic = load_be32(h + record::kMagicPos);
  const auto stored_at = static_cast<std::int64_t>(load_be64(h + record::kPhysicalOffsetPos));
  if (magic != record::kMessageMagic || stored_at != offset.value()) {
    return Error(Errc::corrupt, fmt::format("no record starts at commit-log offset {} (magic {:#010x}, stored offset {})",
                                            offset.value(), magic, stored_at));
  }
  if (size < static_cast<std::int32_t>(record::kMinRecordBytes) || size > config_.message_size_max_bytes || size > left) {
    return Error(Errc::corrupt, fmt::format("the record at commit-log offset {} claims {} bytes (at least {}, at most {}, {} written)",
                                            offset.value(), size, record::kMinRecordBytes, config_.message_size_max_bytes, left));
  }
  return log_.view(offset, size);
}

Result<QueueOffset> MessageStore::offset_by_time(const std::string& topic, QueueId queue_id,
                                                 WallMs ts) const {
  const ConsumeQueue* q = find_queue(topic, queue_id);
  if (q == nullptr) return QueueOffset(0);
  return q->offset_by_time(ts, [this](PhysicalOffset off, std::int32_t size) {
    return log_.store_timestamp(off, size);
  });
}

Result<WallMs> MessageStore::earliest_store_time(const std::string& topic, QueueId queue_id) const {
  const ConsumeQueue* q = find_queue(topic, queue_id);
  if (q == nullptr || q->min_offset() >= q->max_offset()) {
    return Error(Errc::not_found, fmt::format("queue {}:{} is empty", topic, queue_id.value()));
  }
  auto u = q->read(q->min_offset());
  if (!u.ok()) return std::move(u).error();
  return log_.store_timestamp(u->commit_log_offset, u->size);
}

Result<WallMs> MessageStore::store_time_at(const std::string& topic, QueueId queue_id, QueueOffset offset) const {
  const ConsumeQueue* q = find_queue(topic, queue_id);
  if (q == nullptr || offset < q->min_offset() || offset >= q->max_offset()) {
    return Error(Errc::not_found, fmt::format("queue {}:{} has no message at offset {}", topic, queue_id.value(),
                                              offset.value()));
  }
  auto u = q->read(offset);
  if (!u.ok()) return std::move(u).error();
  return log_.store_timestamp(u->commit_log_offset, u->size);
}

}  // namespace ferry::store
