// BrokerConfig: the broker's knobs, with RocketMQ 4.9's names (BrokerConfig + the broker part of
// MessageStoreConfig) and defaults. Units are in the names. Plain data; Broker checks it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/delay_levels.h"
#include "common/permission.h"
#include "remoting/acl/signature.h"
#include "remoting/rpc/rpc_options.h"
#include "runtime/time.h"
#include "store/ha/ha_config.h"
#include "store/store_config.h"

namespace ferry::broker {

// RocketMQ's BrokerRole. A SLAVE replicates its master's CommitLog (store/ha), refuses writes
// with SERVICE_NOT_AVAILABLE (14) and serves reads; a SYNC_MASTER acknowledges a send once a
// slave holds it (FLUSH_SLAVE_TIMEOUT / SLAVE_NOT_AVAILABLE otherwise); an ASYNC_MASTER at once.
enum class BrokerRole : std::uint8_t { async_master, sync_master, slave };

struct BrokerConfig {
  std::string broker_cluster_name = "DefaultCluster";  // brokerClusterName
  std::string broker_name = "broker-a";  // brokerName (RocketMQ: the host name; no host names here)
  std::int64_t broker_id = 0;            // brokerId: 0 master, > 0 slave
  std::vector<std::string> namesrv_addr; // namesrvAddr ("ip:port" each)
  // brokerIP1: the address clients reach; empty = the runtime's network host.
  std::string broker_ip1;
  std::uint16_t listen_port = 10911;     // listenPort; HA port = listen_port + 1
  // The "VIP" port (RocketMQ's fastRemotingServer, listen_port - 2): every code but
  // PULL_MESSAGE. Java clients use it only with vipChannelEnabled; off by default here.
  bool vip_channel_enable = false;
  // listenAddress (Ferry's): the address the servers bind (main, VIP and HA ports); empty =
  // the advertised host (brokerIP1, else the runtime's host). "0.0.0.0" binds every address.
  std::string listen_address;
  // aclEnable: RocketMQ 4.x plain ACL on both client ports (remoting/acl/access_check.h).
  // acl_file_path is the plain_acl.yml, relative to the FileSystem the owner hands to
  // Broker::set_acl_files (the node's own by default). A missing or bad file fails start().
  bool acl_enable = false;
  std::string acl_file_path = "plain_acl.yml";
  // accessKey / secretKey (Ferry's): the broker signs its own calls (registration with the
  // NameServers, a slave's calls to its master) with these when set.
  remoting::acl::Credentials credentials;
  // The listening servers' bounds (both ports): connections_max (maxConnections) and
  // idle_timeout (serverChannelMaxIdleTimeSeconds) among them; see rpc_options.h.
  remoting::RpcOptions rpc;

  bool auto_create_topic_enable = true;  // autoCreateTopicEnable
  // enablePropertyFilter: serve SQL92 subscriptions (pull_processor.h; off by default, as in
  // RocketMQ). Changeable while running (updateBrokerConfig).
  bool enable_property_filter = false;
  // Transactional messages (docs/transactions.md). rejectTransactionMessage: refuse half messages
  // (send_processor.h; END_TRANSACTION and the check service are served either way, so halves
  // taken before the switch still resolve). Changeable while running (updateBrokerConfig).
  bool reject_transaction_message = false;
  // Request-reply: store a reply message on {cluster}_REPLY_TOPIC besides pushing it to the
  // requester (storeReplyMessageEnable; reply_push.h).
  bool store_reply_message_enable = true;
  Duration transaction_timeout = std::chrono::seconds(6);           // transactionTimeOut
  std::int32_t transaction_check_max = 15;                          // transactionCheckMax
  Duration transaction_check_interval = std::chrono::seconds(60);   // transactionCheckInterval (4.9)
  // Ferry's bound on the topic table (admin-created, auto-created and retry/DLQ topics alike): a
  // new topic beyond it is refused, so a client cannot grow topics.json without bound by sending
  // to made-up topics. Replacing an existing topic needs no room.
  std::size_t topics_max = 65'536;
  // defaultTopicQueueNums: the queue count of TBW102 (RocketMQ's broker default is 8; 4 is the
  // producer's defaultTopicQueueNums, which travels in the send header).
  std::int32_t default_topic_queue_nums = 8;
  bool cluster_topic_enable = true;      // a topic named after the cluster
  bool broker_topic_enable = true;       // a topic named after the broker
  std::int32_t broker_permission = perm::kReadWrite;  // brokerPermission
  std::string region_id = "DefaultRegion";  // reply MSG_REGION
  bool trace_on = true;                     // reply TRACE_ON

