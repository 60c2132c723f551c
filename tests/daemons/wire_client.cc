#include "tests/daemons/wire_client.h"

#include "common/message_decoder.h"
#include "remoting/header/consumer_offset_header.h"
#include "remoting/header/pull_message_header.h"
#include "remoting/header/send_message_header.h"
#include "tests/support/requests.h"

namespace ferry::daemons_test {

using remoting::RemotingCommand;

namespace {

constexpr auto kCallTimeout = std::chrono::seconds(5);

Task<Result<RemotingCommand>> call(remoting::RpcClient* rpc, std::string addr, RemotingCommand request) {
  co_return co_await rpc->invoke(std::move(addr), std::move(request), kCallTimeout);
}

// SEND_MESSAGE_V2 of `body` to `topic`/`queue_id`, group daemons-test-pg, WAIT=true. Built outside
// the coroutines (as make_pull_request): GCC 12 at -O3 reports a false -Wrestrict for string
// assignments inlined into a coroutine frame.
[[gnu::noinline]] RemotingCommand make_send_request(std::string topic, std::int32_t queue_id, std::string body) {
  ferry::testing::Msg m{.topic = std::move(topic), .body = std::move(body), .queue_id = queue_id,
                        .producer_group = "daemons-test-pg"};
  m.set("WAIT", "true");
  return ferry::testing::send_request(m);
}

}  // namespace

[[gnu::noinline]] RemotingCommand make_pull_request(std::string topic, std::int32_t queue_id, std::int64_t offset) {
  return ferry::testing::pull_request(ferry::testing::Pull{
      .group = "daemons-test-cg", .topic = std::move(topic), .queue_id = queue_id, .offset = offset, .suspend_ms = 0});
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
  RemotingCommand r = make_send_request(std::move(topic), queue_id, std::move(body));
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
  RemotingCommand r = ferry::testing::update_offset_request(group, topic, queue_id, offset);
  auto reply = rt_->block_on(call(rpc_.get(), addr, std::move(r)));
  return reply ? reply->code : -1;
}

std::optional<std::int64_t> WireClient::query_offset(const std::string& addr, const std::string& group,
                                                     const std::string& topic, std::int32_t queue_id, int* code) {
  RemotingCommand r = ferry::testing::query_offset_request(group, topic, queue_id);
  auto reply = rt_->block_on(call(rpc_.get(), addr, std::move(r)));
  if (code) *code = reply ? reply->code : -1;
  if (!reply || reply->code != 0) return std::nullopt;
  auto rh = remoting::QueryConsumerOffsetResponseHeader::from_fields(reply->ext_fields);
  if (!rh) return std::nullopt;
  return rh->offset.value();
}

int WireClient::route(const std::string& namesrv_addr, const std::string& topic, std::string* body) {
  RemotingCommand r = ferry::testing::route_request(topic);
  auto reply = rt_->block_on(call(rpc_.get(), namesrv_addr, std::move(r)));
  if (!reply) return -1;
  if (body) body->assign(reply->body.begin(), reply->body.end());
  return reply->code;
}

}  // namespace ferry::daemons_test
