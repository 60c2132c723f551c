// A simulated cluster for broker tests: a fake NameServer node (an RpcServer recording
// REGISTER_BROKER / UNREGISTER_BROKER), a broker node, and a bare client node whose RpcClient
// sends real frames built with the typed headers. Helpers run one call to completion and return
// its outcome, so assertions stay outside coroutines.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "broker/broker.h"
#include "common/crc.h"
#include "common/message_decoder.h"
#include "common/properties.h"
#include "remoting/body/register_broker_body.h"
#include "remoting/header/broker_registration_header.h"
#include "remoting/header/pull_message_header.h"
#include "remoting/header/send_message_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"
#include "remoting/rpc/rpc_client.h"
#include "remoting/rpc/rpc_server.h"
#include "runtime/log.h"
#include "sim/node.h"
#include "sim/world.h"
#include "tests/support/sim_trace_log.h"

namespace ferry::broker::testing {

using remoting::RemotingCommand;
namespace rc = remoting::request_code;
namespace code = remoting::response_code;

// What the fake NameServer saw.
struct NamesrvLog {
  std::vector<remoting::body::RegisterBrokerBody> registrations;
  std::vector<std::string> crc_problems;
  std::vector<std::string> unregistered;  // broker addresses
};

class FakeNameServer {
 public:
  FakeNameServer(Runtime& rt, std::shared_ptr<NamesrvLog> log) : server_(rt), log_(std::move(log)) {
    server_.register_processor(rc::REGISTER_BROKER, [this](remoting::RequestContext ctx) { return on_register(this, std::move(ctx)); });
    server_.register_processor(rc::UNREGISTER_BROKER, [this](remoting::RequestContext ctx) { return on_unregister(this, std::move(ctx)); });
    Status s = server_.start(Endpoint{rt.network().host(), 9876});
    FERRY_ASSERT(s.ok(), "fake namesrv: {}", s.ok() ? "" : s.error().to_string());
  }
  ~FakeNameServer() { server_.stop(); }

 private:
  static Task<std::optional<RemotingCommand>> on_register(FakeNameServer* self, remoting::RequestContext ctx) {
    auto h = remoting::RegisterBrokerRequestHeader::from_fields(ctx.request.ext_fields);
    const std::int32_t crc = body_crc(Bytes(ctx.request.body.data(), ctx.request.body.size()));
    if (!h || h->body_crc32 != crc) self->log_->crc_problems.push_back(h ? "crc mismatch" : h.error().to_string());
    auto body = remoting::body::RegisterBrokerBody::decode(ctx.request.body);
    if (body) self->log_->registrations.push_back(std::move(*body));
    co_return remoting::make_response(ctx.request, code::SUCCESS);
  }
  static Task<std::optional<RemotingCommand>> on_unregister(FakeNameServer* self, remoting::RequestContext ctx) {
    auto h = remoting::UnregisterBrokerRequestHeader::from_fields(ctx.request.ext_fields);
    if (h) self->log_->unregistered.push_back(h->broker_addr);
    co_return remoting::make_response(ctx.request, code::SUCCESS);
  }

