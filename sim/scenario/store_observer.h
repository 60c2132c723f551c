// StoreObserver: a Watch observer (watch.h) that judges every broker restart against what the
// node's CommitLog held before it (issue 16, property 6: after any crash a broker's log is a
// prefix of what it appended, containing every synced message). It appends one
// sim::StoreRestartRecord per restart to History::store_restarts; check::check_store_prefix
// (sim/check/store_prefix.h) judges them.
//
// At each look, for every broker node (masters and slaves) whose store has opened
// (MessageStore::opened(): recovered; the broker may be running or have failed to start after):
//  * a node's life is one start of it (SimNode::starts()). In the life it watches, the observer keeps a
//    digest (offset, size, CRC-32 of the bytes) of every CommitLog record appended since its
//    last look, the log's end and the highest flushed offset the CommitLog reported
//    (CommitLog::flushed_offset: what a completed sync covered, as the store believes it). After
//    a restart, a SYNC_FLUSH store has synced everything it recovered before opening; an
//    ASYNC_FLUSH one only assumes it (a killed process's page cache), so there the flushed offset
//    counts only once a sync of the new life moves it, and until then what was synced before
//    and recovered (min(recovered end, synced before)) is the synced offset.
//  * on its first look at a new life, it compares. The recovered end is RecoveryInfo's
//    (MessageStore::recovery().commit_log.end), not the current end: records the new life
//    appended before this look lie at or past it. Every digest below the recovered end, and not
//    below the new log's start (cleanup), is read again from the recovered log and must be the
//    same record; the recovered end must be at or beyond the flushed offset seen before. When
//    lives were missed (the node restarted more than once between two looks), a missed life may
//    have appended its own records over the old unsynced tail, so only records below the flushed
//    offset seen before are compared. A disk wiped while the node was down (SimDisk::Stats::wipes
//    moved) starts a new life with nothing to compare (`wiped`).
//  * then the digests at and past the recovered end (or the first mismatch) are dropped: the new
//    life's records are digested from there on and judged at its next restart.
//  * within a life, a replica of a controller-mode group may cut its log back on purpose
//    (MessageStore::truncate_to: what a new master's epochs do not hold); the digests past the
//    cut are dropped, and what was synced counts only up to it.
//
// Read-only: bytes are read with SimDisk::peek (no disk fault, no random draw, no stall), the
// store through its const getters; a run with the observer has the trace hash of one without.
// A broker node that is down, or whose store has not opened yet, is skipped until it has.
//
// Memory: at most kDigestsPerNodeMax digests (16 bytes each, 2 MiB) a node; past it the oldest are
// dropped (and not compared). A crash can take only what was written since the last sync
// (sim/disk) and recovery rescans only from the checkpoint's file, so the newest records are the
// ones at risk; the bound holds more than an hour of soak-hour's traffic per node. Digests of
// files cleanup removed are dropped at once.
//
//   Watch w(250ms);
//   StoreObserver stores(cluster, history);
//   w.add([&](MonoTime now) { stores.look(now); });
//
// Single-threaded, like the Cluster.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "common/offsets.h"
#include "sim/cluster/cluster.h"
#include "sim/history/history.h"

namespace ferry::sim::scenario {

inline constexpr std::size_t kDigestsPerNodeMax = std::size_t{1} << 17;

class StoreObserver {
 public:
  StoreObserver(cluster::Cluster& c, std::shared_ptr<sim::History> history) : cluster_(c), history_(std::move(history)) {}

  void look(MonoTime now);

 private:
  struct RecordDigest {
    std::int64_t offset = 0;  // PhysicalOffset of the record
    std::int32_t size = 0;
    std::uint32_t crc = 0;  // CRC-32 of the record's bytes
  };
  // What the observer knows of one broker node's CommitLog in the life it watches.
  struct NodeLog {
    std::uint64_t life = 0;         // the life watched (SimNode::starts()); 0: never seen opened
    std::uint64_t wipes = 0;        // the disk's wipe count when that life was first seen
    std::deque<RecordDigest> records;  // ascending offsets, the newest kDigestsPerNodeMax
    PhysicalOffset scanned_to;         // the next record to digest
    PhysicalOffset max_seen;           // the log's end at the last look
    PhysicalOffset synced_seen;        // the highest offset seen synced (see follow())
    // ASYNC_FLUSH after a restart: the flushed offset the store took on load (it assumes what it
    // loaded is durable, but a killed process may have left it in the page cache only, and
    // nothing re-syncs it). Until a sync of this life moves the flushed offset past it, only
    // synced_seen's floor (what was synced before and recovered) counts as synced.
    std::optional<PhysicalOffset> loaded_flushed;
    MonoTime last_look{};
    std::uint64_t cuts_seen = 0;  // MessageStore::cuts().count at the last look of this life
  };

  // Digests the records appended since `log.scanned_to` (whole records only: a slave may hold
  // half of one until the next batch) and notes the log's end and flushed offset.
  void follow(std::size_t broker, NodeLog& log);
  // The first look at a new life: compares, records a StoreRestartRecord (not for the node's
  // first life), and starts the life.
  void judge_restart(MonoTime now, std::size_t broker, NodeLog& log, std::uint64_t life);
  // Reads again every digest `r` says to compare (below r.recovered_end, or below r.before_synced
  // when lives were missed) and fills r's counts and first mismatch. Returns how many leading
  // digests form the verified prefix (up to the first mismatch or the first not compared).
  std::size_t compare_prefix(std::size_t broker, const NodeLog& log, sim::StoreRestartRecord& r) const;

  cluster::Cluster& cluster_;
  std::shared_ptr<sim::History> history_;
  std::map<std::string, NodeLog> logs_;  // by broker node name
};

}  // namespace ferry::sim::scenario
