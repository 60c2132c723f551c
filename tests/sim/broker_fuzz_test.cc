// The broker request fuzzer (issue "Hardening"): a simulated cluster (one NameServer, a
// SYNC_FLUSH ASYNC_MASTER broker and its slave) and a bare client node that
//   1. sends valid messages to a protected topic and records what was acknowledged;
//   2. opens connections and sends generated and mutated requests (tests/sim/fuzz/): every request
//      code plus unknown ones, hostile headers and bodies, JSON and binary headers, damaged
//      frames, several requests in flight per connection and several connections at once, some
//      closed mid-frame, one in four to the slave; three more connections stop mid-frame (or
//      before a byte) and stay open;
//   3. lets two virtual hours pass (delayed deliveries and the broker's timers work on what the
//      fuzzed requests stored; the stalled connections must have been closed by then), restarts
//      the broker (process kill or power loss), and checks that every acknowledged message is
//      still readable, intact, and that a valid send works.
// Per connection (stream_oracle.h): every request the broker can decode gets a reply with its
// opaque, and a stream that goes bad is closed, within kReplyBound of virtual time. Records that
// fuzzed sends stored are aimed at by later requests that take a CommitLog offset. After every
// round a fresh connection's valid request must be answered, by the master and by the slave. A
// FERRY_ASSERT in the broker aborts the binary: the seed and replay line are printed before each
// seed runs.
//
//   build/bin/sim_broker_fuzz_test                                     # CI: seeds 1-4, 300 requests each
//   FERRY_SIM_SEEDS=17 build/bin/sim_broker_fuzz_test                  # replay seed 17
//   FERRY_SIM_SEEDS=1-200 FERRY_FUZZ_ITERATIONS=3000 build/bin/sim_broker_fuzz_test   # a long run
//   FERRY_FUZZ_STATS=1 ...                                              # replies by request and reply code
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/message_decoder.h"
#include "common/msg_id.h"
#include "remoting/frame_codec.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"
#include "remoting/rpc/rpc_client.h"
#include "runtime/log.h"
#include "sim/cluster/cluster.h"
#include "sim/swarm.h"
#include "tests/sim/fuzz/fuzz_connection.h"
#include "tests/sim/fuzz/request_generator.h"
#include "tests/sim/fuzz/stream_oracle.h"
#include "tests/support/broker_inspector.h"
#include "tests/support/requests.h"
#include "tests/support/sim_test_util.h"
#include "tests/support/sim_trace_log.h"

using ferry::testing::BrokerInspector;

namespace ferry::sim::fuzz {
namespace {

using namespace std::chrono_literals;
namespace rc = remoting::request_code;
namespace code = remoting::response_code;
using remoting::RemotingCommand;

constexpr const char* kProtectedTopic = "FuzzLedger";
constexpr int kAckedMessages = 24;
// A long poll is held up to the broker's suspend_timeout_max (60 s); buggify delays add 100 ms.
constexpr Duration kReplyBound = 90s;

// ---- knobs (tests may read the environment) -------------------------------------------------

std::vector<std::uint64_t> seeds() { return testing::sim_seeds(1, 4); }

int iterations() {
  const char* env = std::getenv("FERRY_FUZZ_ITERATIONS");
  return env != nullptr ? std::max(1, std::atoi(env)) : 300;
}

std::string replay_line(std::uint64_t seed) {
  return fmt::format("FERRY_SIM_SEEDS={} FERRY_FUZZ_ITERATIONS={} build/bin/sim_broker_fuzz_test", seed, iterations());
}

// ---- the cluster ------------------------------------------------------------------------------

struct Acked {
  std::string body;
  std::string msg_id;
  std::int32_t queue_id = 0;
  std::int64_t queue_offset = 0;
  std::int64_t commit_log_offset = 0;
};

class FuzzRun {
 public:
  explicit FuzzRun(std::uint64_t seed) : cluster_(options(seed), spec()), trace_(cluster_.world()) {}