  remoting::RpcServer server_;
  std::shared_ptr<NamesrvLog> log_;
};

inline store::StoreConfig small_store() {
  store::StoreConfig c;
  c.commit_log_file_size_bytes = 1 << 20;
  c.message_size_max_bytes = 64 * 1024;
  c.consume_queue_units_per_file = 1000;
  c.index_geometry = store::IndexGeometry{64, 1024};
  return c;
}

// Outcome of one call, copied out of the coroutine.
struct Call {
  bool ok = false;  // a reply arrived
  std::string error;
  RemotingCommand reply;
  std::string remark() const { return reply.remark.value_or(""); }
  const std::string& field(std::string_view k) const {
    static const std::string none = "<absent>";
    const std::string* v = reply.ext_fields.find(k);
    return v ? *v : none;
  }
};

inline Task<Call> invoke(remoting::RpcClient* client, std::string addr, RemotingCommand req, Duration timeout) {
  Call c;
  Result<RemotingCommand> r = co_await client->invoke(std::move(addr), std::move(req), timeout);
  if (r) {
    c.ok = true;
    c.reply = std::move(*r);
  } else {
    c.error = r.error().to_string();
  }
  co_return c;
}

// A message to send.
struct Msg {
  std::string topic = "T";
  std::string body = "hello";
  Properties props;
  std::int32_t queue_id = 0;
  std::int32_t flag = 0;
  Msg& tag(std::string_view t) { props.set("TAGS", t); return *this; }
  Msg& keys(std::string_view k) { props.set("KEYS", k); return *this; }
  Msg& set(std::string_view k, std::string_view v) { props.set(k, v); return *this; }
};

inline remoting::SendMessageRequestHeader send_header(const Msg& m) {
  remoting::SendMessageRequestHeader h;
  h.producer_group = "PG";
  h.topic = m.topic;
  h.default_topic = "TBW102";
  h.default_topic_queue_nums = 4;
  h.queue_id = QueueId(m.queue_id);
  h.sys_flag = 0;
  h.born_timestamp = 1'767'225'600'000;
  h.flag = m.flag;
  h.properties = *encode_properties(m.props);
  return h;
}

inline RemotingCommand send_request(const Msg& m, std::int32_t request_code = rc::SEND_MESSAGE_V2) {
  const auto h = send_header(m);
  RemotingCommand r = remoting::make_request(request_code, 0);
  r.ext_fields = request_code == rc::SEND_MESSAGE ? h.to_fields() : h.to_fields_v2();
  r.body.assign(m.body.begin(), m.body.end());
  return r;
}

// The SEND_BATCH_MESSAGE body as a client writes it (magic 0, CRC 0).
inline std::vector<std::uint8_t> encode_batch(const std::vector<Msg>& msgs) {
  std::vector<std::uint8_t> out;
  auto put32 = [&](std::int32_t v) {
    for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<std::uint8_t>((static_cast<std::uint32_t>(v) >> s) & 0xff));
  };
  for (const Msg& m : msgs) {
    const std::string props = *encode_properties(m.props);
    put32(static_cast<std::int32_t>(4 + 4 + 4 + 4 + 4 + m.body.size() + 2 + props.size()));
    put32(0);
    put32(0);
    put32(m.flag);
    put32(static_cast<std::int32_t>(m.body.size()));
    out.insert(out.end(), m.body.begin(), m.body.end());
    out.push_back(static_cast<std::uint8_t>(props.size() >> 8));
    out.push_back(static_cast<std::uint8_t>(props.size() & 0xff));
    out.insert(out.end(), props.begin(), props.end());
  }
  return out;
}

inline RemotingCommand batch_request(const std::vector<Msg>& msgs) {
  Msg outer = msgs.front();
  outer.props = Properties();
  RemotingCommand r = remoting::make_request(rc::SEND_BATCH_MESSAGE, 0);
  auto h = send_header(outer);
  h.batch = true;
  r.ext_fields = h.to_fields_v2();
  r.body = encode_batch(msgs);
  return r;
}

struct Pull {
  std::string group = "CG";
  std::string topic = "T";
  std::int32_t queue_id = 0;
  std::int64_t offset = 0;
  std::int32_t max = 32;
  std::optional<std::string> subscription = "*";  // nullopt: no subscription flag
  bool suspend = false;
  std::int64_t suspend_ms = 15'000;
  std::optional<std::int64_t> commit_offset;
};

inline RemotingCommand pull_request(const Pull& p) {
  remoting::PullMessageRequestHeader h;
  h.consumer_group = p.group;
  h.topic = p.topic;
  h.queue_id = QueueId(p.queue_id);
  h.queue_offset = QueueOffset(p.offset);
  h.max_msg_nums = p.max;
  h.sys_flag = (p.commit_offset ? 1 : 0) | (p.suspend ? 2 : 0) | (p.subscription ? 4 : 0);
  h.commit_offset = QueueOffset(p.commit_offset.value_or(0));
  h.suspend_timeout_millis = p.suspend_ms;
  h.subscription = p.subscription;
  h.sub_version = 0;
  h.expression_type = "TAG";
  RemotingCommand r = remoting::make_request(rc::PULL_MESSAGE, 0);
  r.ext_fields = h.to_fields();
  return r;
}

