// RPC client and server over both runtimes (the simulator and Asio on loopback): round trips,
// thousands of concurrent calls, oneway, timeouts, unknown codes, server-initiated requests,
// connection loss mid-call, and a malformed stream that closes only its own connection.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "remoting/frame_codec.h"
#include "remoting/frame_decoder.h"
#include "remoting/header_binary.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"
#include "remoting/rpc/rpc_client.h"
#include "remoting/rpc/rpc_server.h"
#include "tests/runtime/conformance.h"

namespace ferry::remoting {
namespace {

using ferry::testing::RuntimeHarness;

constexpr std::int32_t kEcho = 9001;
constexpr std::int32_t kSlow = 9002;
constexpr std::int32_t kNote = 9003;
constexpr std::int32_t kCloseMe = 9004;
constexpr std::int32_t kViews = 9005;  // replies "views:" then the request's body 300 times, as views
constexpr std::int32_t kForm = 9006;   // replies with the request's header form as the remark

struct Factory {
  std::string name;
  std::function<std::unique_ptr<RuntimeHarness>()> make;
};

class Rpc : public ::testing::TestWithParam<Factory> {
 protected:
  void SetUp() override {
    h_ = GetParam().make();
    server_ = std::make_unique<RpcServer>(h_->peer());
    server_->register_processor(kEcho, [](RequestContext ctx) -> Task<std::optional<RemotingCommand>> {
      return echo(std::move(ctx));
    });
    server_->register_processor(kSlow, [this](RequestContext ctx) { return slow(&h_->peer(), std::move(ctx)); });
    server_->register_processor(kNote, [this](RequestContext ctx) { return note(this, std::move(ctx)); });
    server_->register_processor(kCloseMe, [](RequestContext ctx) { return close_me(std::move(ctx)); });
    server_->register_processor(kViews, [](RequestContext ctx) { return views(std::move(ctx)); });
    server_->register_processor(kForm, [](RequestContext ctx) { return form(std::move(ctx)); });
    Status started = server_->start(h_->listen_address(h_->peer()));
    ASSERT_TRUE(started.ok()) << started.error().to_string();
    addr_ = server_->local().to_string();
    client_ = std::make_unique<RpcClient>(h_->rt());
  }
  void TearDown() override {
    // Tasks that still reference these objects belong to the nodes; stop I/O before destroying.
    if (client_) client_->shutdown();
    if (server_) server_->stop();
    client_.reset();
    server_.reset();
    h_.reset();
  }

  static Task<std::optional<RemotingCommand>> echo(RequestContext ctx) {
    RemotingCommand reply = make_response(ctx.request, response_code::SUCCESS);
    reply.ext_fields = ctx.request.ext_fields;
    reply.body = std::move(ctx.request.body);
    co_return reply;
  }
  static Task<std::optional<RemotingCommand>> slow(Runtime* rt, RequestContext ctx) {
    co_await rt->sleep(std::chrono::seconds(2));
    co_return make_response(ctx.request, response_code::SUCCESS, "slow");
  }
  static Task<std::optional<RemotingCommand>> note(Rpc* self, RequestContext ctx) {
    self->notes_.push_back(std::string(ctx.request.body.begin(), ctx.request.body.end()));
    co_return std::nullopt;
  }
  // The reply's body is a small owned part followed by 300 views of one pinned buffer, as a pull
  // reply's records are views of the CommitLog: the client must read them in order, intact.
  static Task<std::optional<RemotingCommand>> views(RequestContext ctx) {
    auto pinned = std::make_shared<const std::vector<std::uint8_t>>(ctx.request.body);
    RemotingCommand reply = make_response(ctx.request, response_code::SUCCESS);
    const std::string head = "views:";
    reply.body.assign(head.begin(), head.end());
    for (int i = 0; i < 300; ++i) reply.body_views.emplace_back(pinned, Bytes(pinned->data(), pinned->size()));
    co_return reply;
  }
  static Task<std::optional<RemotingCommand>> form(RequestContext ctx) {
    const bool binary = ctx.request.serialize_type == SerializeType::rocketmq;
    co_return make_response(ctx.request, response_code::SUCCESS, binary ? "rocketmq" : "json");
  }
  static Task<std::optional<RemotingCommand>> close_me(RequestContext ctx) {
    ctx.channel->close("test closes mid-call");
    co_return std::nullopt;
  }