  static WorldOptions options(std::uint64_t seed) {
    WorldOptions o = swarm_options(seed);
    // A failed sync makes the store refuse writes until a restart, by design; this test needs a
    // store that takes writes (the final valid send).
    o.disk.eio_on_sync_ppm = 0;
    return o;
  }
  static cluster::ClusterSpec spec() {
    cluster::ClusterSpec s;
    s.brokers.front().flush = store::FlushMode::sync_flush;
    // A slave replicates (and indexes) whatever the fuzzed sends store, and is fuzzed too.
    s.brokers.front().slaves = 1;
    s.brokers.front().role = broker::BrokerRole::async_master;
    s.topics.push_back(cluster::TopicSpec{kProtectedTopic, 4});
    return s;
  }

  std::vector<std::string> run(int requests) {
    if (Status b = cluster_.boot(); !b.ok()) return {"boot: " + b.error().to_string()};
    client_ = cluster_.add_bare("fuzz-client");
    broker_ = Endpoint::parse(cluster_.broker_addr(0)).value();
    slave_ = Endpoint::parse(cluster_.broker_addr(*cluster_.slave_index(0))).value();
    frame_max_ = BrokerInspector(*cluster_.broker(0)).server().options().frame_bytes_max;
    rpc_ = std::make_unique<remoting::RpcClient>(cluster_.world().node(client_));
    send_acked();
    if (!failures_.empty()) return failures_;
    fuzz(requests);
    settle_and_restart();
    check_acked();
    rpc_->shutdown();
    return failures_;
  }

  World& world() { return cluster_.world(); }
  int rounds() const { return rounds_; }
  int sent() const { return sent_; }
  int replies() const { return replies_; }
  int closes() const { return closes_; }
  // Replies by (request code, reply code): what the requests reached.
  const std::map<std::pair<std::int32_t, std::int32_t>, int>& outcomes() const { return outcomes_; }

 private:
  Runtime& client_rt() { return cluster_.world().node(client_); }

  // One call through the RpcClient (valid requests only).
  std::optional<RemotingCommand> call(RemotingCommand req, const std::string& what) {
    auto task = [](remoting::RpcClient* c, std::string addr, RemotingCommand r) -> Task<Result<RemotingCommand>> {
      co_return co_await c->invoke(std::move(addr), std::move(r), 10s);
    };
    auto r = cluster_.run_task(client_, task(rpc_.get(), broker_.to_string(), std::move(req)), 60s);
    if (!r.ok() || !r.value) {
      failures_.push_back(what + ": the call did not finish: " + r.report.message);
      return std::nullopt;
    }
    if (!r.value->ok()) {
      failures_.push_back(what + ": no reply: " + r.value->error().to_string());
      return std::nullopt;
    }
    return std::move(**r.value);
  }

  RequestGenerator valid_maker() {
    FuzzTargets t;
    t.topics = {kProtectedTopic};
    t.groups = {"fuzz-inspector"};
    t.broker_name = cluster_.broker_label(0);
    t.cluster_name = cluster_.spec().brokers.front().cluster;
    t.frame_bytes_max = frame_max_;
    return RequestGenerator(client_rt().random().fork(), t);
  }

  void send_acked() {
    RequestGenerator g = valid_maker();
    for (int i = 0; i < kAckedMessages; ++i) {
      RemotingCommand req = g.valid(rc::SEND_MESSAGE_V2, 0);
      req.ext_fields.set("e", std::to_string(i % 4));
      const std::string body = fmt::format("acked-{}-{:016x}", i, g.random().next_u64());
      req.body.assign(body.begin(), body.end());
      std::optional<RemotingCommand> r = call(std::move(req), fmt::format("acked send {}", i));
      if (!r) return;
      if (r->code != code::SUCCESS) {
        failures_.push_back(fmt::format("acked send {}: code {} {}", i, r->code, r->remark.value_or("")));
        return;
      }
      Acked a;
      a.body = body;
      a.msg_id = std::string(r->ext_fields.get("msgId").value_or(""));
      a.queue_id = std::stoi(std::string(r->ext_fields.get("queueId").value_or("-1")));
      a.queue_offset = std::stoll(std::string(r->ext_fields.get("queueOffset").value_or("-1")));
      auto id = decode_offset_msg_id(a.msg_id);
      if (!id.ok()) {
        failures_.push_back("acked send: bad msgId " + a.msg_id);
        return;
      }
      a.commit_log_offset = id->offset.value();
      acked_.push_back(a);
    }
  }