inline std::vector<MessageExt> messages_of(const RemotingCommand& reply) {
  auto m = decode_messages(Bytes(reply.body.data(), reply.body.size()), MessagesDecodeOptions{.check_crc = true});
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().to_string());
  return m.ok() ? std::move(*m) : std::vector<MessageExt>();
}

inline std::string body_text(const MessageExt& m) { return std::string(m.body.begin(), m.body.end()); }

class BrokerTest : public ::testing::Test {
 protected:
  static sim::WorldOptions options() {
    if (std::getenv("FERRY_LOG") == nullptr) set_default_log_level(spdlog::level::warn);
    sim::WorldOptions o;
    o.seed = 7;
    return o;
  }

  explicit BrokerTest(sim::WorldOptions o = options()) : world_(o) {}

  // Builds the nodes; call from the test (after adjusting config_).
  void boot() {
    auto log = names_;
    namesrv_ = world_.add_node("namesrv", [log](Runtime& rt) {
      return sim::hosted(std::make_unique<FakeNameServer>(rt, log));
    });
    config_.namesrv_addr = {world_.node(namesrv_).host() + ":9876"};
    const BrokerConfig cfg = config_;
    broker_ = world_.add_node("broker", [cfg](Runtime& rt) {
      auto b = std::make_unique<Broker>(rt, cfg);
      b->launch();
      return sim::hosted(std::move(b));
    });
    client_node_ = world_.add_node("client");
    client_ = std::make_unique<remoting::RpcClient>(world_.node(client_node_));
    wait_running();
  }

  void wait_running() {
    auto r = world_.run_until([this] { return broker().state() != Broker::State::starting && broker().state() != Broker::State::created; },
                              std::chrono::seconds(30));
    ASSERT_TRUE(r.ok()) << r.message;
    ASSERT_EQ(broker().state(), Broker::State::running)
        << (broker().start_error() ? broker().start_error()->to_string() : "");
    addr_ = broker().address();
  }

  void TearDown() override {
    ferry::testing::record_trace(world_);
    if (client_) client_->shutdown();
    client_.reset();
  }

  Broker& broker() {
    auto* p = dynamic_cast<sim::Hosted<Broker>*>(world_.node(broker_).process());
    FERRY_ASSERT(p != nullptr, "the broker node is down");
    return p->get();
  }

  Call call(RemotingCommand req, Duration timeout = std::chrono::seconds(5), Duration limit = std::chrono::seconds(60)) {
    auto r = world_.run_task(client_node_, invoke(client_.get(), addr_, std::move(req), timeout), limit);
    EXPECT_TRUE(r.ok()) << r.report.message;
    return r.value ? std::move(*r.value) : Call{};
  }
  Call send(const Msg& m, std::int32_t request_code = rc::SEND_MESSAGE_V2) { return call(send_request(m, request_code)); }
  Call pull(const Pull& p, Duration timeout = std::chrono::seconds(30)) { return call(pull_request(p), timeout); }

  // Graceful stop, then the process exits (the node goes down) and starts again.
  void graceful_restart() {
    auto r = world_.run_task(broker_, broker().stop(), std::chrono::seconds(30));
    ASSERT_TRUE(r.ok()) << r.report.message;
    world_.power_off(broker_);
    world_.start(broker_);
    wait_running();
  }
  void crash_restart() {
    world_.power_off(broker_);
    world_.start(broker_);
    wait_running();
  }

  sim::World world_;
  BrokerConfig config_ = [] {
    BrokerConfig c;
    c.store = small_store();
    return c;
  }();
  std::shared_ptr<NamesrvLog> names_ = std::make_shared<NamesrvLog>();
  sim::NodeId namesrv_{}, broker_{}, client_node_{};
  std::unique_ptr<remoting::RpcClient> client_;
  std::string addr_;
};

}  // namespace ferry::broker::testing