  static RemotingCommand request(std::int32_t code, std::string body, SerializeType type = SerializeType::json) {
    RemotingCommand r = make_request(code, 0, type);
    r.body.assign(body.begin(), body.end());
    return r;
  }

  bool run(Task<void> t, Duration limit = std::chrono::seconds(60)) { return h_->run(std::move(t), limit); }

  std::unique_ptr<RuntimeHarness> h_;
  std::unique_ptr<RpcServer> server_;
  std::unique_ptr<RpcClient> client_;
  std::string addr_;
  std::vector<std::string> notes_;
};

struct Outcome {
  bool ok = false;
  std::int32_t code = -1;
  Errc err = Errc::ok;
  std::string body;
  std::string remark;
  std::string text;
};

Outcome outcome_of(const Result<RemotingCommand>& r) {
  Outcome o;
  o.ok = r.ok();
  if (r.ok()) {
    o.code = r->code;
    o.body.assign(r->body.begin(), r->body.end());
    o.remark = r->remark.value_or("");
  } else {
    o.err = r.error().code;
    o.text = r.error().to_string();
  }
  return o;
}

Task<void> call(RpcClient* c, std::string addr, RemotingCommand req, Duration timeout, Outcome* out) {
  *out = outcome_of(co_await c->invoke(addr, std::move(req), timeout));
}

TEST_P(Rpc, EchoRoundTripInBothSerializations) {
  Outcome json, binary;
  auto req = request(kEcho, "hello");
  req.ext_fields.set("k", "v");
  ASSERT_TRUE(run(call(client_.get(), addr_, req, std::chrono::seconds(3), &json)));
  ASSERT_TRUE(run(call(client_.get(), addr_, request(kEcho, "binary", SerializeType::rocketmq),
                       std::chrono::seconds(3), &binary)));
  EXPECT_TRUE(json.ok) << json.text;
  EXPECT_EQ(json.code, response_code::SUCCESS);
  EXPECT_EQ(json.body, "hello");
  EXPECT_TRUE(binary.ok) << binary.text;
  EXPECT_EQ(binary.body, "binary");
}

TEST_P(Rpc, ABodyOfViewsArrivesWholeAndInOrder) {
  Outcome got;
  ASSERT_TRUE(run(call(client_.get(), addr_, request(kViews, "0123456789"), std::chrono::seconds(3), &got)));
  ASSERT_TRUE(got.ok) << got.text;
  std::string expected = "views:";
  for (int i = 0; i < 300; ++i) expected += "0123456789";
  EXPECT_EQ(got.body, expected);
}

Task<void> call_form(RpcClient* c, std::string addr, Outcome* out, SerializeType* reply_form) {
  Result<RemotingCommand> r = co_await c->invoke(addr, make_request(kForm, 0), std::chrono::seconds(3));
  *out = outcome_of(r);
  if (r.ok()) *reply_form = r->serialize_type;
}

TEST_P(Rpc, RequestHeaderOptionPicksTheFormOfRequestsAndReplies) {
  // Without the option a request goes out in its own form (make_request: JSON).
  Outcome plain;
  SerializeType plain_reply = SerializeType::rocketmq;
  ASSERT_TRUE(run(call_form(client_.get(), addr_, &plain, &plain_reply)));
  EXPECT_EQ(plain.remark, "json");
  EXPECT_EQ(plain_reply, SerializeType::json);
  // With it every request is sent in that form, and the server answers in the same.
  RpcOptions opts;
  opts.request_header = SerializeType::rocketmq;
  auto binary_client = std::make_unique<RpcClient>(h_->rt(), opts);
  Outcome binary;
  SerializeType binary_reply = SerializeType::json;
  ASSERT_TRUE(run(call_form(binary_client.get(), addr_, &binary, &binary_reply)));
  EXPECT_EQ(binary.remark, "rocketmq");
  EXPECT_EQ(binary_reply, SerializeType::rocketmq);
  binary_client->shutdown();
}

Task<void> many_calls(RpcClient* c, std::string addr, int n, int* ok, int* wrong) {
  // Fire n calls concurrently, then collect: every reply must carry its own request's body.
  auto results = std::make_shared<std::vector<Outcome>>(n);
  auto done = std::make_shared<int>(0);
  for (int i = 0; i < n; ++i) {
    RemotingCommand r = make_request(kEcho, 0);
    const std::string body = "call-" + std::to_string(i);
    r.body.assign(body.begin(), body.end());
    c->invoke_async(addr, std::move(r), std::chrono::seconds(30), [results, done, i](Result<RemotingCommand> res) {
      (*results)[i] = outcome_of(res);
      ++*done;
    });
  }
  while (*done < n) co_await c->runtime().sleep(std::chrono::milliseconds(10));
  for (int i = 0; i < n; ++i) {
    const Outcome& o = (*results)[i];
    if (o.ok && o.body == "call-" + std::to_string(i)) {
      ++*ok;
    } else {
      ++*wrong;
    }
  }
}

TEST_P(Rpc, ThousandsOfConcurrentCallsEachGetTheirOwnReply) {
  int ok = 0, wrong = 0;
  ASSERT_TRUE(run(many_calls(client_.get(), addr_, 5000, &ok, &wrong)));
  EXPECT_EQ(ok, 5000);
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(client_->pending_calls(), 0u);
}

Task<void> oneway_then_echo(RpcClient* c, std::string addr, Outcome* out) {
  for (int i = 0; i < 3; ++i) {
    RemotingCommand r = make_request(kNote, 0);
    const std::string body = "note-" + std::to_string(i);
    r.body.assign(body.begin(), body.end());
    Status s = co_await c->invoke_oneway(addr, std::move(r));
    if (!s) {
      out->text = s.error().to_string();
      co_return;
    }
  }
  // An echo after the notes: the connection is ordered, so the notes were processed first.
  RemotingCommand e = make_request(kEcho, 0);
  *out = outcome_of(co_await c->invoke(addr, std::move(e), std::chrono::seconds(3)));
}

TEST_P(Rpc, OnewayRequestsArriveAndGetNoReply) {
  Outcome o;
  ASSERT_TRUE(run(oneway_then_echo(client_.get(), addr_, &o)));
  EXPECT_TRUE(o.ok) << o.text;
  EXPECT_EQ(notes_, (std::vector<std::string>{"note-0", "note-1", "note-2"}));
  EXPECT_EQ(client_->pending_calls(), 0u);
}

TEST_P(Rpc, ACallTimesOutAndALateReplyIsDropped) {
  Outcome slow, after;
  ASSERT_TRUE(run(call(client_.get(), addr_, request(kSlow, ""), std::chrono::milliseconds(200), &slow)));
  EXPECT_FALSE(slow.ok);
  EXPECT_EQ(slow.err, Errc::timed_out) << slow.text;
  EXPECT_NE(slow.text.find(addr_), std::string::npos) << "the error names the peer: " << slow.text;
  // The connection still works, and the late reply (2 s later) is ignored.
  ASSERT_TRUE(run(call(client_.get(), addr_, request(kSlow, ""), std::chrono::seconds(5), &after)));
  EXPECT_TRUE(after.ok) << after.text;
  EXPECT_EQ(after.remark, "slow");
  EXPECT_EQ(client_->pending_calls(), 0u);
}

TEST_P(Rpc, UnknownCodeGetsRequestCodeNotSupported) {
  Outcome o;
  ASSERT_TRUE(run(call(client_.get(), addr_, request(4242, ""), std::chrono::seconds(3), &o)));
  ASSERT_TRUE(o.ok) << o.text;
  EXPECT_EQ(o.code, response_code::REQUEST_CODE_NOT_SUPPORTED);
  EXPECT_NE(o.remark.find("4242"), std::string::npos) << o.remark;
}

TEST_P(Rpc, ConnectionLossMidCallFailsThatCallOnly) {
  Outcome lost, fine;
  ASSERT_TRUE(run(call(client_.get(), addr_, request(kCloseMe, ""), std::chrono::seconds(10), &lost)));
  EXPECT_FALSE(lost.ok);
  EXPECT_TRUE(lost.err == Errc::reset || lost.err == Errc::closed || lost.err == Errc::eof) << lost.text;
  // The client reconnects for the next call.
  ASSERT_TRUE(run(call(client_.get(), addr_, request(kEcho, "again"), std::chrono::seconds(3), &fine)));
  EXPECT_TRUE(fine.ok) << fine.text;
  EXPECT_EQ(fine.body, "again");
}

Task<void> server_calls_client(RpcServer* server, RpcClient* client, std::string addr, Outcome* out) {
  // Make the connection exist, then let the server call the client on it.
  RemotingCommand hello = make_request(kEcho, 0);
  (void)co_await client->invoke(addr, std::move(hello), std::chrono::seconds(3));
  auto channels = server->channels();
  if (channels.empty()) {
    out->text = "server has no connection";
    co_return;
  }
  RemotingCommand notify = make_request(request_code::NOTIFY_CONSUMER_IDS_CHANGED, 0);
  notify.ext_fields.set("consumerGroup", "G1");
  *out = outcome_of(co_await server->invoke_on(channels.front(), std::move(notify), std::chrono::seconds(3)));
}

Task<std::optional<RemotingCommand>> client_side_processor(std::string* seen, RequestContext ctx) {
  const std::string* group = ctx.request.ext_fields.find("consumerGroup");
  *seen = group ? *group : "";
  co_return make_response(ctx.request, response_code::SUCCESS, "client got it");
}

TEST_P(Rpc, ServerCanCallAConnectedClient) {
  std::string seen;
  client_->register_processor(request_code::NOTIFY_CONSUMER_IDS_CHANGED,
                              [&seen](RequestContext ctx) { return client_side_processor(&seen, std::move(ctx)); });
  Outcome o;
  ASSERT_TRUE(run(server_calls_client(server_.get(), client_.get(), addr_, &o)));
  EXPECT_TRUE(o.ok) << o.text;
  EXPECT_EQ(o.remark, "client got it");
  EXPECT_EQ(seen, "G1");
}

Task<void> garbage_then_echo(Runtime* rt, RpcClient* good, std::string addr, Outcome* bad_read, Outcome* echo) {
  auto ep = Endpoint::parse(addr);
  auto conn = co_await rt->network().connect(*ep, std::chrono::seconds(3));
  if (!conn) {
    bad_read->text = conn.error().to_string();
    co_return;
  }
  // A frame claiming a negative length.
  const std::uint8_t garbage[] = {0xff, 0xff, 0xff, 0xf0, 0, 0, 0, 0};
  (void)co_await (*conn)->write(Bytes(garbage, sizeof garbage));
  std::uint8_t buf[64];
  auto n = co_await (*conn)->read_some(MutableBytes(buf, sizeof buf));
  bad_read->ok = n.ok();
  if (!n) bad_read->err = n.error().code;
  (*conn)->close();
  RemotingCommand r = make_request(kEcho, 0);
  r.body = {'o', 'k'};
  *echo = outcome_of(co_await good->invoke(addr, std::move(r), std::chrono::seconds(3)));
}

TEST_P(Rpc, MalformedFrameClosesOnlyThatConnection) {
  Outcome bad, echo;
  ASSERT_TRUE(run(garbage_then_echo(&h_->rt(), client_.get(), addr_, &bad, &echo)));
  EXPECT_FALSE(bad.ok) << "the server must close a connection that sends a negative frame length";
  EXPECT_TRUE(bad.err == Errc::eof || bad.err == Errc::reset) << static_cast<int>(bad.err);
  EXPECT_TRUE(echo.ok) << echo.text;
  EXPECT_EQ(echo.body, "ok");
}

TEST_P(Rpc, ConnectToNobodyIsAnErrorNamingTheAddress) {
  Outcome o;
  const std::string nowhere = h_->listen_address(h_->peer()).host + ":1";
  ASSERT_TRUE(run(call(client_.get(), nowhere, request(kEcho, ""), std::chrono::seconds(3), &o)));
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(o.err == Errc::refused || o.err == Errc::timed_out) << o.text;
  EXPECT_NE(o.text.find(nowhere), std::string::npos) << o.text;
}

// A server at connections_max closes the connection over the cap at once and keeps serving the
// ones it has; a place freed is taken again.
Task<void> three_clients_against_a_cap_of_two(Runtime* rt, RpcServer* server, std::string addr, Outcome* out) {
  RpcClient a(*rt), b(*rt), c(*rt);
  RemotingCommand r = make_request(kEcho, 0);
  out[0] = outcome_of(co_await a.invoke(addr, r, std::chrono::seconds(3)));
  out[1] = outcome_of(co_await b.invoke(addr, r, std::chrono::seconds(3)));
  out[2] = outcome_of(co_await c.invoke(addr, r, std::chrono::seconds(3)));
  out[3] = outcome_of(co_await a.invoke(addr, r, std::chrono::seconds(3)));  // a's connection stays served
  a.shutdown();
  // Once the server has seen a's connection close, c gets in.
  for (int i = 0; i < 200 && server->connection_count() >= 2; ++i) co_await rt->sleep(std::chrono::milliseconds(10));
  out[4] = outcome_of(co_await c.invoke(addr, r, std::chrono::seconds(3)));
  b.shutdown();
  c.shutdown();
}

TEST_P(Rpc, ConnectionsOverTheCapAreClosedAndTheOthersServed) {
  RpcOptions opts;
  opts.connections_max = 2;
  RpcServer capped(h_->peer(), opts);
  capped.register_processor(kEcho, [](RequestContext ctx) -> Task<std::optional<RemotingCommand>> { return echo(std::move(ctx)); });
  ASSERT_TRUE(capped.start(h_->listen_address(h_->peer())).ok());
  Outcome out[5];
  ASSERT_TRUE(run(three_clients_against_a_cap_of_two(&h_->rt(), &capped, capped.local().to_string(), out)));
  EXPECT_TRUE(out[0].ok) << out[0].text;
  EXPECT_TRUE(out[1].ok) << out[1].text;
  EXPECT_FALSE(out[2].ok) << "the third connection is over the cap";
  EXPECT_TRUE(out[3].ok) << out[3].text;
  EXPECT_TRUE(out[4].ok) << "a freed place is taken again: " << out[4].text;
  EXPECT_GE(capped.refused_connections(), 1u);
  capped.stop();
}

// Raw extFields: a listed request reaches its processor with its binary header's fields unread
// (RpcOptions::raw_ext_fields_requests), a request guard still sees the map, and a client with
// raw_ext_fields_replies hands a reply over raw only to a call that asked (ReplyFields::raw).
struct RawSeen {
  std::vector<bool> arrived_raw;        // per request, at the processor
  std::vector<std::string> guard_saw;   // field "k" as the guard read it
  std::vector<RemotingCommand> replies;  // map call, then raw call
};

Task<std::optional<RemotingCommand>> raw_echo(RawSeen* seen, RequestContext ctx) {
  seen->arrived_raw.push_back(!ctx.request.raw_ext_fields.empty());
  RemotingCommand reply = make_response(ctx.request, response_code::SUCCESS);
  reply.ext_fields = std::move(ctx.request.ext_fields);
  reply.raw_ext_fields = std::move(ctx.request.raw_ext_fields);
  co_return reply;
}

Task<void> raw_calls(RpcClient* c, std::string addr, RawSeen* seen) {
  for (const RpcPeer::ReplyFields fields : {RpcPeer::ReplyFields::map, RpcPeer::ReplyFields::raw}) {
    RemotingCommand r = make_request(kEcho, 0, SerializeType::rocketmq);
    r.ext_fields.set("k", "v");
    r.ext_fields.set("topic", "T");
    Result<RemotingCommand> got = co_await c->invoke(addr, std::move(r), std::chrono::seconds(3), fields);
    if (got.ok()) seen->replies.push_back(std::move(*got));
  }
}

TEST_P(Rpc, RawExtFieldsReachOnlyWhoAskedForThem) {
  RpcOptions server_opts;
  server_opts.raw_ext_fields_requests = {kEcho};
  RpcServer server(h_->peer(), server_opts);
  RawSeen seen;
  server.register_processor(kEcho, [&seen](RequestContext ctx) { return raw_echo(&seen, std::move(ctx)); });
  ASSERT_TRUE(server.start(h_->listen_address(h_->peer())).ok());
  RpcOptions client_opts;
  client_opts.raw_ext_fields_replies = true;
  RpcClient raw_client(h_->rt(), client_opts);
  ASSERT_TRUE(run(raw_calls(&raw_client, server.local().to_string(), &seen)));
  EXPECT_EQ(seen.arrived_raw, (std::vector<bool>{true, true}));
  ASSERT_EQ(seen.replies.size(), 2u);
  const ExtFields expected{{"k", "v"}, {"topic", "T"}};
  EXPECT_TRUE(seen.replies[0].raw_ext_fields.empty()) << "a call that did not ask gets the map";
  EXPECT_EQ(seen.replies[0].ext_fields, expected);
  EXPECT_TRUE(seen.replies[1].ext_fields.empty());
  ASSERT_FALSE(seen.replies[1].raw_ext_fields.empty()) << "the call that asked gets the bytes";
  RemotingCommand mapped = seen.replies[1];
  ASSERT_TRUE(materialize_ext_fields(mapped).ok());
  EXPECT_EQ(mapped.ext_fields, expected);

  // With a guard (ACL), the guard reads the map, and so does the processor after it.
  server.set_request_guard([&seen](const Channel&, const RemotingCommand& r) -> std::optional<std::string> {
    seen.guard_saw.emplace_back(r.ext_fields.get("k").value_or("(absent)"));
    return std::nullopt;
  });
  seen.replies.clear();
  ASSERT_TRUE(run(raw_calls(&raw_client, server.local().to_string(), &seen)));
  EXPECT_EQ(seen.guard_saw, (std::vector<std::string>{"v", "v"}));
  EXPECT_EQ(seen.arrived_raw, (std::vector<bool>{true, true, false, false}));
  ASSERT_EQ(seen.replies.size(), 2u);
  EXPECT_EQ(seen.replies[0].ext_fields, expected);
  raw_client.shutdown();
  server.stop();
}

// A connection that never speaks is closed after idle_timeout; one that does is kept.
Task<void> silent_and_chatty(Runtime* rt, RpcClient* chatty, std::string addr, Outcome* silent_read, Outcome* calls) {
  auto ep = Endpoint::parse(addr);
  auto conn = co_await rt->network().connect(*ep, std::chrono::seconds(3));
  if (!conn) {
    silent_read->text = conn.error().to_string();
    co_return;
  }
  for (int i = 0; i < 14; ++i) {  // every 100 ms for 1.4 s: never idle for the 600 ms timeout
    RemotingCommand r = make_request(kEcho, 0);
    Outcome o = outcome_of(co_await chatty->invoke(addr, std::move(r), std::chrono::seconds(3)));
    calls->ok = i == 0 ? o.ok : calls->ok && o.ok;
    if (!o.ok) calls->text = o.text;
    co_await rt->sleep(std::chrono::milliseconds(100));
  }
  std::uint8_t buf[16];
  auto n = co_await (*conn)->read_some(MutableBytes(buf, sizeof buf));  // the server closed it by now
  silent_read->ok = n.ok();
  if (!n) silent_read->err = n.error().code;
  (*conn)->close();
}

TEST_P(Rpc, AConnectionIdleForTheTimeoutIsClosed) {
  RpcOptions opts;
  opts.idle_timeout = std::chrono::milliseconds(600);
  RpcServer server(h_->peer(), opts);
  server.register_processor(kEcho, [](RequestContext ctx) -> Task<std::optional<RemotingCommand>> { return echo(std::move(ctx)); });
  ASSERT_TRUE(server.start(h_->listen_address(h_->peer())).ok());
  Outcome silent, calls;
  ASSERT_TRUE(run(silent_and_chatty(&h_->rt(), client_.get(), server.local().to_string(), &silent, &calls)));
  EXPECT_FALSE(silent.ok) << "a connection that never spoke is closed";
  EXPECT_TRUE(silent.err == Errc::eof || silent.err == Errc::reset) << static_cast<int>(silent.err);
  EXPECT_TRUE(calls.ok) << calls.text;
  EXPECT_EQ(server.idle_closed_connections(), 1u) << "only the silent one";
  client_->shutdown();
  server.stop();
}

// idle_timeout zero (serverChannelMaxIdleTimeSeconds=0, RocketMQ's "never"): a connection silent
// far longer than any timeout is kept, and answers when it speaks at last.
Task<void> silent_then_echo(Runtime* rt, std::string addr, Duration silence, Outcome* out) {
  auto ep = Endpoint::parse(addr);
  auto conn = co_await rt->network().connect(*ep, std::chrono::seconds(3));
  if (!conn) {
    out->text = conn.error().to_string();
    co_return;
  }
  co_await rt->sleep(silence);
  RemotingCommand r = make_request(kEcho, 77);
  auto frame = encode_frame(r);
  auto wrote = co_await (*conn)->write(Bytes(frame->data(), frame->size()));
  if (!wrote) {
    out->text = "write after the silence: " + wrote.error().to_string();
    co_return;
  }
  std::uint8_t buf[256];
  auto n = co_await (*conn)->read_some(MutableBytes(buf, sizeof buf));
  out->ok = n.ok() && *n > 0;
  if (!n) out->text = "read after the silence: " + n.error().to_string();
  (*conn)->close();
}

TEST_P(Rpc, IdleTimeoutZeroKeepsASilentConnection) {
  RpcOptions opts;
  opts.idle_timeout = Duration::zero();
  RpcServer server(h_->peer(), opts);
  server.register_processor(kEcho, [](RequestContext ctx) -> Task<std::optional<RemotingCommand>> { return echo(std::move(ctx)); });
  ASSERT_TRUE(server.start(h_->listen_address(h_->peer())).ok());
  // Ten simulated minutes; on loopback a second and a half (real time is the test's).
  const Duration silence = GetParam().name == "sim" ? Duration(std::chrono::minutes(10)) : Duration(std::chrono::milliseconds(1500));
  Outcome o;
  ASSERT_TRUE(run(silent_then_echo(&h_->rt(), server.local().to_string(), silence, &o), silence + std::chrono::seconds(30)));
  EXPECT_TRUE(o.ok) << o.text;
  EXPECT_EQ(server.idle_closed_connections(), 0u);
  server.stop();
}

// A peer that sends many cheap requests with large replies and never reads: the server stops
// reading it once its replies back up, so what the connection holds stays bounded; once the peer
// reads, every reply arrives.
constexpr std::int32_t kBig = 9005;
constexpr std::size_t kBigReplyBytes = 16 * 1024;
constexpr int kGreedyRequests = 5000;

struct GreedyOutcome {
  std::string error;
  std::size_t held_max = 0;       // the most the server's connection held
  std::size_t in_flight_max = 0;  // the most requests it was serving at once
  int replies = 0;                // replies read once the peer reads
};

Task<void> send_and_never_read(Runtime* rt, RpcServer* server, std::string addr, GreedyOutcome* out) {
  auto ep = Endpoint::parse(addr);
  auto conn = co_await rt->network().connect(*ep, std::chrono::seconds(3));
  if (!conn) {
    out->error = conn.error().to_string();
    co_return;
  }
  std::vector<std::uint8_t> all;
  for (int i = 0; i < kGreedyRequests; ++i) {
    RemotingCommand r = make_request(kBig, i);
    auto frame = encode_frame(r);
    all.insert(all.end(), frame->begin(), frame->end());
  }
  // Written from its own task: with the server no longer reading, this write may wait for good.
  rt->spawn([](Connection* c, std::vector<std::uint8_t> bytes) -> Task<void> {
    (void)co_await c->write(Bytes(bytes.data(), bytes.size()));
  }(conn->get(), std::move(all)), "greedy-writer");
  for (int tick = 0; tick < 100; ++tick) {  // a second of not reading
    co_await rt->sleep(std::chrono::milliseconds(10));
    for (const auto& ch : server->channels()) {
      out->held_max = std::max(out->held_max, ch->held_bytes());
      out->in_flight_max = std::max(out->in_flight_max, server->requests_in_flight(ch->id()));
    }
  }
  // Now read everything: every request gets its reply.
  FrameDecoder decoder(kFrameBytesMaxDefault);
  std::vector<std::uint8_t> buf(256 * 1024);
  while (out->replies < kGreedyRequests) {
    auto n = co_await (*conn)->read_some(MutableBytes(buf.data(), buf.size()));
    if (!n) {
      out->error = n.error().to_string();
      break;
    }
    if (!decoder.feed(Bytes(buf.data(), *n))) break;
    for (;;) {
      auto next = decoder.next();
      if (!next || !next->has_value()) break;
      ++out->replies;
    }
  }
  (*conn)->close();
}

TEST_P(Rpc, APeerThatNeverReadsItsRepliesHoldsABoundedAmount) {
  RpcOptions opts;
  opts.write_queue_bytes_max = 256 * 1024;
  opts.requests_in_flight_pause = 64;
  RpcServer server(h_->peer(), opts);
  server.register_processor(kBig, [](RequestContext ctx) -> Task<std::optional<RemotingCommand>> {
    RemotingCommand reply = make_response(ctx.request, response_code::SUCCESS);
    reply.body.assign(kBigReplyBytes, 'x');
    co_return reply;
  });
  ASSERT_TRUE(server.start(h_->listen_address(h_->peer())).ok());
  GreedyOutcome out;
  ASSERT_TRUE(run(send_and_never_read(&h_->rt(), &server, server.local().to_string(), &out)));
  EXPECT_TRUE(out.error.empty()) << out.error;
  // Unbounded, the server would hold every reply: 5000 x 16 KiB = 80 MB. Bounded: the write
  // queue plus the one reply that crossed it (a frame head is under 256 bytes); the requests
  // being served wait for room before they build a reply (before, each of the 64 held its reply
  // while waiting for queue space: 1 MiB more).
  EXPECT_LE(out.in_flight_max, opts.requests_in_flight_pause) << "the server stopped reading";
  const std::size_t bound = opts.write_queue_bytes_max + kBigReplyBytes + 256;
  EXPECT_LE(out.held_max, bound) << "the connection held " << out.held_max << " bytes";
  EXPECT_EQ(out.replies, kGreedyRequests) << "every request is answered once the peer reads";
  server.stop();
}

std::vector<Factory> harnesses() {
  return {
      {"sim", [] { return ferry::testing::make_sim_harness(7); }},
      {"asio", [] { return ferry::testing::make_asio_harness(); }},
  };
}

INSTANTIATE_TEST_SUITE_P(Runtimes, Rpc, ::testing::ValuesIn(harnesses()),
                         [](const ::testing::TestParamInfo<Factory>& info) { return info.param.name; });

}  // namespace
}  // namespace ferry::remoting