  store::FlushMode flush_disk_type = store::FlushMode::async_flush;  // flushDiskType
  BrokerRole broker_role = BrokerRole::async_master;                 // brokerRole
  // Replication (store/ha/ha_config.h): heartbeat, housekeeping, batch size, SYNC_MASTER wait.
  store::ha::HaConfig ha;
  // haMasterAddress: a slave's fixed master HA "ip:port"; empty = the one the NameServer's
  // registration reply names (the usual way).
  std::string ha_master_address;
  // The store; `store.store_host` and `store.flush_mode` are set by the Broker from the fields
  // above.
  store::StoreConfig store;
  // Where topics.json and consumerOffset.json live (relative to the node's data root).
  std::string config_dir = "config";

  // Controller mode (RocketMQ 5, docs/controller.md): the controllers choose the group's master;
  // broker_role and broker_id are then theirs, not the file's (the broker starts as a slave
  // refusing writes until they name its role). `ha` holds the replication side
  // (allAckInSyncStateSet, inSyncReplicas, haMaxTimeSlaveNotCatchup, syncFromLastFile).
  bool enable_controller_mode = false;                             // enableControllerMode
  std::vector<std::string> controller_addr;                        // controllerAddr ("ip:port;...")
  Duration broker_heartbeat_interval = std::chrono::seconds(1);    // brokerHeartbeatInterval
  // How long the controllers wait for this broker's heartbeat before counting it dead
  // (controllerHeartBeatTimeoutMills, sent with each heartbeat); also this master's lease: a
  // master no controller has answered for this long stops taking writes.
  Duration controller_heartbeat_timeout = std::chrono::seconds(10);
  Duration sync_broker_metadata_period = std::chrono::seconds(5);  // syncBrokerMetadataPeriod
  Duration check_sync_state_set_period = std::chrono::seconds(5);  // checkSyncStateSetPeriod
  std::int32_t broker_election_priority = 2147483647;              // brokerElectionPriority (lower first)
  // Consumers may read what not every member of the SyncStateSet holds yet (readUnCommitted).
  // false: a message becomes visible (dispatched to its queue) once the confirm offset passes it,
  // so nothing a consumer read can be cut by a failover.
  bool read_uncommitted = false;
  // A SYNC_MASTER refuses a send that waits for the store (WAIT true, the default) while its
  // SyncStateSet has fewer members, itself included (minInSyncReplicas; SYSTEM_ERROR "in-sync
  // replicas not enough", nothing stored), as RocketMQ 5 does.
  std::int32_t min_in_sync_replicas = 1;

  Duration register_name_server_period = std::chrono::seconds(30);  // registerNameServerPeriod
  Duration register_broker_timeout = std::chrono::seconds(6);       // registerBrokerTimeoutMills
  Duration unregister_broker_timeout = std::chrono::seconds(3);
  Duration flush_consumer_offset_interval = std::chrono::seconds(5);  // flushConsumerOffsetInterval
  // A slave copies its master's topics, offsets and subscription groups this often (RocketMQ's
  // SlaveSynchronize, every 10 s; broker/slave_sync.h).
  Duration slave_sync_interval = std::chrono::seconds(10);

  bool long_polling_enable = true;                                  // longPollingEnable
  Duration short_polling_time = std::chrono::seconds(1);            // shortPollingTimeMills
  Duration long_polling_check_interval = std::chrono::seconds(5);   // PullRequestHoldService
  Duration suspend_timeout_max = std::chrono::seconds(60);  // a client's suspendTimeoutMillis is capped here
  std::size_t parked_pulls_max = 65536;  // beyond this a pull that finds nothing gets 19 at once

  // QUERY_CONSUMER_OFFSET with no committed offset: a first message further than
  // access_message_in_memory_max_ratio % of total_memory_bytes behind the log end counts as
  // "on disk" (RocketMQ's checkInDiskByConsumeOffset). The memory size is configured, not read
  // from the machine, to stay deterministic.
  std::int64_t total_memory_bytes = std::int64_t{8} << 30;
  std::int32_t access_message_in_memory_max_ratio = 40;
  // slaveReadEnable: a pull reply's suggestWhichBrokerId is the subscription group's
  // whichBrokerWhenConsumeSlowly when the consumer reads further than the same
  // access_message_in_memory_max_ratio % of total_memory_bytes behind the CommitLog end, else
  // the group's brokerId. Off: always 0, the master. (A slave serves the pulls that reach it
  // either way; see PullProcessor.)
  bool slave_read_enable = false;

