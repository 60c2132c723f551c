// HaConfig: the knobs of CommitLog replication (RocketMQ 4.9's MessageStoreConfig HA fields), with
// their defaults. Units are in the names.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "runtime/time.h"

namespace ferry::store::ha {

struct HaConfig {
  // The most bytes of one pushed batch (haTransferBatchSize). A batch never spans two files.
  std::int32_t transfer_batch_bytes = 32 * 1024;
  // A master with nothing to send sends an empty batch, and a slave reports its offset, at least
  // this often (haSendHeartbeatInterval).
  Duration heartbeat_interval = std::chrono::seconds(5);
  // Either side drops a link that has been silent this long (haHousekeepingInterval).
  Duration housekeeping_interval = std::chrono::seconds(20);
  // SYNC_MASTER: a slave further behind than this does not count (haSlaveFallbehindMax); the
  // send answers SLAVE_NOT_AVAILABLE.
  std::int64_t slave_fallbehind_max_bytes = std::int64_t{256} << 20;
  // SYNC_MASTER: how long a send waits for a slave to confirm (slaveTimeout), then
  // FLUSH_SLAVE_TIMEOUT.
  Duration slave_timeout = std::chrono::seconds(3);
  // A slave's connect attempt, and its pause after a failed one (RocketMQ waits 5 s).
  Duration connect_timeout = std::chrono::seconds(3);
  Duration reconnect_interval = std::chrono::seconds(5);
  // Ferry's bound on slaves connected to one master at a time; more are refused.
  std::size_t slaves_max = 16;

  // Controller mode (RocketMQ 5's MessageStoreConfig):
  // A SYNC_MASTER put waits for every member of the SyncStateSet (allAckInSyncStateSet).
  bool all_ack_in_sync_state_set = false;
  // Otherwise it waits for this many replicas, itself included (inSyncReplicas; 1: none).
  std::int32_t in_sync_replicas = 1;
  // A slave not caught up this long leaves the SyncStateSet (haMaxTimeSlaveNotCatchup).
  Duration max_time_slave_not_catchup = std::chrono::seconds(15);
  // A new slave (empty log) is fed from the master's last file instead of its first
  // (syncFromLastFile; RocketMQ 4.9's HA always does that).
  bool sync_from_last_file = false;
};

}  // namespace ferry::store::ha
