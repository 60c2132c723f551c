// The simulator's knobs: one options struct per fault area, collected in WorldOptions.
//
// Faults Ferry must survive (every one of these is reachable from the options below or from
// World's fault methods, and a correct system keeps its guarantees through all of them):
//  * network: latency (a minimum plus an exponential tail), clogged (slow) links, symmetric and
//    one-way partitions, an isolated node, connection resets (a prefix of the bytes arrives, then
//    Errc::reset), refused connects, connect timeouts across a partition;
//  * process: a kill or a power loss at any event boundary (tasks destroyed; CrashKind says what
//    survives), restart after a delay, restart on a wiped disk, pause/resume (events deferred,
//    not lost), a host gone silent (World::silence);
//  * disk: unsynced writes lost on power loss, torn writes at 512-byte sector granularity,
//    garbage in torn sectors, ENOSPC, EIO on sync (the covered writes are lost, as on Linux), EIO
//    on read, slow sync, slow reads that stall the node;
//  * clock: per-node wall-clock skew, monotonic drift, wall-clock jumps;
//  * buggify: rare code paths switched on per call site from the seed.
//
// Every knob names its unit (_ns/_ms/_bytes via Duration or the suffix) or is a probability in
// parts per million (_ppm). Each struct's check() asserts its invariants; the simulator classes
// that take the options call it in their constructors.
#pragma once

#include <cstdint>

#include "runtime/network.h"
#include "runtime/time.h"

namespace ferry::sim {

// 2026-01-01T00:00:00Z in Unix milliseconds: the wall clock of every node at virtual time 0.
inline constexpr WallMs kDefaultEpochWallMs = 1'767'225'600'000;

struct ClockOptions {
  WallMs epoch_wall_ms = kDefaultEpochWallMs;
  // Each node's wall clock is offset by a skew drawn uniformly in [-max, +max] at add_node.
  std::int64_t skew_max_ms = 0;
  // Each node's monotonic clock runs at (1 + drift) x virtual time, drift drawn uniformly in
  // [-max, +max] parts per million at add_node.
  std::int64_t drift_max_ppm = 0;

  void check() const;
};

struct NetworkOptions {
  // One-way latency of every segment = latency_min + exponential(latency_tail_mean) (+ clog).
  Duration latency_min = 50us;
  Duration latency_tail_mean = 100us;
  // Bytes a direction of a connection holds (on the wire plus delivered but unread) before
  // write() waits: the back-pressure bound.
  std::uint64_t pipe_buffer_bytes = 256 * 1024;
  // Connections a listener queues before accept(); further connects are refused.
  std::uint32_t accept_backlog_max = 128;
  // Probability that a connection reset keeps delivering a random prefix of the bytes already in
  // flight (else everything in flight is dropped).
  std::uint32_t reset_keeps_prefix_ppm = 500'000;
  // A connection whose path has been down this long without a break (a partition, an isolated or
  // silent host, a powered-off peer) fails on its live sides with Errc::timed_out, as TCP's
  // keepalive and retransmission timeouts end a connection to a dead peer (the production
  // runtime sets them to kDeadPeerTimeout, runtime/network.h). 0: never.
  Duration dead_peer_timeout = kDeadPeerTimeout;

  void check() const;
};

struct DiskOptions {
  std::uint64_t capacity_bytes = 1ULL << 34;  // 16 GiB of file contents (sizes, not sectors)
  Duration sync_latency = 1ms;                // every sync() / sync_dir() / allocate()
  std::uint32_t slow_sync_ppm = 0;            // probability a sync takes slow_sync_latency extra
  Duration slow_sync_latency = 100ms;
  // Probability a sync fails with io_error. As on Linux, the dirty pages it covered are then
  // marked clean without reaching the disk: a later sync succeeds, reads still see the data, and
  // a power loss loses it. A store must treat a sync error as fatal for the data it covered.
  std::uint32_t eio_on_sync_ppm = 0;
  // The words every such failure carries (in its Error's detail, and so in whatever the product
  // logs about it): a scenario run under swarm expects error lines holding them.
  static constexpr const char* kEioOnSyncText = "simulated EIO on sync";
  // Probability a read (pread or view) fails with io_error (an unreadable sector).
  std::uint32_t eio_on_read_ppm = 0;
  // Probability that creating a file (open with create, of a name that does not exist) fails with
  // io_error and creates nothing (a failing directory block, a full inode table's EIO cousin).
  std::uint32_t eio_on_create_ppm = 0;
  // Probability a read misses the page cache and blocks the node's loop for slow_read_latency
  // (a major fault on a cold mapping: the whole node waits, as its one thread does).
  std::uint32_t slow_read_ppm = 0;
  Duration slow_read_latency = 10ms;
  // Probability, per file and crash, that unsynced sectors are torn (each kept with
  // torn_sector_keep_ppm) instead of all lost.
  std::uint32_t torn_write_on_crash_ppm = 0;
  std::uint32_t torn_sector_keep_ppm = 500'000;
  // Probability that a sector kept by a torn write holds garbage instead of the bytes written
  // since the last sync (bytes of the sector that were already durable stay intact).
  std::uint32_t corrupt_torn_sector_ppm = 0;
  // A volatile write cache that lies (write-back caching on a drive without power-loss
  // protection, or a hypervisor that acknowledges flushes it has not done): while set, every sync
  // completes successfully without making anything durable. What it "covered" stays dirty: a
  // later honest sync makes it durable, a power loss before that loses it. The store cannot see
  // this; a SYNC_FLUSH broker acknowledges data a power loss then takes (the store-prefix and
  // lost-acked checkers must catch it). Namespace operations stay durable at once.
  bool lying_sync = false;

  void check() const;
};

struct BuggifyOptions {
  bool enabled = false;
  std::uint32_t site_enabled_ppm = 250'000;  // per call site, decided once per run
  std::uint32_t fire_ppm = 250'000;          // per call of an enabled site

  void check() const;
};

struct WorldOptions {
  std::uint64_t seed = 1;
  ClockOptions clock;
  NetworkOptions network;
  DiskOptions disk;
  BuggifyOptions buggify;

  void check() const;
};

// Sector size of the simulated disk: the granularity of torn writes.
inline constexpr std::uint64_t kSectorBytes = 512;

}  // namespace ferry::sim