  FuzzTargets fuzz_targets() {
    FuzzTargets t;
    t.topics = {kProtectedTopic, "FuzzOther", "TBW102", "%RETRY%fuzz-g1", "SCHEDULE_TOPIC_XXXX", "NoSuchTopic"};
    t.groups = {"fuzz-g1", "fuzz-g2", "fuzz-inspector"};
    for (const Acked& a : acked_) t.commit_log_offsets.push_back(a.commit_log_offset);
    t.broker_name = cluster_.broker_label(0);
    t.cluster_name = cluster_.spec().brokers.front().cluster;
    t.frame_bytes_max = frame_max_;
    return t;
  }

  // A request the fuzzer must not send: it would remove or reshape the protected topic, which
  // an operator may do (then acknowledged messages are legitimately gone).
  // Nor promote the slave (the operator's FERRY_PROMOTE_SLAVE; a master refuses it).
  static bool touches_protected(const StreamExpectation& e, bool to_slave) {
    for (const RemotingCommand& c : e.requests) {
      if (to_slave && c.code == rc::FERRY_PROMOTE_SLAVE) return true;
      if (c.code != rc::UPDATE_AND_CREATE_TOPIC && c.code != rc::DELETE_TOPIC_IN_BROKER) continue;
      const std::string* t = c.ext_fields.find("topic");
      if (t != nullptr && *t == kProtectedTopic) return true;
    }
    return false;
  }

  void fuzz(int requests) {
    RequestGenerator g(client_rt().random().fork(), fuzz_targets());
    stall_connections(g);
    std::int32_t opaque = 1000;
    while (sent_ < requests && failures_.empty()) {
      ++rounds_;
      std::vector<std::shared_ptr<ConnectionRun>> runs;
      const std::uint64_t connections = g.random().between(1, 4);
      for (std::uint64_t k = 0; k < connections; ++k) {
        std::vector<std::uint8_t> stream;
        auto run = std::make_shared<ConnectionRun>();
        const bool to_slave = g.random().one_in(4);
        run->what = to_slave ? "to the slave: " : "";
        const std::uint64_t frames = g.random().between(1, 6);
        for (std::uint64_t f = 0; f < frames; ++f) {
          RemotingCommand cmd = g.command(++opaque);
          FrameBytes fb = g.frame(cmd, 8);
          std::vector<std::uint8_t> candidate = stream;
          candidate.insert(candidate.end(), fb.bytes.begin(), fb.bytes.end());
          if (touches_protected(expect_of(candidate, frame_max_), to_slave)) continue;
          stream = std::move(candidate);
          run->what += fmt::format("[code {} opaque {} flag {} fields {} body {} {}] ", cmd.code, cmd.opaque, cmd.flag,
                                   cmd.ext_fields.size(), cmd.body.size(), fb.how);
          ++sent_;
        }
        run->expect = expect_of(stream, frame_max_);
        for (std::int32_t o : run->expect.replies) ++run->owed[o];
        for (const RemotingCommand& c : run->expect.requests) run->code_of[c.opaque] = c.code;
        const bool close_early = g.random().one_in(10);  // the client goes away, maybe mid-frame
        if (close_early) run->owed.clear(), run->expect.close = false;
        client_rt().spawn(drive_connection(&client_rt(), to_slave ? slave_ : broker_, std::move(stream), close_early, run),
                          "fuzz-conn");
        runs.push_back(run);
      }
      auto all_done = [&] {
        for (const auto& r : runs) {
          if (!r->done) return false;
        }
        return true;
      };
      const RunReport report = cluster_.run_until(all_done, kReplyBound);
      for (const auto& r : runs) {
        replies_ += r->replies;
        for (std::int64_t o : r->stored) g.learn_record(o);
        for (const auto& [k, n] : r->outcomes) outcomes_[k] += n;
        closes_ += r->closed_by_peer ? 1 : 0;
        for (const std::string& f : r->failures) failures_.push_back(fmt::format("round {}: {} on {}", rounds_, f, r->what));
        if (!r->done) {
          failures_.push_back(fmt::format("round {}: after {} s, {} replies owed{} on {} ({})", rounds_,
                                          to_ms(kReplyBound) / 1000, r->owed.size(),
                                          r->expect.close ? ", and a close (" + r->expect.close_reason + ")" : "",
                                          r->what, report.message));
        } else if (r->expect.close && !r->closed_by_peer) {
          failures_.push_back(fmt::format("round {}: the stream went bad ({}) and was not closed: {}", rounds_,
                                          r->expect.close_reason, r->what));
        } else if (!r->owed.empty() && !r->closed_by_peer) {
          failures_.push_back(fmt::format("round {}: {} replies owed: {}", rounds_, r->owed.size(), r->what));
        }
      }
      health_check(g);
    }
  }

