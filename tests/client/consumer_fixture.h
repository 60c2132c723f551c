// Consumers on their own simulated nodes: each ConsumerApp (a ClientInstance and one push or lite
// pull consumer) is built by its node's factory, so world_.kill(node) kills it like a process and
// world_.start(node) brings it back with the same configuration (and its disk). What listeners
// see goes into a Deliveries record owned by the test (outside every node).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "client/lite_pull_consumer.h"
#include "client/push_consumer.h"
#include "tests/client/client_fixture.h"
#include "common/names.h"

namespace ferry::client::testing {

struct Delivery {
  std::string consumer;  // node name
  std::string topic;     // as the listener saw it
  MessageQueue queue;
  QueueOffset offset;
  std::string body;
  std::int32_t reconsume_times = 0;
  MonoTime at{};
  std::string msg_id;     // UNIQ_KEY (else the offset msgId)
  Properties properties;  // as the listener saw them
};

struct Deliveries {
  std::vector<Delivery> all;
  std::map<std::string, int> count_by_body;
  std::map<std::string, std::set<std::string>> bodies_by_consumer;

  void record(const std::string& consumer, const MessageExt& m, const MessageQueue& q, MonoTime at) {
    Delivery d{consumer, m.topic, q, m.queue_offset, body_text(m), m.reconsume_times, at, std::string(m.msg_id()), m.properties};
    ++count_by_body[d.body];
    bodies_by_consumer[consumer].insert(d.body);
    all.push_back(std::move(d));
  }
  std::set<std::string> bodies() const {
    std::set<std::string> s;
    for (const auto& [b, n] : count_by_body) s.insert(b);
    return s;
  }
  // Every delivery of `body`, in order.
  std::vector<const Delivery*> of(const std::string& body) const {
    std::vector<const Delivery*> ds;
    for (const Delivery& d : all) {
      if (d.body == body) ds.push_back(&d);
    }
    return ds;
  }
  int duplicates() const {
    int d = 0;
    for (const auto& [b, n] : count_by_body) d += n - 1;
    return d;
  }
};

struct ConsumerApp {
  ConsumerApp(Runtime& rt, const ClientConfig& cc, const PushConsumerConfig& pc)
      : instance(std::make_unique<ClientInstance>(rt, cc)), push(std::make_unique<PushConsumer>(*instance, pc)) {}
  // On a Runtime of its own that wraps the node's (e.g. slow_listener_runtime.h); the wrapper
  // outlives the client objects.
  ConsumerApp(std::unique_ptr<Runtime> wrapper, const ClientConfig& cc, const PushConsumerConfig& pc)
      : own_runtime(std::move(wrapper)),
        instance(std::make_unique<ClientInstance>(*own_runtime, cc)),
        push(std::make_unique<PushConsumer>(*instance, pc)) {}
  ConsumerApp(Runtime& rt, const ClientConfig& cc, const LitePullConsumerConfig& lc)
      : instance(std::make_unique<ClientInstance>(rt, cc)), lite(std::make_unique<LitePullConsumer>(*instance, lc)) {}
  ~ConsumerApp() {
    push.reset();
    lite.reset();
    instance.reset();
  }
  std::unique_ptr<Runtime> own_runtime;  // first: destroyed last
  std::unique_ptr<ClientInstance> instance;
  std::unique_ptr<PushConsumer> push;
  std::unique_ptr<LitePullConsumer> lite;
};

class ConsumerTest : public ClientTest {
 protected:
  explicit ConsumerTest(std::uint64_t seed = 11) : ClientTest(seed) {}

  using Setup = std::function<void(PushConsumer&, Runtime&)>;
  // Builds the Runtime the node's client runs on, over the node's own.
  using WrapRuntime = std::function<std::unique_ptr<Runtime>(Runtime&)>;

