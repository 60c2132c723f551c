// Consumers on their own simulated client nodes (Cluster::add_client): each ConsumerApp (a
// ClientInstance and one push or lite pull consumer) is built by its node's factory, so
// cluster().kill(node) kills it like a process and cluster().start(node) brings it back with the
// same configuration (and its disk). What listeners see goes into a Deliveries record owned by
// the test (outside every node).
//
// The consumer most tests want is one call:
//   auto out = std::make_shared<Deliveries>();
//   sim::NodeId c = add_push_consumer("consumer-1", push_config("CG"), {"T", out});
// (push_config: consume from the first offset; the Subscription: topic, record, expression,
// the listener's answer per message, a wrapping Runtime).
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "client/lite_pull_consumer.h"
#include "client/push_consumer.h"
#include "common/names.h"
#include "remoting/header/consumer_offset_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"
#include "tests/support/broker_inspector.h"
#include "tests/support/client_fixture.h"


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

// The listener's answer for one message (after it was recorded); may set ctx's delay level.
using Answer = std::function<ConsumeConcurrentlyStatus(const MessageExt&, ConsumeConcurrentlyContext&)>;
// Builds the Runtime a node's client runs on, over the node's own.
using WrapRuntime = std::function<std::unique_ptr<Runtime>(Runtime&)>;

// What a recording push consumer subscribes to and how its listener answers.
struct Subscription {
  std::string topic;
  std::shared_ptr<Deliveries> out;  // every delivery, recorded under the node's name
  std::string expr = "*";
  Answer answer = {};     // CONSUME_SUCCESS when empty; the batch stops at the first other answer
  WrapRuntime wrap = {};  // when set, the client runs on this Runtime over the node's
};

class ConsumerTest : public ClientTest {
 protected:
  explicit ConsumerTest(std::uint64_t seed = 11) : ClientTest(seed) {}

  // Subscribes (or assigns) and sets the listener, at every start of the node.
  using PushSetup = std::function<void(PushConsumer&, Runtime&)>;
  using LiteSetup = std::function<void(LitePullConsumer&)>;

  static PushConsumerConfig push_config(std::string group,
                                        ConsumeFromWhere from = ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET) {
    PushConsumerConfig pc;
    pc.group = std::move(group);
    pc.consume_from_where = from;
    return pc;
  }
  static LitePullConsumerConfig lite_config(std::string group) {
    LitePullConsumerConfig lc;
    lc.group = std::move(group);
    lc.consume_from_where = ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
    return lc;
  }

  // A push consumer node recording every delivery of `sub` (the common case).
  sim::NodeId add_push_consumer(const std::string& name, const PushConsumerConfig& pc, Subscription sub) {
    const WrapRuntime wrap = sub.wrap;
    return add_push_node(name, pc, [name, sub = std::move(sub)](PushConsumer& c, Runtime& rt) {
      const Status s = c.subscribe(sub.topic, sub.expr);
      EXPECT_TRUE(s.ok()) << "subscribe: " << s.error().to_string();
      c.set_listener([name, out = sub.out, answer = sub.answer, r = &rt](const std::vector<MessageExt>& msgs,
                                                                           ConsumeConcurrentlyContext& ctx) {
        for (const MessageExt& m : msgs) {
          out->record(name, m, ctx.queue, r->now());
          if (!answer) continue;
          const ConsumeConcurrentlyStatus st = answer(m, ctx);
          if (st != ConsumeConcurrentlyStatus::CONSUME_SUCCESS) return st;
        }
        return ConsumeConcurrentlyStatus::CONSUME_SUCCESS;
      });
    }, wrap);
  }

  // A push consumer node whose `setup` subscribes and sets any listener (an orderly one, say).
  sim::NodeId add_push_node(const std::string& name, const PushConsumerConfig& pc, PushSetup setup, WrapRuntime wrap = {}) {
    return cluster().add_client(name, [pc, setup, wrap](Runtime& rt, const ClientConfig& cc) -> std::unique_ptr<sim::NodeProcess> {
      auto app = wrap ? std::make_unique<ConsumerApp>(wrap(rt), cc, pc) : std::make_unique<ConsumerApp>(rt, cc, pc);
      setup(*app->push, wrap ? *app->own_runtime : rt);
      const Status s = app->push->start();
      EXPECT_TRUE(s.ok()) << rt.node_name() << ": consumer start: " << s.error().to_string();
      return s.ok() ? sim::hosted(std::move(app)) : nullptr;
    });
  }

