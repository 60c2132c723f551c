// The broker asks its clients (client_admin_processor.h) — here the clients are bare RpcClients
// that answer as the test says, one connected on the main port and one on the VIP port:
// INVOKE_BROKER_TO_RESET_OFFSET reaches every member oneway with the offsets it answers;
// INVOKE_BROKER_TO_GET_CONSUMER_STATUS leaves out a client that does not answer within 5 s;
// GET_CONSUMER_RUNNING_INFO relays a client's reply as it came (also over the VIP port) and
// answers CONSUME_MSG_TIMEOUT for one that stays silent.
#include "remoting/body/offset_tables.h"
#include "remoting/header/client_admin_header.h"
#include "tests/broker/consumer_fixture.h"
#include "tests/support/broker_inspector.h"

using ferry::testing::BrokerInspector;

namespace ferry::broker::testing {
namespace {

using namespace std::chrono_literals;

struct Seen {
  std::vector<remoting::body::ResetOffsetBody> resets;
  std::vector<bool> reset_oneway;
};

Task<std::optional<RemotingCommand>> record_reset(std::shared_ptr<Seen> seen, remoting::RequestContext ctx) {
  auto body = remoting::body::ResetOffsetBody::decode(ctx.request.body);
  seen->resets.push_back(body.ok() ? *body : remoting::body::ResetOffsetBody{});
  seen->reset_oneway.push_back(ctx.request.is_oneway());
  co_return std::nullopt;
}

// Answers 221 with one offset and 307 with a marker body naming `who`.
Task<std::optional<RemotingCommand>> answer(std::string who, remoting::RequestContext ctx) {
  RemotingCommand out = remoting::make_response(ctx.request, code::SUCCESS);
  if (ctx.request.code == rc::GET_CONSUMER_STATUS_FROM_CLIENT) {
    remoting::body::GetConsumerStatusBody b;
    b.message_queue_table[MessageQueue{"T", "broker-a", QueueId(0)}] = QueueOffset(5);
    out.body = b.encode();
  } else {
    out.body.assign(who.begin(), who.end());
    out.ext_fields.set("who", who);
  }
  co_return out;
}

// Never answers in time.
Task<std::optional<RemotingCommand>> stay_silent(Runtime* rt, remoting::RequestContext ctx) {
  co_await rt->sleep(60s);
  co_return remoting::make_response(ctx.request, code::SUCCESS);
}

class ClientAdminBrokerTest : public ConsumerTest {
 protected:
  void answer_on(TestClient& c, bool silent) {
    auto seen = std::make_shared<Seen>();
    seen_.push_back(seen);
    c.rpc->register_processor(rc::RESET_CONSUMER_CLIENT_OFFSET,
                              [seen](remoting::RequestContext ctx) { return record_reset(seen, std::move(ctx)); });
    Runtime* rt = &node(c.node);
    std::string who = c.client_id;
    for (std::int32_t code : {rc::GET_CONSUMER_STATUS_FROM_CLIENT, rc::GET_CONSUMER_RUNNING_INFO}) {
      if (silent) {
        c.rpc->register_processor(code, [rt](remoting::RequestContext ctx) { return stay_silent(rt, std::move(ctx)); });
      } else {
        c.rpc->register_processor(code, [who](remoting::RequestContext ctx) { return answer(who, std::move(ctx)); });
      }
    }
  }
  std::vector<std::shared_ptr<Seen>> seen_;
};

TEST_F(ClientAdminBrokerTest, AsksEveryMemberOverTheServerItConnectedTo) {
  config_.vip_channel_enable = true;
  boot();
  for (int i = 0; i < 3; ++i) ASSERT_EQ(send(Msg{}).reply.code, code::SUCCESS);
  TestClient& slow = add_client("10.0.0.1@slow");  // main port, never answers calls
  TestClient& vip = add_client("10.0.0.2@vip");    // VIP port, answers
  answer_on(slow, true);
  answer_on(vip, false);
  ASSERT_EQ(heartbeat(slow, "CG").reply.code, code::SUCCESS);
  Call hb = outcome(cluster().run_task(
      vip.node, invoke(vip.rpc.get(), broker().vip_address(), heartbeat_request(consumer_heartbeat(vip.client_id, "CG", "T")), 5s),
      60s));
  ASSERT_EQ(hb.reply.code, code::SUCCESS) << hb.remark();

  // 222: both members get the offsets, oneway; the reply carries them too.
  RemotingCommand reset = remoting::make_request(rc::INVOKE_BROKER_TO_RESET_OFFSET, 0);
  reset.ext_fields = remoting::ResetOffsetRequestHeader{"T", "CG", 0, true}.to_fields();
  Call r = call(std::move(reset), 30s);
  ASSERT_EQ(r.reply.code, code::SUCCESS) << r.remark();
  auto answered = remoting::body::ResetOffsetBody::decode(r.reply.body);
  ASSERT_TRUE(answered.ok()) << answered.error().to_string();
  EXPECT_EQ(answered->offset_table.size(), 4u);  // T's write queues
  run_for(1s);
  for (const auto& s : seen_) {
    ASSERT_EQ(s->resets.size(), 1u);
    EXPECT_TRUE(s->reset_oneway[0]);
    EXPECT_EQ(s->resets[0], *answered);
  }

  // 223: the silent client is left out after 5 s; the VIP client's answer arrives.
  RemotingCommand status = remoting::make_request(rc::INVOKE_BROKER_TO_GET_CONSUMER_STATUS, 0);
  status.ext_fields = remoting::GetConsumerStatusRequestHeader{"T", "CG", std::nullopt}.to_fields();
  const MonoTime began = now();
  r = call(std::move(status), 60s);
  ASSERT_EQ(r.reply.code, code::SUCCESS) << r.remark();
  EXPECT_GE(now() - began, 5s);
  auto table = remoting::body::GetConsumerStatusBody::decode(r.reply.body);
  ASSERT_TRUE(table.ok()) << table.error().to_string();
  ASSERT_EQ(table->consumer_table.size(), 1u);
  EXPECT_EQ(table->consumer_table.count("10.0.0.2@vip"), 1u);
  // Only the one named by clientAddr.
  RemotingCommand one = remoting::make_request(rc::INVOKE_BROKER_TO_GET_CONSUMER_STATUS, 0);
  one.ext_fields = remoting::GetConsumerStatusRequestHeader{"T", "CG", std::string("10.0.0.2@vip")}.to_fields();
  const MonoTime began_one = now();
  r = call(std::move(one), 60s);
  ASSERT_EQ(r.reply.code, code::SUCCESS) << r.remark();
  EXPECT_LT(now() - began_one, 5s);  // the silent one was not asked

  // 307: relayed as it came, over the VIP port; the silent one gets 207 after 10 s.
  RemotingCommand info = remoting::make_request(rc::GET_CONSUMER_RUNNING_INFO, 0);
  info.ext_fields = remoting::GetConsumerRunningInfoRequestHeader{"CG", "10.0.0.2@vip", false}.to_fields();
  r = call(std::move(info), 30s);
  ASSERT_EQ(r.reply.code, code::SUCCESS) << r.remark();
  EXPECT_EQ(std::string(r.reply.body.begin(), r.reply.body.end()), "10.0.0.2@vip");
  EXPECT_EQ(r.field("who"), "10.0.0.2@vip");
  RemotingCommand silent = remoting::make_request(rc::GET_CONSUMER_RUNNING_INFO, 0);
  silent.ext_fields = remoting::GetConsumerRunningInfoRequestHeader{"CG", "10.0.0.1@slow", false}.to_fields();
  r = call(std::move(silent), 30s);
  EXPECT_EQ(r.reply.code, code::CONSUME_MSG_TIMEOUT) << r.remark();
  EXPECT_EQ(BrokerInspector(broker()).server().pending_calls(), 0u);
}

}  // namespace
}  // namespace ferry::broker::testing
