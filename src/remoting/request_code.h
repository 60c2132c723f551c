// Request codes Ferry serves or sends (docs/compatibility.md), with RocketMQ's numbers.
#pragma once

#include <cstdint>
#include <string_view>

namespace ferry::remoting::request_code {

inline constexpr std::int32_t SEND_MESSAGE = 10;
inline constexpr std::int32_t PULL_MESSAGE = 11;
inline constexpr std::int32_t QUERY_MESSAGE = 12;
inline constexpr std::int32_t QUERY_CONSUMER_OFFSET = 14;
inline constexpr std::int32_t UPDATE_CONSUMER_OFFSET = 15;
inline constexpr std::int32_t UPDATE_AND_CREATE_TOPIC = 17;
inline constexpr std::int32_t SEARCH_OFFSET_BY_TIMESTAMP = 29;
inline constexpr std::int32_t GET_MAX_OFFSET = 30;
inline constexpr std::int32_t GET_MIN_OFFSET = 31;
inline constexpr std::int32_t GET_EARLIEST_MSG_STORETIME = 32;
inline constexpr std::int32_t VIEW_MESSAGE_BY_ID = 33;
inline constexpr std::int32_t HEART_BEAT = 34;
inline constexpr std::int32_t UNREGISTER_CLIENT = 35;
inline constexpr std::int32_t CONSUMER_SEND_MSG_BACK = 36;
inline constexpr std::int32_t END_TRANSACTION = 37;
inline constexpr std::int32_t GET_CONSUMER_LIST_BY_GROUP = 38;
inline constexpr std::int32_t CHECK_TRANSACTION_STATE = 39;
inline constexpr std::int32_t NOTIFY_CONSUMER_IDS_CHANGED = 40;
inline constexpr std::int32_t LOCK_BATCH_MQ = 41;
inline constexpr std::int32_t UNLOCK_BATCH_MQ = 42;
inline constexpr std::int32_t PUT_KV_CONFIG = 100;
inline constexpr std::int32_t GET_KV_CONFIG = 101;
inline constexpr std::int32_t DELETE_KV_CONFIG = 102;
inline constexpr std::int32_t REGISTER_BROKER = 103;
inline constexpr std::int32_t UNREGISTER_BROKER = 104;
inline constexpr std::int32_t GET_ROUTEINFO_BY_TOPIC = 105;
inline constexpr std::int32_t GET_BROKER_CLUSTER_INFO = 106;
inline constexpr std::int32_t GET_ALL_TOPIC_LIST_FROM_NAMESERVER = 206;
// Admin and operations (RocketMQ 4.9 numbers).
inline constexpr std::int32_t GET_ALL_TOPIC_CONFIG = 21;
inline constexpr std::int32_t UPDATE_BROKER_CONFIG = 25;
inline constexpr std::int32_t GET_BROKER_CONFIG = 26;
inline constexpr std::int32_t GET_BROKER_RUNTIME_INFO = 28;
inline constexpr std::int32_t GET_ALL_CONSUMER_OFFSET = 43;
inline constexpr std::int32_t GET_ALL_DELAY_OFFSET = 45;
// A consumer checks its subscription with every broker before it starts (SQL92 needs
// enablePropertyFilter); body CheckClientRequestBody.
inline constexpr std::int32_t CHECK_CLIENT_CONFIG = 46;
inline constexpr std::int32_t UPDATE_AND_CREATE_SUBSCRIPTIONGROUP = 200;
inline constexpr std::int32_t GET_ALL_SUBSCRIPTIONGROUP_CONFIG = 201;
inline constexpr std::int32_t GET_TOPIC_STATS_INFO = 202;
inline constexpr std::int32_t GET_CONSUMER_CONNECTION_LIST = 203;
inline constexpr std::int32_t GET_PRODUCER_CONNECTION_LIST = 204;
inline constexpr std::int32_t WIPE_WRITE_PERM_OF_BROKER = 205;
inline constexpr std::int32_t DELETE_SUBSCRIPTIONGROUP = 207;
inline constexpr std::int32_t GET_CONSUME_STATS = 208;
inline constexpr std::int32_t DELETE_TOPIC_IN_BROKER = 215;
inline constexpr std::int32_t DELETE_TOPIC_IN_NAMESRV = 216;
inline constexpr std::int32_t GET_KVLIST_BY_NAMESPACE = 219;
inline constexpr std::int32_t INVOKE_BROKER_TO_RESET_OFFSET = 222;
// The broker asks its clients (docs/client.md, "Broker-to-client requests"): 220/221 broker →
// client, 223 admin → broker, 307/309 admin → broker → client (relayed by clientId).
inline constexpr std::int32_t RESET_CONSUMER_CLIENT_OFFSET = 220;
inline constexpr std::int32_t GET_CONSUMER_STATUS_FROM_CLIENT = 221;
inline constexpr std::int32_t INVOKE_BROKER_TO_GET_CONSUMER_STATUS = 223;
inline constexpr std::int32_t GET_CONSUMER_RUNNING_INFO = 307;
inline constexpr std::int32_t CONSUME_MESSAGE_DIRECTLY = 309;
inline constexpr std::int32_t GET_TOPICS_BY_CLUSTER = 224;
inline constexpr std::int32_t QUERY_TOPIC_CONSUME_BY_WHO = 300;
inline constexpr std::int32_t CLEAN_EXPIRED_CONSUMEQUEUE = 306;  // no header, no body
inline constexpr std::int32_t VIEW_BROKER_STATS_DATA = 315;
inline constexpr std::int32_t GET_BROKER_CONSUME_STATS = 317;
inline constexpr std::int32_t QUERY_DATA_VERSION = 322;
inline constexpr std::int32_t ADD_WRITE_PERM_OF_BROKER = 327;
inline constexpr std::int32_t SEND_MESSAGE_V2 = 310;
inline constexpr std::int32_t UPDATE_NAMESRV_CONFIG = 318;
inline constexpr std::int32_t GET_NAMESRV_CONFIG = 319;
inline constexpr std::int32_t SEND_BATCH_MESSAGE = 320;
// Request-reply (RocketMQ 4.6+; docs/request_reply.md): a replier's send of a reply message (V1 and
// V2 send headers), and the broker's push of it to the requesting client.
inline constexpr std::int32_t SEND_REPLY_MESSAGE = 324;
inline constexpr std::int32_t SEND_REPLY_MESSAGE_V2 = 325;
inline constexpr std::int32_t PUSH_REPLY_MESSAGE_TO_CLIENT = 326;
// RocketMQ 5's GET_BROKER_HA_STATUS: a broker's replication state (body: HARuntimeInfo JSON).
inline constexpr std::int32_t GET_BROKER_HA_STATUS = 907;

// The controller (RocketMQ 5, RIP-44; docs/controller.md).
inline constexpr std::int32_t BROKER_HEARTBEAT = 904;
inline constexpr std::int32_t CONTROLLER_ALTER_SYNC_STATE_SET = 1001;
inline constexpr std::int32_t CONTROLLER_ELECT_MASTER = 1002;
inline constexpr std::int32_t CONTROLLER_REGISTER_BROKER = 1003;
inline constexpr std::int32_t CONTROLLER_GET_REPLICA_INFO = 1004;
inline constexpr std::int32_t CONTROLLER_GET_METADATA_INFO = 1005;
inline constexpr std::int32_t CONTROLLER_GET_SYNC_STATE_DATA = 1006;
inline constexpr std::int32_t GET_BROKER_EPOCH_CACHE = 1007;
inline constexpr std::int32_t NOTIFY_BROKER_ROLE_CHANGED = 1008;
inline constexpr std::int32_t UPDATE_CONTROLLER_CONFIG = 1009;
inline constexpr std::int32_t GET_CONTROLLER_CONFIG = 1010;
inline constexpr std::int32_t CLEAN_BROKER_DATA = 1011;
inline constexpr std::int32_t CONTROLLER_GET_NEXT_BROKER_ID = 1012;
inline constexpr std::int32_t CONTROLLER_APPLY_BROKER_ID = 1013;
// RocketMQ 5's: one subscription group's config (header GetSubscriptionGroupConfigRequestHeader
// {group}; reply body its SubscriptionGroupConfig as JSON). RocketMQ 5's proxy reads
// consumeMessageOrderly and retryMaxTimes from it.
inline constexpr std::int32_t GET_SUBSCRIPTIONGROUP_CONFIG = 352;
// POP consumption (RocketMQ 5; broker/pop_service.h): a message handed out is invisible for a
// while and comes back unless acknowledged by its receipt handle (common/pop_receipt.h).
inline constexpr std::int32_t POP_MESSAGE = 200'050;
inline constexpr std::int32_t ACK_MESSAGE = 200'051;
inline constexpr std::int32_t CHANGE_MESSAGE_INVISIBLETIME = 200'053;
inline constexpr std::int32_t BATCH_ACK_MESSAGE = 200'151;
// Ferry's own: a running slave becomes the master of its group (header PromoteSlaveRequestHeader).
// RocketMQ 4.9 has no such request (its operators edit broker.conf and restart).
inline constexpr std::int32_t FERRY_PROMOTE_SLAVE = 10'001;
// Ferry's own: one Raft message between controllers, oneway; the body is
// controller/raft_codec.h's format (RocketMQ's controllers use DLedger's or JRaft's protocol).
inline constexpr std::int32_t FERRY_RAFT_MESSAGE = 10'002;
// Ferry's own: the NameServer's live brokers with the age of their last registration (body
// body/broker_live_table.h). RocketMQ keeps the same table but does not serve it.
inline constexpr std::int32_t FERRY_GET_BROKER_LIVE_TABLE = 10'003;
// Ferry's own: what this controller's replicated state says of each broker group, answered by
// every controller, leader or not (CONTROLLER_GET_SYNC_STATE_DATA, 1006, is the leader's only).
// Request and reply bodies as 1006's; an empty request body asks for every group it knows.
// Operators compare the peers' answers; `mqsim run --real` records them as controller views.
inline constexpr std::int32_t FERRY_GET_LOCAL_SYNC_STATE_DATA = 10'004;
// Ferry's own: a broker's last epoch and how many sends it acknowledged in each master epoch
// (body body/epoch_acks.h). One master per epoch is checked from these.
inline constexpr std::int32_t FERRY_GET_EPOCH_ACKS = 10'005;

// "SEND_MESSAGE" for 10; an empty view for a code not listed above. For logs.
std::string_view name(std::int32_t code);

}  // namespace ferry::remoting::request_code