  // A lite pull consumer node; `setup` subscribes or assigns (at every start of the node).
  sim::NodeId add_lite_consumer(const std::string& name, const LitePullConsumerConfig& lc, LiteSetup setup) {
    return cluster().add_client(name, [lc, setup](Runtime& rt, const ClientConfig& cc) -> std::unique_ptr<sim::NodeProcess> {
      auto app = std::make_unique<ConsumerApp>(rt, cc, lc);
      setup(*app->lite);
      const Status s = app->lite->start();
      EXPECT_TRUE(s.ok()) << rt.node_name() << ": lite start: " << s.error().to_string();
      return s.ok() ? sim::hosted(std::move(app)) : nullptr;
    });
  }

  ConsumerApp& app(sim::NodeId id) {
    auto* p = dynamic_cast<sim::Hosted<ConsumerApp>*>(world().node(id).process());
    if (p == nullptr) cannot_continue(fmt::format("consumer node {} is down", world().node(id).node_name()));
    return p->get();
  }
  PushConsumer& push(sim::NodeId id) { return *app(id).push; }
  LitePullConsumer& lite(sim::NodeId id) { return *app(id).lite; }
  std::string client_id(sim::NodeId id) { return app(id).instance->client_id(); }
  Runtime& node_rt(sim::NodeId id) { return world().node(id); }

  // Runs `task` on consumer node `id` until it finishes; the test cannot go on if it does not.
  template <typename T>
  T run_on(sim::NodeId id, Task<T> task, Duration limit = std::chrono::seconds(30)) {
    auto r = cluster().run_task(id, std::move(task), limit);
    if (!r.value.has_value()) cannot_continue(fmt::format("a task on {} did not finish: {}", world().node(id).node_name(), r.report.message));
    if constexpr (!std::is_void_v<T>) return std::move(*r.value);
  }

  // Shuts the node's consumer and instance down gracefully, then stops the node.
  void stop_consumer(sim::NodeId id) {
    run_on(id, graceful(&app(id)));
    cluster().kill(id);
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
      EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string()) << seed_text();
      if (r.ok()) sent.insert(body);
    }
    return sent;
  }

  // Runs until `out` holds every body of `want` (or `limit` passes).
  bool wait_all(const std::shared_ptr<Deliveries>& out, const std::set<std::string>& want, Duration limit) {
    return eventually(
        [&] {
          for (const std::string& b : want) {
            if (out->count_by_body.count(b) == 0) return false;
          }
          return true;
        },
        limit);
  }

  // Broker `i` drops every oneway UPDATE_CONSUMER_OFFSET (as a busy broker may) and serves the
  // two-way ones.
  void drop_oneway_offset_updates(std::size_t i) {
    broker::Broker* b = &broker(i);
    b->register_processor(remoting::request_code::UPDATE_CONSUMER_OFFSET,
                          [b](remoting::RequestContext ctx) { return update_offset_unless_oneway(b, std::move(ctx)); });
  }
  static Task<std::optional<remoting::RemotingCommand>> update_offset_unless_oneway(broker::Broker* b,
                                                                                    remoting::RequestContext ctx) {
    if (ctx.request.is_oneway()) co_return std::nullopt;
    auto h = remoting::UpdateConsumerOffsetRequestHeader::from_fields(ctx.request.ext_fields);
    if (!h) co_return remoting::make_response(ctx.request, remoting::response_code::SYSTEM_ERROR, h.error().to_string());
    const Status stored = ::ferry::testing::BrokerInspector(*b).commit_offset(h->consumer_group, h->topic, h->queue_id, h->commit_offset);
    if (!stored) co_return remoting::make_response(ctx.request, remoting::response_code::SYSTEM_ERROR, stored.error().detail);
    co_return remoting::make_response(ctx.request, remoting::response_code::SUCCESS, "");
  }

  // Asks the broker every second (admin consumer_progress of `group` on `topic`) until `done`
  // holds for every queue it reports; false after `limit`. What a user does to see that the
  // broker holds a group's offsets: consumers persist them on their own schedule, which may lag.
  bool wait_progress(const std::string& group, const std::string& topic,
                     const std::function<bool(const QueueProgress&)>& done, Duration limit) {
    const MonoTime until = client_rt().now() + limit;
    for (;;) {
      Result<std::vector<QueueProgress>> prog = run(admin().consumer_progress(group, topic));
      if (prog.ok() && !prog->empty() && std::all_of(prog->begin(), prog->end(), done)) return true;
      if (client_rt().now() >= until) return false;
      cluster().run_for(std::chrono::seconds(1));
    }
  }
};

}  // namespace ferry::client::testing