  // Connections that stop mid-frame (or never send a byte) and stay open: the broker must close
  // them (idle_timeout, 120 s), or a client could hold its connections and buffers for ever.
  // Checked after the two virtual hours of settle_and_restart().
  void stall_connections(RequestGenerator& g) {
    for (int i = 0; i < 3; ++i) {
      auto run = std::make_shared<ConnectionRun>();
      std::vector<std::uint8_t> stream;
      if (i > 0) {
        stream = g.frame(g.command(900 + i), 0).bytes;
        stream.resize(g.random().below(stream.size()));
      }
      run->expect.close = true;
      run->what = fmt::format("a connection stalled after {} bytes", stream.size());
      client_rt().spawn(drive_connection(&client_rt(), i == 2 ? slave_ : broker_, std::move(stream), false, run), "fuzz-stall");
      stalled_.push_back(run);
    }
  }

  // What the fuzzed requests left behind is worked on later too: delayed messages are delivered
  // (the longest level is 2 h), offsets persisted, long polls expire. Then the broker restarts
  // (a process kill or a power loss, drawn from the seed) and recovers a log that holds whatever
  // the fuzzed sends stored; SYNC_FLUSH keeps every acknowledged message either way.
  void settle_and_restart() {
    if (!failures_.empty()) return;
    cluster_.run_for(std::chrono::hours(2) + std::chrono::minutes(1));
    for (const auto& r : stalled_) {
      if (!r->done || !r->closed_by_peer) failures_.push_back(r->what + " was not closed by the broker in 2 hours");
      for (const std::string& f : r->failures) failures_.push_back(r->what + ": " + f);
    }
    const NodeId b = cluster_.broker_node(0);
    if (cluster_.broker(0) == nullptr || cluster_.broker(0)->state() != broker::Broker::State::running) {
      failures_.push_back("the broker is not running after the fuzzed requests were worked on");
      return;
    }
    cluster_.crash(b, client_rt().random().one_in(2) ? CrashKind::power_loss : CrashKind::process_kill);
    cluster_.start(b);
    auto started = cluster_.run_until(
        [&] {
          const broker::Broker* x = cluster_.broker(0);
          return x != nullptr && x->state() != broker::Broker::State::created && x->state() != broker::Broker::State::starting;
        },
        60s);
    const broker::Broker* x = cluster_.broker(0);
    if (!started.ok() || x == nullptr || x->state() != broker::Broker::State::running) {
      failures_.push_back("the broker did not restart: " +
                          (x && x->start_error() ? x->start_error()->to_string() : started.message));
    }
  }