  // Clients (heartbeats), subscription groups, retry, delayed delivery, queue locks.
  bool auto_create_subscription_group = true;                   // autoCreateSubscriptionGroup
  std::size_t subscription_groups_max = 65536;                  // find_or_create refuses beyond
  Duration channel_expired_timeout = std::chrono::seconds(120); // a silent client is dropped
  Duration client_scan_interval = std::chrono::seconds(10);     // ClientHousekeepingService
  std::size_t client_channels_max = 65536;       // producer + consumer registrations per broker
  std::size_t subscriptions_per_consumer_max = 1024;  // topics one consumer group may subscribe
  Duration flush_delay_offset_interval = std::chrono::seconds(10);  // flushDelayOffsetInterval
  // messageDelayLevel: level n (1-based) waits message_delay_levels[n - 1]; a higher level is
  // taken as the last one. RocketMQ's default table (delay_levels.h).
  std::vector<Duration> message_delay_levels = default_delay_levels();

  // Timer messages (RocketMQ 5's timer wheel; timer_message_service.h).
  bool timer_wheel_enable = true;               // timerWheelEnable
  std::int64_t timer_precision_ms = 1000;       // timerPrecisionMs: 100, 200, 500 or 1000
  std::int64_t timer_max_delay_sec = 259'200;   // timerMaxDelaySec (3 days)
  Duration timer_flush_interval = std::chrono::seconds(1);  // timerFlushIntervalMs: checkpoint
  // Ferry's: the wheel covers at most this many slots (16 bytes each in memory), fewer when
  // timerMaxDelaySec needs fewer; a timer due beyond the window is rolled (filed again later).
  std::int64_t timer_wheel_slots_max = std::int64_t{1} << 18;
  std::int64_t timer_log_entries_per_file = 131'072;  // Ferry's: TimerLog file size / 40 bytes
  // POP consumption (RocketMQ 5; pop_service.h).
  std::int32_t revive_queue_num = 8;              // reviveQueueNum: queues of rmq_sys_REVIVE_LOG_{cluster}
  Duration revive_interval = std::chrono::seconds(1);  // reviveInterval: the revive loop's period
  std::size_t pop_polling_size = 1024;            // popPollingSize: parked POPs per topic@group
  std::size_t max_pop_polling_size = 100'000;     // maxPopPollingSize: parked POPs in all
  std::int32_t pop_from_retry_probability = 20;   // popFromRetryProbability: % of POPs that read the retry topic first
  bool enable_retry_topic_v2 = false;             // enableRetryTopicV2: %RETRY%{group}+{topic}
  // popCkMaxBufferSize: checkpoints open at once (each up to 32 messages handed out and not all
  // acknowledged); beyond it a POP hands out nothing until some close. Bounds the revive
  // service's memory and what a restart replays.
  std::size_t pop_ck_max_buffer_size = 200'000;
  // Ferry's: the longest invisible time a POP or a change may ask for (RocketMQ's gRPC proxy
  // bounds it to 12 h; an open checkpoint pins the revive log behind it).
  Duration pop_invisible_time_max = std::chrono::hours(12);
  Duration rebalance_lock_max_live_time = std::chrono::seconds(60);  // lockMaxLiveTime
  std::size_t queue_locks_max = 1 << 20;         // locked queues over all groups
  std::size_t lock_batch_queues_max = 4096;      // queues in one LOCK/UNLOCK_BATCH_MQ body

  // Per-key statistics (broker_stats.h, keyed_stats.h): topics counted on put, and topic@group
  // pairs counted on pull, each; beyond it the least recently counted key is evicted.
  std::size_t stats_keys_max = 4096;
};

// How far behind the CommitLog end a read still counts as served from memory:
// access_message_in_memory_max_ratio % of total_memory_bytes (RocketMQ's
// TOTAL_PHYSICAL_MEMORY_SIZE * accessMessageInMemoryMaxRatio / 100).
inline std::int64_t in_memory_reach_bytes(const BrokerConfig& c) {
  return c.total_memory_bytes / 100 * c.access_message_in_memory_max_ratio;
}

}  // namespace ferry::broker
