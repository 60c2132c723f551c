#include "tests/daemons/wire_client.h"

#include "common/message_decoder.h"
#include "common/properties.h"
#include "remoting/header/consumer_offset_header.h"
#include "remoting/header/pull_message_header.h"
#include "remoting/header/route_header.h"
#include "remoting/header/send_message_header.h"
#include "remoting/request_code.h"

namespace ferry::daemons_test {

namespace rc = remoting::request_code;
using remoting::RemotingCommand;

namespace {

constexpr auto kCallTimeout = std::chrono::seconds(5);

Task<Result<RemotingCommand>> call(remoting::RpcClient* rpc, std::string addr, RemotingCommand request) {
  co_return co_await rpc->invoke(std::move(addr), std::move(request), kCallTimeout);
}

}  // namespace

// Built outside the coroutine: GCC 12 at -O3 reports a false -Wrestrict for the string
// assignments when they are inlined into a coroutine frame.
[[gnu::noinline]] RemotingCommand make_pull_request(std::string topic, std::int32_t queue_id, std::int64_t offset) {
  remoting::PullMessageRequestHeader h;
  h.consumer_group = "daemons-test-cg";
  h.topic = std::move(topic);
  h.queue_id = QueueId(queue_id);
  h.queue_offset = QueueOffset(offset);
  h.max_msg_nums = 32;
  h.sys_flag = 4;  // subscription in the request; no suspend, no commit
  h.subscription.emplace(std::size_t{1}, '*');  // not = "*": GCC 12 -Wrestrict false positive
  h.expression_type.emplace(std::string_view("TAG"));
  RemotingCommand r = remoting::make_request(rc::PULL_MESSAGE, 0);
  r.ext_fields = h.to_fields();
  return r;
}

WireClient::WireClient(const std::string& data_root) {
  AsioRuntime::Options o;
  o.node_name = "test-client";
  o.data_root = data_root;
  o.offload_threads = 1;
  rt_ = std::make_unique<AsioRuntime>(o);
  rpc_ = std::make_unique<remoting::RpcClient>(*rt_);
}

WireClient::~WireClient() {
  rpc_->shutdown();
  rpc_.reset();
  rt_.reset();
}

Task<SendOutcome> WireClient::send(remoting::RpcClient* rpc, std::string addr, std::string topic, std::int32_t queue_id,
                                   std::string body) {
  remoting::SendMessageRequestHeader h;
  h.producer_group = "daemons-test-pg";
  h.topic = std::move(topic);
  h.default_topic = "TBW102";
  h.default_topic_queue_nums = 4;
  h.queue_id = QueueId(queue_id);
  h.born_timestamp = 1'767'225'600'000;
  Properties props;
  props.set("WAIT", "true");
  h.properties = *encode_properties(props);
  RemotingCommand r = remoting::make_request(rc::SEND_MESSAGE_V2, 0);
  r.ext_fields = h.to_fields_v2();
  r.body.assign(body.begin(), body.end());
  SendOutcome out;
  auto reply = co_await call(rpc, std::move(addr), std::move(r));
  if (!reply) {
    out.error = reply.error().to_string();
    co_return out;
  }
  out.code = reply->code;
  if (reply->code == 0) {
    auto rh = remoting::SendMessageResponseHeader::from_fields(reply->ext_fields);
    if (!rh) {
      out.code = -1;
      out.error = rh.error().to_string();
      co_return out;
    }
    out.queue_id = rh->queue_id.value();
    out.queue_offset = rh->queue_offset.value();
  } else {
    out.error = reply->remark.value_or("");
  }
  co_return out;
}

Task<int> WireClient::pull(remoting::RpcClient* rpc, std::string addr, std::string topic, std::int32_t queue_id,
                           std::int64_t offset, std::vector<PulledMessage>* out, std::int64_t* next) {
  RemotingCommand r = make_pull_request(std::move(topic), queue_id, offset);
  auto reply = co_await call(rpc, std::move(addr), std::move(r));
  if (!reply) co_return -1;
  auto rh = remoting::PullMessageResponseHeader::from_fields(reply->ext_fields);
  if (!rh) co_return -1;
  *next = rh->next_begin_offset.value();
  if (reply->code == 0) {
    auto msgs = decode_messages(Bytes(reply->body.data(), reply->body.size()), MessagesDecodeOptions{.check_crc = true});
    if (!msgs) co_return -2;
    for (const auto& m : *msgs) {
      out->push_back(PulledMessage{m.queue_id.value(), m.queue_offset.value(), std::string(m.body.begin(), m.body.end())});
    }
  }
  co_return reply->code;
}

SendOutcome WireClient::send_now(const std::string& addr, const std::string& topic, std::int32_t queue_id,
                                 const std::string& body) {
  return rt_->block_on(send(rpc_.get(), addr, topic, queue_id, body));
}

std::vector<PulledMessage> WireClient::pull_all(const std::string& addr, const std::string& topic, std::int32_t queue_id) {
  std::vector<PulledMessage> out;
  std::int64_t offset = 0;
  for (int round = 0; round < 100'000; ++round) {
    std::int64_t next = offset;
    const int code = rt_->block_on(pull(rpc_.get(), addr, topic, queue_id, offset, &out, &next));
    if (code != 0 || next <= offset) break;
    offset = next;
  }
  return out;
}

int WireClient::update_offset(const std::string& addr, const std::string& group, const std::string& topic,
                              std::int32_t queue_id, std::int64_t offset) {
  remoting::UpdateConsumerOffsetRequestHeader h;
  h.consumer_group = group;
  h.topic = topic;
  h.queue_id = QueueId(queue_id);
  h.commit_offset = QueueOffset(offset);
  RemotingCommand r = remoting::make_request(rc::UPDATE_CONSUMER_OFFSET, 0);
  r.ext_fields = h.to_fields();
  auto reply = rt_->block_on(call(rpc_.get(), addr, std::move(r)));
  return reply ? reply->code : -1;
}

std::optional<std::int64_t> WireClient::query_offset(const std::string& addr, const std::string& group,
                                                     const std::string& topic, std::int32_t queue_id, int* code) {
  remoting::QueryConsumerOffsetRequestHeader h;
  h.consumer_group = group;
  h.topic = topic;
  h.queue_id = QueueId(queue_id);
  RemotingCommand r = remoting::make_request(rc::QUERY_CONSUMER_OFFSET, 0);
  r.ext_fields = h.to_fields();
  auto reply = rt_->block_on(call(rpc_.get(), addr, std::move(r)));
  if (code) *code = reply ? reply->code : -1;
  if (!reply || reply->code != 0) return std::nullopt;
  auto rh = remoting::QueryConsumerOffsetResponseHeader::from_fields(reply->ext_fields);
  if (!rh) return std::nullopt;
  return rh->offset.value();
}

int WireClient::route(const std::string& namesrv_addr, const std::string& topic, std::string* body) {
  remoting::GetRouteInfoRequestHeader h;
  h.topic = topic;
  RemotingCommand r = remoting::make_request(rc::GET_ROUTEINFO_BY_TOPIC, 0);
  r.ext_fields = h.to_fields();
  auto reply = rt_->block_on(call(rpc_.get(), namesrv_addr, std::move(r)));
  if (!reply) return -1;
  if (body) body->assign(reply->body.begin(), reply->body.end());
  return reply->code;
}

}  // namespace ferry::daemons_test