  // A fresh connection's valid request is answered SUCCESS, by the master and by the slave.
  void health_check(RequestGenerator& g) {
    for (const Endpoint& to : {broker_, slave_}) health_check(g, to);
  }
  void health_check(RequestGenerator& g, const Endpoint& to) {
    RemotingCommand req = g.valid(rc::GET_MAX_OFFSET, 0);
    req.ext_fields = {{"topic", kProtectedTopic}, {"queueId", "0"}};
    auto run = std::make_shared<ConnectionRun>();
    const std::int32_t opaque = 7;
    req.opaque = opaque;
    std::vector<std::uint8_t> bytes = remoting::encode_frame(req).value();
    run->owed[opaque] = 1;
    run->what = "health check GET_MAX_OFFSET";
    client_rt().spawn(drive_connection(&client_rt(), to, std::move(bytes), false, run), "fuzz-health");
    cluster_.run_until([&] { return run->done; }, 30s);
    if (!run->done || !run->owed.empty() || !run->failures.empty()) {
      failures_.push_back(fmt::format("round {}: the {} stopped answering a fresh connection's valid request{}",
                                      rounds_, to == broker_ ? "master" : "slave", run->failures.empty() ? "" : ": " + run->failures.front()));
    }
  }

  void check_acked() {
    if (!failures_.empty()) return;
    for (const Acked& a : acked_) {
      // By msgId: VIEW_MESSAGE_BY_ID at the record's CommitLog offset.
      std::optional<RemotingCommand> v = call(ferry::testing::view_request(a.commit_log_offset), "view " + a.msg_id);
      if (!v) return;
      if (v->code != code::SUCCESS) {
        failures_.push_back(fmt::format("acked {} (msgId {}) is not viewable: code {} {}", a.body, a.msg_id, v->code, v->remark.value_or("")));
        continue;
      }
      check_body(v->body, a, "view");
      // By queue offset: a pull of one message, pulled again while the broker says busy or gives
      // fewer (both legal).
      bool found = false;
      for (int attempt = 0; attempt < 20 && !found; ++attempt) {
        const ferry::testing::Pull one{.group = "fuzz-reader",
                                       .topic = kProtectedTopic,
                                       .queue_id = a.queue_id,
                                       .offset = a.queue_offset,
                                       .max = 1,
                                       .suspend_ms = 0};
        std::optional<RemotingCommand> p = call(ferry::testing::pull_request(one), "pull " + a.msg_id);
        if (!p) return;
        if (p->code == code::SUCCESS) {
          found = true;
          check_body(p->body, a, "pull");
        }
      }
      if (!found) failures_.push_back(fmt::format("acked {} at queue {} offset {} is not pullable", a.body, a.queue_id, a.queue_offset));
    }
    RequestGenerator g = valid_maker();
    RemotingCommand send = g.valid(rc::SEND_MESSAGE_V2, 0);
    std::optional<RemotingCommand> s = call(std::move(send), "final send");
    if (s && s->code != code::SUCCESS) failures_.push_back(fmt::format("the final valid send failed: code {} {}", s->code, s->remark.value_or("")));
  }

  void check_body(const std::vector<std::uint8_t>& body, const Acked& a, const char* how) {
    auto msgs = decode_messages(Bytes(body.data(), body.size()), MessagesDecodeOptions{.check_crc = true});
    if (!msgs.ok() || msgs->empty()) {
      failures_.push_back(fmt::format("acked {} by {}: the reply does not decode: {}", a.body, how,
                                      msgs.ok() ? "no message" : msgs.error().to_string()));
      return;
    }
    const std::string got(msgs->front().body.begin(), msgs->front().body.end());
    if (got != a.body) failures_.push_back(fmt::format("acked {} by {}: body is now \"{}\"", a.body, how, got.substr(0, 64)));
  }

