// AdminClient: the admin calls of mqadmin and tests (RocketMQ's MQAdminImpl + the parts of
// DefaultMQAdminExt the broker serves today), over a ClientInstance's RPC client and NameServers.
//
// Each call is one or a few RPCs bounded by the instance's api_timeout. Errors name the NameServer
// or broker and the reply code (client_errors.h); not_found for an unknown topic / message.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "client/client_instance.h"
#include "common/message.h"
#include "common/message_queue.h"
#include "remoting/body/broker_live_table.h"
#include "remoting/body/cluster_info.h"
#include "remoting/body/controller_bodies.h"
#include "remoting/body/epoch_acks.h"
#include "remoting/body/ha_runtime_info.h"
#include "remoting/body/topic_config.h"
#include "remoting/header/controller_header.h"

namespace ferry::client {

struct QueueStatus {  // one queue of `topic_status`
  MessageQueue queue;
  QueueOffset min_offset;
  QueueOffset max_offset;
};

struct QueueProgress {  // one queue of `consumer_progress`
  MessageQueue queue;
  QueueOffset broker_offset;    // the queue's max offset
  QueueOffset consumer_offset;  // the group's committed offset (-1: none)
  std::int64_t lag() const { return consumer_offset.value() < 0 ? broker_offset.value() : broker_offset - consumer_offset; }
};

class AdminClient {
 public:
  explicit AdminClient(ClientInstance& instance) : ci_(instance) {}

  // UPDATE_AND_CREATE_TOPIC on one broker ("ip:port"). The broker re-registers with the
  // NameServers; routes show the topic after that.
  Task<Status> create_topic(std::string broker_addr, remoting::body::TopicConfig config);
  // The same on the master of every broker of `cluster` (from GET_BROKER_CLUSTER_INFO).
  Task<Status> create_topic_in_cluster(std::string cluster, remoting::body::TopicConfig config);

  // DELETE_TOPIC_IN_BROKER (215) on one broker ("ip:port"): the broker forgets the topic and
  // every group's offsets of it (SUCCESS also when it did not know it). Errors: the broker's.
  Task<Status> delete_topic_in_broker(std::string broker_addr, std::string topic);
  // DELETE_TOPIC_IN_NAMESRV (216) on every configured NameServer, in list order (NameServers do
  // not share state). `cluster` non-empty: only the queue data of that cluster's brokers goes.
  // Errors: the first NameServer that fails (no reply, or a code other than SUCCESS), by address.
  Task<Status> delete_topic_in_namesrv(std::string topic, std::string cluster);
  // RocketMQ's deleteTopic: DELETE_TOPIC_IN_BROKER on the master of every broker of `cluster`
  // (from GET_BROKER_CLUSTER_INFO; not_found when the cluster has none), then
  // DELETE_TOPIC_IN_NAMESRV for the cluster on every NameServer.
  Task<Status> delete_topic_in_cluster(std::string cluster, std::string topic);

  Task<Result<remoting::body::TopicRouteData>> topic_route(std::string topic);
  // GET_MIN_OFFSET / GET_MAX_OFFSET of every readable queue, in queue order.
  Task<Result<std::vector<QueueStatus>>> topic_status(std::string topic);
  Task<Result<remoting::body::ClusterInfo>> cluster_info();
  // FERRY_GET_BROKER_LIVE_TABLE (Ferry's own) from the NameServer the instance uses now: its live
  // brokers and how long ago each registered. A RocketMQ NameServer answers REQUEST_CODE_NOT_SUPPORTED.
  Task<Result<remoting::body::BrokerLiveTable>> broker_live_table();
  Task<Result<std::vector<std::string>>> topic_list();

  // VIEW_MESSAGE_BY_ID at the store host the offset msgId names.
  Task<Result<MessageExt>> view_message(std::string offset_msg_id);
  // QUERY_MESSAGE on every broker of the topic; keeps messages whose KEYS contain `key`
  // (unique_key: whose UNIQ_KEY equals it), at most max_num in all.
  Task<Result<std::vector<MessageExt>>> query_message(std::string topic, std::string key, std::int32_t max_num,
                                                      WallMs begin_ms, WallMs end_ms, bool unique_key = false);
  // QUERY_CONSUMER_OFFSET against GET_MAX_OFFSET for every readable queue of `topic`.
  Task<Result<std::vector<QueueProgress>>> consumer_progress(std::string group, std::string topic);

  // GET_BROKER_HA_STATUS (907) of one broker ("ip:port"): its replication state as RocketMQ 5's
  // HARuntimeInfo (broker/ha_status_processor.h says what each side fills). Errors: the
  // broker's (no reply; a code other than SUCCESS, e.g. from a broker that does not serve 907),
  // a malformed body.
  Task<Result<remoting::body::HaRuntimeInfo>> ha_status(std::string broker_addr);
  // FERRY_PROMOTE_SLAVE (10001) to a running SLAVE ("ip:port"): it stops replicating, makes and
  // keeps what it received, and becomes the master (brokerId 0) of its group in `role`
  // ("SYNC_MASTER" or "ASYNC_MASTER"); it registers so at once. Success means the broker took
  // the role and wrote it to its ha_role.json (it survives a restart); the NameServers route to
  // it after that registration. Errors: the broker's (SYSTEM_ERROR with its remark for a broker
  // that is already a master, a bad role, a failed write of the role file).
  Task<Status> promote_slave(std::string broker_addr, std::string role);

  // Controller mode (docs/controller.md). CONTROLLER_GET_METADATA_INFO (1005) of one controller
  // ("ip:port"): whether it leads, and the leader it knows (empty address: none).
  Task<Result<remoting::GetMetaDataResponseHeader>> controller_metadata(std::string controller_addr);
  // FERRY_GET_LOCAL_SYNC_STATE_DATA (10004) of one controller, leader or not: what its own
  // replicated state says of `groups` (every group it knows when empty).
  Task<Result<remoting::body::BrokerReplicasInfo>> local_sync_state_data(std::string controller_addr,
                                                                         std::vector<std::string> groups);
  // FERRY_GET_EPOCH_ACKS (10005) of one broker: its last epoch and SEND_OKs by master epoch.
  Task<Result<remoting::body::EpochAcks>> epoch_acks(std::string broker_addr);

 private:
  Task<Result<remoting::RemotingCommand>> call_broker(std::string where, std::string addr, remoting::RemotingCommand req);
  Task<Result<QueueOffset>> queue_offset(std::string addr, std::int32_t code, MessageQueue mq);
  Task<Result<std::string>> read_address(MessageQueue mq);
  // The master addresses of `cluster`'s brokers, by broker name. not_found when there are none.
  Task<Result<std::vector<std::string>>> cluster_masters(std::string cluster, std::string what);

  ClientInstance& ci_;
};

}  // namespace ferry::client
