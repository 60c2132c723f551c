// StoreRecovery (store_recovery.h): loading and recovering the CommitLog, ConsumeQueues and
// index files at open().
#include "store/store_recovery.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "runtime/assert.h"
#include "store/dispatch_rules.h"
#include "store/file_names.h"

namespace ferry::store {

StoreRecovery::StoreRecovery(Runtime& rt, const StoreConfig& config, CommitLog& log, ConsumeQueueTable& queues,
                             IndexService& index)
    : rt_(rt), config_(config), log_(log), queues_(queues), index_(index) {}

std::string StoreRecovery::path(std::string_view name) const { return join_path(config_.root, name); }

Task<Result<RecoveryInfo>> StoreRecovery::run() {
  FERRY_ASSERT(!ran_, "store recovery of {} run twice", config_.root);
  ran_ = true;
  FERRY_ASSERT(queues_.empty(), "store recovery of {} with {} ConsumeQueue(s) already open", config_.root,
               queues_.size());
  info_.clean_shutdown = !rt_.fs().exists(path(kAbortFileName));
  FERRY_CO_TRY(load_files());
  FERRY_CO_TRY(recover_commit_log());
  FERRY_CO_TRY(truncate_queues());
  Task<Status> synced = sync_truncations();
  FERRY_CO_TRY(co_await std::move(synced));
  Task<Status> indexed = recover_index();
  FERRY_CO_TRY(co_await std::move(indexed));
  co_return info_;
}

// ---- 1. load -----------------------------------------------------------------------------------

Status StoreRecovery::load_files() {
  FERRY_TRY(log_.load());
  FERRY_TRY(load_consume_queues(/*scan_all=*/!info_.clean_shutdown));
  FERRY_TRY(index_.load());
  auto cp = read_checkpoint(rt_.fs(), path(kCheckpointFileName));
  if (!cp.ok()) return std::move(cp).error();
  info_.checkpoint = *cp;
  return {};
}

Status StoreRecovery::load_consume_queues(bool scan_all) {
  const std::string dir = join_path(config_.root, "consumequeue");
  FERRY_TRY(rt_.fs().create_dirs(dir));
  auto topics = rt_.fs().list(dir);
  if (!topics.ok()) return std::move(topics).error();
  for (const std::string& topic : *topics) {
    auto ids = rt_.fs().list(join_path(dir, topic));
    if (!ids.ok()) return std::move(ids).error();
    for (const std::string& id : *ids) {
      std::int32_t qid = 0;
      bool numeric = !id.empty() && id.size() <= 9;
      for (const char c : id) {
        numeric = numeric && c >= '0' && c <= '9';
        if (numeric) qid = qid * 10 + (c - '0');
      }
      if (!numeric) {
        return Error(Errc::corrupt, fmt::format("{}/{}/{}: not a queue id", dir, topic, id));
      }
      auto q = std::make_unique<ConsumeQueue>(rt_.fs(), config_.root, topic, QueueId(qid),
                                              config_.consume_queue_units_per_file);
      FERRY_TRY(q->load_and_recover(scan_all));
      queues_.emplace(QueueKey(topic, qid), std::move(q));
    }
  }
  return {};
}

// ---- 2. the CommitLog --------------------------------------------------------------------------

Status StoreRecovery::recover_commit_log() {
  // Where the scan starts: the last 3 files after a clean stop; after a crash the file holding
  // the oldest checkpointed offset (everything before it was synced and dispatched).
  std::size_t first_file = 0;
  const MappedFileQueue& files = log_.files();
  if (!files.empty()) {
    if (info_.clean_shutdown) {
      first_file = files.file_count() > 3 ? files.file_count() - 3 : 0;
    } else if (info_.checkpoint) {
      const std::int64_t from = std::max(info_.checkpoint->min().value(), files.min_offset());
      first_file = static_cast<std::size_t>((from - files.min_offset()) / files.file_size());
    }
  }
  // What is known synced: a bad record below it with good data after it is corruption, not a
  // crash's torn tail (docs/store.md, "Recovery rules"). Without a checkpoint after a crash
  // nothing is known, and every bad record is taken as a torn tail (as before recover modes).
  PhysicalOffset durable_below(0);
  if (info_.clean_shutdown) {
    durable_below = PhysicalOffset(INT64_MAX);
  } else if (info_.checkpoint) {
    durable_below = info_.checkpoint->physic;
  }
  auto report = log_.recover(first_file, durable_below);
  if (!report.ok()) return std::move(report).error();
  info_.commit_log = *report;
  for (const DamagedRange& r : report->skipped) {
    rt_.log().error("store: CommitLog range [{}, {}) ({} bytes) is damaged and now unreadable (recoverMode=skip): {}; "
                    "the messages in it are lost, the records after it are kept",
                    r.from.value(), r.to.value(), (r.to - r.from), r.detail);
  }
  if (report->discarded_records > 0) {
    rt_.log().error("store: CommitLog corrupt in the middle, cut at {} (recoverMode=truncate): {}; discarded {} valid "
                    "record(s) ({} bytes) after it; {} bytes cut from the file holding it, {} later file(s) removed",
                    report->end.value(), report->reason, report->discarded_records, report->discarded_bytes,
                    report->dropped_bytes, report->files_removed);
  } else if (report->dropped_bytes > 0 || (!info_.clean_shutdown && !report->reason.empty())) {
    rt_.log().warn("store: CommitLog recovered to {} ({} records scanned, torn tail: {} bytes dropped, {} later file(s) "
                   "removed: {})",
                   report->end.value(), report->records, report->dropped_bytes, report->files_removed, report->reason);
  }
  return {};
}

// ---- 3. ConsumeQueues --------------------------------------------------------------------------

Status StoreRecovery::truncate_queues() {
  // Units pointing into ranges skipped as damaged become holes; then drop units past the log end
  // or not matching their record (torn garbage), and skip units below the log start.
  std::vector<LogRange> skipped;
  for (const DamagedRange& r : info_.commit_log.skipped) skipped.push_back(LogRange{r.from, r.to});
  for (auto& [key, q] : queues_) {
    auto holes = q->mark_holes(skipped);
    if (!holes.ok()) return std::move(holes).error();
    if (*holes > 0) {
      rt_.log().error("store: {} message(s) of {}:{} were in a damaged CommitLog range; their queue offsets are "
                      "holes that readers skip", *holes, key.first, key.second);
    }
    const ConsumeQueue* queue = q.get();
    const ConsumeQueue::UnitCheck matches = [this, queue](QueueOffset at, const cq::Unit& u) {
      return unit_matches_log(*queue, at, u);
    };
    FERRY_TRY(q->truncate_dirty(log_.max_offset(), matches));
    FERRY_TRY(q->correct_min_offset(log_.min_offset()));
  }
  return {};
}

bool StoreRecovery::unit_matches_log(const ConsumeQueue& q, QueueOffset at, const cq::Unit& u) const {
  if (u.commit_log_offset < log_.min_offset()) return true;  // its record was cleaned up
  auto view = log_.view(u.commit_log_offset, u.size);
  if (!view.ok() || view->size() != static_cast<std::size_t>(u.size)) return false;
  const RecordRead r = decode_record(view->bytes(), dispatch_options(config_));
  return r.kind == RecordKind::message && r.size_bytes == static_cast<std::size_t>(u.size) &&
         r.fields.physical_offset == u.commit_log_offset && r.fields.topic == q.topic() &&
         r.fields.queue_id == q.queue_id() && r.fields.queue_offset == at &&
         !skips_consume_queue(r.fields.sys_flag);
}

// ---- 4. durable truncation ---------------------------------------------------------------------

Task<Status> StoreRecovery::sync_truncations() {
  // Make the truncations durable before anything is appended where they cut: otherwise a second
  // crash could bring back stale records / units under the new ones (the zeroing is a write).
  Status st = co_await log_.files().flush();
  if (!st.ok()) co_return st;
  for (auto& [key, q] : queues_) {
    st = co_await q->flush();
    if (!st.ok()) co_return st;
  }
  co_return st;
}

// ---- 5. index files and the re-dispatch start --------------------------------------------------

Task<Status> StoreRecovery::recover_index() {
  const std::optional<Checkpoint>& checkpoint = info_.checkpoint;
  // Index files that reach past what is known indexed-and-synced may hold torn entries, or
  // describe lost records (and would make the index skip new records written at those offsets):
  // after a crash drop those reaching the checkpoint, always those reaching the log end, and
  // re-index from their start.
  PhysicalOffset index_keep_below = log_.max_offset();
  if (!info_.clean_shutdown) {
    index_keep_below = checkpoint ? std::min(index_keep_below, checkpoint->index) : PhysicalOffset(0);
  }
  // Re-dispatch what the queues and index may miss: from the checkpointed dispatch offsets
  // (from the log start without a checkpoint), and from the start of dropped index files.
  PhysicalOffset from = log_.min_offset();
  if (checkpoint) from = std::min(checkpoint->logics, checkpoint->index);
  if (auto reindex = index_.reindex_from_if_removed(index_keep_below)) from = std::min(from, *reindex);
  if (index_.lost_from()) from = std::min(from, *index_.lost_from());
  from = std::clamp(from, log_.min_offset(), log_.max_offset());
  // The checkpoint must stop vouching for index entries and units before the files holding them
  // go: a crash before the re-dispatch is synced would otherwise skip them for good.
  // Likewise its physic offset after a cut below it (truncate mode): new records written over the
  // cut are not synced, and a crash must find their torn tail a torn tail, not corruption.
  if (checkpoint && (from < checkpoint->logics || from < checkpoint->index || checkpoint->physic > log_.max_offset())) {
    const Checkpoint lowered{std::min(checkpoint->physic, log_.max_offset()), std::min(checkpoint->logics, from),
                             std::min(checkpoint->index, from)};
    Status st = co_await write_checkpoint(rt_.fs(), path(kCheckpointFileName), lowered);
    if (!st.ok()) co_return st;
  }
  auto dropped = index_.remove_files_from(index_keep_below);
  if (!dropped.ok()) co_return std::move(dropped).error();
  if (!info_.clean_shutdown) {
    auto repaired = index_.repair_newest();
    if (!repaired.ok()) co_return std::move(repaired).error();
    if (*repaired > 0) {
      rt_.log().warn("store: rebuilt {} index slot(s) torn by the crash", *repaired);
    }
  }
  if (index_.lost_from()) {
    rt_.log().warn("store: index files lost in a crash ({}); re-indexing from {}", index_.lost_detail(),
                   index_.lost_from()->value());
  }
  // What the dropped files indexed is indexed again: from their first entry, or from the log's
  // start when cleanup already took the records below it (a checkpoint older than the log's
  // start leaves the file straddling it to be dropped).
  if (*dropped) {
    FERRY_ASSERT(std::max(**dropped, log_.min_offset()) >= from,
                 "index files dropped from {} below the re-dispatch start {} (the log starts at {})", (*dropped)->value(),
                 from.value(), log_.min_offset().value());
  }
  info_.reput_from = from;
  co_return Status();
}

}  // namespace ferry::store