  cluster::Cluster cluster_;
  ferry::testing::TraceOnExit trace_;
  NodeId client_{};
  Endpoint broker_;  // the master
  Endpoint slave_;
  std::size_t frame_max_ = 0;
  std::unique_ptr<remoting::RpcClient> rpc_;
  std::vector<Acked> acked_;
  std::vector<std::shared_ptr<ConnectionRun>> stalled_;
  std::vector<std::string> failures_;
  int rounds_ = 0;
  int sent_ = 0;
  int replies_ = 0;
  int closes_ = 0;
  std::map<std::pair<std::int32_t, std::int32_t>, int> outcomes_;
};

TEST(BrokerFuzz, EveryRequestIsAnsweredOrClosedAndAcknowledgedMessagesStayReadable) {
  // The broker warns about every stream it closes: quiet unless FERRY_LOG is set.
  if (std::getenv("FERRY_LOG") == nullptr) set_default_log_level(spdlog::level::err);
  const int requests = iterations();
  for (std::uint64_t seed : seeds()) {
    // Printed first: a FERRY_ASSERT or sanitizer report in the broker ends the process.
    std::fprintf(stderr, "fuzz seed %llu: replay: %s\n", static_cast<unsigned long long>(seed), replay_line(seed).c_str());
    const auto started = std::chrono::steady_clock::now();
    FuzzRun run(seed);
    const std::vector<std::string> failures = run.run(requests);
    const double real_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    for (const std::string& f : failures) {
      ADD_FAILURE() << "seed " << seed << ": " << f << "\nreplay: " << replay_line(seed);
    }
    std::printf("seed %llu: %d requests in %d rounds (%d replies, %d connections closed by the broker), %.1f s virtual, %.2f s real, %s\n",
                static_cast<unsigned long long>(seed), run.sent(), run.rounds(), run.replies(), run.closes(),
                to_ms(run.world().now().time_since_epoch()) / 1000.0, real_s, failures.empty() ? "ok" : "FAILED");
    if (std::getenv("FERRY_FUZZ_STATS") != nullptr) {  // what the requests reached, by request and reply code
      for (const auto& [k, n] : run.outcomes()) std::printf("  request %d -> reply %d: %d\n", k.first, k.second, n);
    }
    std::fflush(stdout);
  }
}

// The oracle the fuzzer judges the broker by: what a stream of bytes owes.
TEST(BrokerFuzz, TheStreamOracleOwesRepliesToTwoWayRequestsAndACloseToABadStream) {
  RemotingCommand two_way = remoting::make_request(rc::GET_MAX_OFFSET, 41);
  RemotingCommand oneway = remoting::make_request(rc::HEART_BEAT, 42);
  oneway.mark_oneway();
  RemotingCommand binary = remoting::make_request(rc::PULL_MESSAGE, 43, remoting::SerializeType::rocketmq);
  std::vector<std::uint8_t> stream;
  for (const RemotingCommand* c : {&two_way, &oneway, &binary}) {
    std::vector<std::uint8_t> f = remoting::encode_frame(*c).value();
    stream.insert(stream.end(), f.begin(), f.end());
  }
  StreamExpectation e = expect_of(stream, remoting::kFrameBytesMaxDefault);
  EXPECT_EQ(e.replies, (std::vector<std::int32_t>{41, 43}));
  EXPECT_FALSE(e.close);
  EXPECT_FALSE(e.incomplete_tail);

  std::vector<std::uint8_t> cut(stream.begin(), stream.end() - 3);  // the last frame is cut short
  e = expect_of(cut, remoting::kFrameBytesMaxDefault);
  EXPECT_EQ(e.replies, (std::vector<std::int32_t>{41}));
  EXPECT_TRUE(e.incomplete_tail);
  EXPECT_FALSE(e.close);

  std::vector<std::uint8_t> bad = stream;
  bad.insert(bad.end(), {0x80, 0, 0, 0});  // a negative totalLen after three good frames
  e = expect_of(bad, remoting::kFrameBytesMaxDefault);
  EXPECT_EQ(e.replies, (std::vector<std::int32_t>{41, 43}));
  EXPECT_TRUE(e.close);
  EXPECT_NE(e.close_reason.find("negative"), std::string::npos) << e.close_reason;
}

}  // namespace
}  // namespace ferry::sim::fuzz
