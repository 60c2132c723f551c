#include "tests/support/requests.h"

#include <utility>

#include "common/byte_writer.h"
#include "common/crc.h"
#include "common/message_queue.h"
#include "remoting/body/lock_batch_body.h"
#include "remoting/header/broker_registration_header.h"
#include "remoting/header/client_header.h"
#include "remoting/header/consumer_offset_header.h"
#include "remoting/header/pull_message_header.h"
#include "remoting/header/query_message_header.h"
#include "remoting/header/queue_offset_header.h"
#include "remoting/header/route_header.h"
#include "runtime/assert.h"

namespace ferry::testing {

namespace rc = remoting::request_code;
using remoting::RemotingCommand;

namespace {

std::string encoded(const Properties& props) {
  Result<std::string> text = encode_properties(props);
  FERRY_ASSERT(text.ok(), "a test message's properties do not encode: {}", text.error().to_string());
  return std::move(text).value();
}

RemotingCommand with_body(std::int32_t code, remoting::ExtFields fields, std::vector<std::uint8_t> body) {
  RemotingCommand r = remoting::make_request(code, 0);
  r.ext_fields = std::move(fields);
  r.body = std::move(body);
  return r;
}

}  // namespace

// ---- producer

remoting::SendMessageRequestHeader send_header(const Msg& m) {
  return remoting::SendMessageRequestHeader{
      .producer_group = m.producer_group,
      .topic = m.topic,
      .default_topic = "TBW102",
      .default_topic_queue_nums = m.default_topic_queue_nums,
      .queue_id = QueueId(m.queue_id),
      .sys_flag = m.sys_flag,
      .born_timestamp = m.born_timestamp_ms,
      .flag = m.flag,
      .properties = m.properties_text ? *m.properties_text : encoded(m.props),
  };
}

RemotingCommand send_request(const Msg& m, std::int32_t request_code) {
  FERRY_ASSERT(request_code == rc::SEND_MESSAGE || request_code == rc::SEND_MESSAGE_V2 ||
                   request_code == rc::SEND_REPLY_MESSAGE || request_code == rc::SEND_REPLY_MESSAGE_V2,
               "send_request() builds SEND_MESSAGE(_V2) or SEND_REPLY_MESSAGE(_V2), not request code {}", request_code);
  remoting::SendMessageRequestHeader h = send_header(m);
  const bool v1 = request_code == rc::SEND_MESSAGE || request_code == rc::SEND_REPLY_MESSAGE;
  remoting::ExtFields fields = v1 ? std::move(h).to_fields() : std::move(h).to_fields_v2();
  return with_body(request_code, std::move(fields), std::vector<std::uint8_t>(m.body.begin(), m.body.end()));
}

std::vector<std::uint8_t> encode_batch(const std::vector<Msg>& msgs) {
  // Each entry: int32 totalSize (the entry's, itself included) | int32 magic | int32 bodyCRC |
  // int32 flag | int32 bodyLen | body | int16 propertiesLen | properties.
  constexpr std::size_t kFixedBytes = 4 + 4 + 4 + 4 + 4 + 2;
  std::vector<std::uint8_t> out;
  ByteWriter w(out);
  for (const Msg& m : msgs) {
    const std::string props = m.properties_text ? *m.properties_text : encoded(m.props);
    FERRY_ASSERT(props.size() <= 0xFFFF, "a batch entry's properties of {} bytes do not fit int16", props.size());
    w.u32(static_cast<std::uint32_t>(kFixedBytes + m.body.size() + props.size()));
    w.u32(0);  // magic: the broker writes its own
    w.u32(0);  // body CRC: the broker computes it
    w.i32(m.flag);
    w.u32(static_cast<std::uint32_t>(m.body.size()));
    w.text(m.body);
    w.u16(static_cast<std::uint16_t>(props.size()));
    w.text(props);
  }
  return out;
}

RemotingCommand batch_request(const std::vector<Msg>& msgs) {
  FERRY_ASSERT(!msgs.empty(), "a batch of no messages");
  Msg outer = msgs.front();
  outer.props = Properties();
  outer.properties_text.reset();
  remoting::SendMessageRequestHeader h = send_header(outer);
  h.batch = true;
  return with_body(rc::SEND_BATCH_MESSAGE, std::move(h).to_fields_v2(), encode_batch(msgs));
}

// ---- consumer

RemotingCommand pull_request(const Pull& p) {
  const std::int32_t commit_flag = p.commit_offset ? 1 : 0;
  const std::int32_t suspend_flag = p.suspend ? 2 : 0;
  const std::int32_t subscription_flag = p.subscription ? 4 : 0;
  const remoting::PullMessageRequestHeader h{
      .consumer_group = p.group,
      .topic = p.topic,
      .queue_id = QueueId(p.queue_id),
      .queue_offset = QueueOffset(p.offset),
      .max_msg_nums = p.max,
      .sys_flag = commit_flag | suspend_flag | subscription_flag,
      .commit_offset = QueueOffset(p.commit_offset.value_or(0)),
      .suspend_timeout_millis = p.suspend_ms,
      .subscription = p.subscription,
      .sub_version = 0,
      .expression_type = p.expression_type,
  };
  return plain_request(rc::PULL_MESSAGE, h.to_fields());
}

RemotingCommand update_offset_request(const std::string& group, const std::string& topic, std::int32_t queue_id,
                                      std::int64_t offset) {
  const remoting::UpdateConsumerOffsetRequestHeader h{group, topic, QueueId(queue_id), QueueOffset(offset)};
  return plain_request(rc::UPDATE_CONSUMER_OFFSET, h.to_fields());
}

RemotingCommand query_offset_request(const std::string& group, const std::string& topic, std::int32_t queue_id) {
  const remoting::QueryConsumerOffsetRequestHeader h{group, topic, QueueId(queue_id)};
  return plain_request(rc::QUERY_CONSUMER_OFFSET, h.to_fields());
}

RemotingCommand max_offset_request(const std::string& topic, std::int32_t queue_id) {
  const remoting::GetMaxOffsetRequestHeader h{topic, QueueId(queue_id)};
  return plain_request(rc::GET_MAX_OFFSET, h.to_fields());
}

RemotingCommand view_request(std::int64_t commit_log_offset) {
  const remoting::ViewMessageRequestHeader h{PhysicalOffset(commit_log_offset)};
  return plain_request(rc::VIEW_MESSAGE_BY_ID, h.to_fields());
}

RemotingCommand consumer_list_request(const std::string& group) {
  const remoting::GetConsumerListByGroupRequestHeader h{group};
  return plain_request(rc::GET_CONSUMER_LIST_BY_GROUP, h.to_fields());
}

remoting::body::HeartbeatData consumer_heartbeat(const std::string& client_id, const std::string& group,
                                                 const std::string& topic, const std::string& sub,
                                                 std::int64_t sub_version) {
  remoting::body::ConsumerData c{.group_name = group};
  c.subscription_data_set.push_back(
      remoting::body::SubscriptionData{.topic = topic, .sub_string = sub, .sub_version = sub_version});
  remoting::body::HeartbeatData hb{.client_id = client_id};
  hb.consumer_data_set.push_back(std::move(c));
  return hb;
}

RemotingCommand heartbeat_request(const remoting::body::HeartbeatData& hb) {
  return with_body(rc::HEART_BEAT, {}, hb.encode());
}

RemotingCommand send_back_request(std::int64_t offset, const std::string& group, std::int32_t delay_level,
                                  std::optional<std::int32_t> max_reconsume) {
  const remoting::ConsumerSendMsgBackRequestHeader h{
      .offset = PhysicalOffset(offset),
      .group = group,
      .delay_level = delay_level,
      .max_reconsume_times = max_reconsume,
  };
  return plain_request(rc::CONSUMER_SEND_MSG_BACK, h.to_fields());
}

RemotingCommand lock_request(std::int32_t code, const std::string& group, const std::string& client_id,
                             const std::vector<std::int32_t>& queues, const std::string& topic) {
  FERRY_ASSERT(code == rc::LOCK_BATCH_MQ || code == rc::UNLOCK_BATCH_MQ, "lock_request() of request code {}", code);
  remoting::body::LockBatchRequestBody b{.consumer_group = group, .client_id = client_id};
  for (std::int32_t q : queues) b.mq_set.push_back(MessageQueue{topic, "broker-a", QueueId(q)});
  return with_body(code, {}, b.encode());
}

// ---- admin

remoting::CreateTopicRequestHeader topic_header(const std::string& topic, std::int32_t queues) {
  return remoting::CreateTopicRequestHeader{
      .topic = topic,
      .default_topic = "TBW102",
      .read_queue_nums = queues,
      .write_queue_nums = queues,
      .perm = 6,  // read and write
      .topic_filter_type = "SINGLE_TAG",
  };
}

RemotingCommand create_topic_request(const remoting::CreateTopicRequestHeader& h) {
  return plain_request(rc::UPDATE_AND_CREATE_TOPIC, h.to_fields());
}

// ---- broker to NameServer

RemotingCommand register_request(const BrokerSpec& b, bool correct_crc) {
  remoting::body::RegisterBrokerBody payload;
  remoting::body::TopicConfigSerializeWrapper& wrapper = payload.topic_config_serialize_wrapper;
  wrapper.data_version = b.version;
  for (const remoting::body::TopicConfig& t : b.topics) wrapper.topic_config_table[t.topic_name] = t;
  payload.filter_server_list = b.filter_servers;
  std::vector<std::uint8_t> body = payload.encode();
  const std::int32_t crc = body_crc(Bytes(body.data(), body.size()));
  const remoting::RegisterBrokerRequestHeader h{
      .broker_name = b.name,
      .broker_addr = b.addr,
      .cluster_name = b.cluster,
      .ha_server_addr = b.ha_addr,
      .broker_id = b.id,
      .body_crc32 = correct_crc ? crc : crc ^ 0x1234,
  };
  return with_body(rc::REGISTER_BROKER, h.to_fields(), std::move(body));
}

RemotingCommand unregister_request(const BrokerSpec& b) {
  const remoting::UnregisterBrokerRequestHeader h{
      .broker_name = b.name, .broker_addr = b.addr, .cluster_name = b.cluster, .broker_id = b.id};
  return plain_request(rc::UNREGISTER_BROKER, h.to_fields());
}

RemotingCommand route_request(const std::string& topic) {
  return plain_request(rc::GET_ROUTEINFO_BY_TOPIC, remoting::GetRouteInfoRequestHeader{topic}.to_fields());
}

// ---- any

RemotingCommand plain_request(std::int32_t code, remoting::ExtFields fields) {
  return with_body(code, std::move(fields), {});
}

}  // namespace ferry::testing