  // A push consumer on a new node named `name`; `setup` subscribes and sets the listener (at
  // every start of the node); `wrap`, when given, puts the client on a wrapping Runtime.
  // Returns the node id.
  sim::NodeId add_push_consumer(const std::string& name, PushConsumerConfig pc, Setup setup, WrapRuntime wrap = {}) {
    ClientConfig cc = client_config();
    cc.instance_name = name;
    auto id = world_.add_node(name, [cc, pc, setup, wrap](Runtime& rt) {
      auto app = wrap ? std::make_unique<ConsumerApp>(wrap(rt), cc, pc) : std::make_unique<ConsumerApp>(rt, cc, pc);
      setup(*app->push, wrap ? *app->own_runtime : rt);
      Status s = app->push->start();
      FERRY_ASSERT(s.ok(), "consumer start: {}", s.ok() ? "" : s.error().to_string());
      return sim::hosted(std::move(app));
    });
    return id;
  }

  // The common case: subscribe `topic` to `expr`, record into `out`, answer with `status`.
  Setup recording(std::string topic, std::string expr, std::shared_ptr<Deliveries> out, std::string name,
                  std::function<ConsumeConcurrentlyStatus(const MessageExt&)> status = {}) {
    return [topic, expr, out, name, status](PushConsumer& c, Runtime& rt) {
      Status s = c.subscribe(topic, expr);
      FERRY_ASSERT(s.ok(), "subscribe: {}", s.ok() ? "" : s.error().to_string());
      Runtime* r = &rt;
      c.set_listener([out, name, status, r](const std::vector<MessageExt>& msgs, ConsumeConcurrentlyContext& ctx) {
        for (const MessageExt& m : msgs) {
          out->record(name, m, ctx.queue, r->now());
          if (status) {
            ConsumeConcurrentlyStatus st = status(m);
            if (st != ConsumeConcurrentlyStatus::CONSUME_SUCCESS) return st;
          }
        }
        return ConsumeConcurrentlyStatus::CONSUME_SUCCESS;
      });
    };
  }

  ConsumerApp& app(sim::NodeId id) {
    auto* p = dynamic_cast<sim::Hosted<ConsumerApp>*>(world_.node(id).process());
    FERRY_ASSERT(p != nullptr, "consumer node {} is down", world_.node(id).node_name());
    return p->get();
  }
  PushConsumer& push(sim::NodeId id) { return *app(id).push; }

  // Shuts the node's consumer and instance down gracefully, then stops the node.
  void stop_consumer(sim::NodeId id) {
    ConsumerApp& a = app(id);
    auto r = world_.run_task(id, graceful(&a), std::chrono::seconds(30));
    ASSERT_TRUE(r.ok()) << r.report.message << " seed " << world_.options().seed;
    world_.kill(id);
  }
  static Task<void> graceful(ConsumerApp* a) {
    if (a->push) co_await a->push->shutdown();
    if (a->lite) co_await a->lite->shutdown();
    co_await a->instance->shutdown();
  }

  // Sends `n` messages "prefix<i>" to `topic` (tag `tag`) and returns their bodies.
  std::set<std::string> send_n(const std::string& topic, int n, const std::string& prefix, const std::string& tag = {}) {
    Producer& p = producers_.empty() ? producer() : *producers_.front();
    std::set<std::string> sent;
    for (int i = 0; i < n; ++i) {
      std::string body = numbered(prefix, i);
      Result<SendResult> r = run(p.send(text_message(topic, body, tag)));
      EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string()) << " seed " << world_.options().seed;
      if (r.ok()) sent.insert(body);
    }
    return sent;
  }

  // Runs until `out` holds every body of `want` (or `limit` passes).
  bool wait_all(const std::shared_ptr<Deliveries>& out, const std::set<std::string>& want, Duration limit) {
    auto r = world_.run_until(
        [&] {
          for (const std::string& b : want) {
            if (out->count_by_body.count(b) == 0) return false;
          }
          return true;
        },
        limit);
    return r.ok();
  }

  std::string seed_text() { return fmt::format(" seed {} trace {}", world_.options().seed, world_.trace_hash()); }
};

}  // namespace ferry::client::testing
