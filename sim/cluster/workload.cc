#include "sim/history/selection.h"
#include "sim/cluster/workload.h"

#include <fmt/format.h>

#include <charconv>

#include "client/queue_selector.h"
#include "client/transaction_producer.h"
#include "common/big_endian.h"
#include "common/crc.h"
#include "common/message_const.h"
#include "runtime/assert.h"
#include "sim/cluster/consumer_apps.h"
#include "sim/history/acked_progress.h"
#include "sim/history/pop_progress.h"

namespace ferry::sim::cluster {

// ---- bodies --------------------------------------------------------------------------------

namespace {

constexpr std::string_view kCheck = ";c=";
constexpr std::size_t kCheckHexBytes = 8;

std::uint32_t checksum(std::string_view fields, std::string_view padding) {
  const std::uint32_t a = crc32_update(0, as_bytes(fields));
  return crc32_update(a, as_bytes(padding));
}

std::optional<std::string_view> field(std::string_view text, std::string_view name, std::string_view* rest) {
  if (text.substr(0, name.size()) != name) return std::nullopt;
  text.remove_prefix(name.size());
  const auto semi = text.find(';');
  if (semi == std::string_view::npos) return std::nullopt;
  *rest = text.substr(semi + 1);
  return text.substr(0, semi);
}

}  // namespace

std::string make_body(const BodyFields& f, std::size_t size_bytes) {
  const std::string head = fmt::format("p={};s={};k={}", f.producer, f.seq, f.key);
  const std::size_t fixed = head.size() + kCheck.size() + kCheckHexBytes + 1;
  const std::string padding(size_bytes > fixed ? size_bytes - fixed : 0, static_cast<char>('a' + f.seq % 26));
  return fmt::format("{}{}{:08x};{}", head, kCheck, checksum(head, padding), padding);
}

std::optional<BodyFields> parse_body(std::string_view body) {
  const auto check_at = body.find(kCheck);
  if (check_at == std::string_view::npos) return std::nullopt;
  const std::string_view head = body.substr(0, check_at);
  std::string_view after = body.substr(check_at + kCheck.size());
  if (after.size() < kCheckHexBytes + 1 || after[kCheckHexBytes] != ';') return std::nullopt;
  std::uint32_t want = 0;
  auto [end, ec] = std::from_chars(after.data(), after.data() + kCheckHexBytes, want, 16);
  if (ec != std::errc() || end != after.data() + kCheckHexBytes) return std::nullopt;
  if (checksum(head, after.substr(kCheckHexBytes + 1)) != want) return std::nullopt;
  std::string text(head);
  text += ';';
  std::string_view rest = text;
  BodyFields f;
  auto p = field(rest, "p=", &rest);
  auto s = field(rest, "s=", &rest);
  auto k = field(rest, "k=", &rest);
  if (!p || !s || !k || !rest.empty()) return std::nullopt;
  auto [send, sec] = std::from_chars(s->data(), s->data() + s->size(), f.seq);
  if (sec != std::errc() || send != s->data() + s->size()) return std::nullopt;
  f.producer = std::string(*p);
  f.key = std::string(*k);
  return f;
}

// ---- apps ----------------------------------------------------------------------------------

namespace {

// A producer node's component. Its loop runs in the node's task set, so a crash destroys the loop
// before the app; `history` and the sequence live outside the node.
class ProducerApp final : public ClientApp {
 public:
  ProducerApp(Runtime& rt, const client::ClientConfig& cc, ProducerSpec spec, std::shared_ptr<History> history)
      : rt_(rt), spec_(std::move(spec)), history_(std::move(history)), name_(cc.instance_name) {
    spec_.config.group = spec_.group;
    instance_ = std::make_unique<client::ClientInstance>(rt, cc);
    instance_->start();
    Status started;
    if (spec_.transactions) {
      client::TransactionListener listener;
      listener.check = [history = history_, answers = spec_.transactions->check_answers](const MessageExt& half) {
        return answer_check(*history, answers, half);
      };
      tx_ = std::make_unique<client::TransactionProducer>(*instance_, spec_.config, std::move(listener));
      started = tx_->start();
    } else {
      producer_ = std::make_unique<client::Producer>(*instance_, spec_.config);
      started = producer_->start();
    }
    FERRY_ASSERT(started.ok(), "producer {} did not start: {}", name_, started.ok() ? "" : started.error().to_string());
    history_->record_event(rt.now(), EventKind::start, name_, "producer started");
    if (spec_.config.send_latency_fault_enable) {
      const auto held = history_->hold();
      history_->latency_fault_producers.insert(name_);
    }
    rt.spawn(run(this), "workload-producer");
  }
  ~ProducerApp() override {
    tx_.reset();
    producer_.reset();
    instance_.reset();
  }
  bool done() const { return done_ && verdicts_pending_ == 0 && requests_pending_ == 0; }
  const client::ClientInstance& client_instance() const override { return *instance_; }

 private:
  // The selector of an ordered send (ProducerSpec::selector).
  client::QueueSelector selector(const std::string& key, std::uint64_t seq) const {
    if (spec_.selector == ProducerSpec::Selector::rotate) {
      return [seq](std::span<const MessageQueue> queues, const Message&, Random&) { return static_cast<std::size_t>(seq % queues.size()); };
    }
    return client::select_by_hash(key);
  }

  // The answer to a check of `half`, from the database (ProducerSpec::Transactions).
  static client::LocalTransactionState answer_check(History& h, ProducerSpec::Transactions::CheckAnswers answers,
                                                    const MessageExt& half) {
    if (answers == ProducerSpec::Transactions::CheckAnswers::always_commit) return client::LocalTransactionState::commit;
    const std::string_view body(reinterpret_cast<const char*>(half.body.data()), half.body.size());
    const std::optional<BodyFields> f = parse_body(body);
    if (!f) return client::LocalTransactionState::unknown;
    auto held = h.hold();
    for (auto it = h.sends.rbegin(); it != h.sends.rend(); ++it) {  // checks are rare: a scan will do
      if (it->seq != f->seq || it->producer != f->producer) continue;
      switch (it->fate) {
        case TxFate::commit: return client::LocalTransactionState::commit;
        case TxFate::rollback: return client::LocalTransactionState::rollback;
        case TxFate::none: return client::LocalTransactionState::unknown;  // its send is in flight
      }
    }
    return client::LocalTransactionState::unknown;
  }

  // One message as a transaction: the half message and its fate; the local phase and the verdict
  // run on (finish_transaction), so that local transactions overlap as a service's do and the
  // producer keeps its rate.
  static Task<void> send_transaction(ProducerApp* self, Message m, std::size_t index) {
    Runtime& rt = self->rt_;
    History& h = *self->history_;
    const ProducerSpec::Transactions& tx = *self->spec_.transactions;
    Task<Result<client::TransactionSendResult>> sending = self->tx_->send_half(std::move(m));
    Result<client::TransactionSendResult> r = co_await std::move(sending);
    auto held = h.hold();
    SendRecord& rec = h.sends[index];
    rec.done_at = rt.now();
    rec.queue_offset = QueueOffset(-1);  // the half queue's offset: not where the message will be
    rec.fate = TxFate::rollback;         // unless acknowledged SEND_OK, the local transaction never runs
    if (r.ok()) {
      rec.queue = r->send.queue;
      const bool ok = r->send.status == client::SendStatus::SEND_OK;
      rec.outcome = ok ? SendOutcome::ok : SendOutcome::stored_not_durable;
      rec.detail = ok ? "" : std::string(client::name(r->send.status));
      if (ok) {
        rec.fate = rt.random().below(100) < static_cast<std::uint64_t>(tx.rollback_percent) ? TxFate::rollback : TxFate::commit;
        rec.by_check = rt.random().below(100) < static_cast<std::uint64_t>(tx.unknown_percent);
      }
    } else {
      rec.outcome = r.error().code == Errc::invalid_argument ? SendOutcome::failed : SendOutcome::unknown;
      rec.detail = r.error().to_string();
    }
    if (!r.ok()) co_return;
    const client::LocalTransactionState verdict = rec.by_check                 ? client::LocalTransactionState::unknown
                                                  : rec.fate == TxFate::commit ? client::LocalTransactionState::commit
                                                                               : client::LocalTransactionState::rollback;
    held.unlock();
    ++self->verdicts_pending_;
    rt.spawn(finish_transaction(self, *std::move(r), verdict, index), "workload-transaction");
  }

  // The local phase (local_time), then the verdict. A crash of the node ends it: no verdict.
  static Task<void> finish_transaction(ProducerApp* self, client::TransactionSendResult half, client::LocalTransactionState verdict,
                                       std::size_t index) {
    Runtime& rt = self->rt_;
    const Duration local = self->spec_.transactions->local_time;
    if (local > Duration{}) co_await rt.sleep(local);
    Task<void> ending = self->tx_->end_transaction(half, verdict);
    co_await std::move(ending);
    auto held = self->history_->hold();
    self->history_->sends[index].verdict_at = rt.now();
    --self->verdicts_pending_;
  }

  // One request (ProducerSpec::requests): recorded now, resolved by its callback — never after
  // the producer is gone (a crash destroys it with its requests, which stay pending).
  void send_request(Message m, std::size_t send_index, std::uint64_t seq) {
    History& h = *history_;
    const Duration timeout = spec_.requests->timeout;
    std::size_t index = 0;
    {
      auto held = h.hold();
      index = h.requests.size();
      RequestRecord rec;
      rec.requester = name_;
      rec.seq = seq;
      rec.sent_at = rt_.now();
      rec.timeout = timeout;
      h.requests.push_back(std::move(rec));
    }
    ++requests_pending_;
    producer_->request_async(
        std::move(m),
        [this, index, send_index](Result<MessageExt> r) {
          History& hist = *history_;
          auto held = hist.hold();
          RequestRecord& rec = hist.requests[index];
          SendRecord& send = hist.sends[send_index];
          rec.done_at = rt_.now();
          send.done_at = rt_.now();
          if (r.ok()) {
            const std::string_view body(reinterpret_cast<const char*>(r->body.data()), r->body.size());
            const std::optional<BodyFields> f = parse_body(body);
            rec.outcome = RequestOutcome::replied;
            rec.reply_of = f ? fmt::format("{}#{}", f->producer, f->seq) : "corrupt";
            send.detail = "request replied";
          } else {
            const bool waited = r.error().detail.find("wait reply message timeout") != std::string::npos;
            rec.outcome = waited ? RequestOutcome::timed_out : RequestOutcome::failed;
            rec.detail = r.error().to_string();
            send.detail = fmt::format("request {}: {}", request_outcome_name(rec.outcome), rec.detail);
          }
          --requests_pending_;
        },
        timeout);
  }

  static Task<void> run(ProducerApp* self) {
    Runtime& rt = self->rt_;
    History& h = *self->history_;
    for (;;) {
      auto held = h.hold();
      std::uint64_t& next = h.next_seq[self->name_];
      if (next >= self->spec_.messages) break;
      const std::uint64_t seq = next++;
      const std::string& key = self->spec_.keys.at(rt.random().below(self->spec_.keys.size()));
      Message m;
      m.topic = self->spec_.topic;
      const std::string body = make_body(BodyFields{self->name_, seq, key}, self->spec_.body_bytes);
      m.body.assign(body.begin(), body.end());
      m.set_keys(key);
      if (self->spec_.selector_properties) {
        m.properties.set(std::string(sim::kSelectorSeqProperty), std::to_string(seq % sim::kSelectorModulus));
      }
      std::optional<Duration> timer;
      if (self->spec_.timers) {
        const std::int64_t lo = to_ms(self->spec_.timers->min);
        const std::int64_t hi = to_ms(self->spec_.timers->max);
        const std::int64_t ms = lo + static_cast<std::int64_t>(rt.random().below(static_cast<std::uint64_t>(hi - lo + 1)));
        m.properties.set(std::string(prop::kTimerDelayMs), std::to_string(ms * self->spec_.timers->asked_percent / 100));
        timer = std::chrono::milliseconds(ms);
      }
      const std::size_t index = h.sends.size();
      SendRecord sending_record{self->name_, seq, key, self->spec_.topic, SendOutcome::unknown, "in flight", {}, {}, rt.now(), {}};
      sending_record.ordered = self->spec_.ordered;
      sending_record.timer_delay = timer;
      h.sends.push_back(std::move(sending_record));
      held.unlock();
      if (self->spec_.requests) {
        self->send_request(std::move(m), index, seq);
        co_await rt.sleep(self->spec_.interval);
        continue;
      }
      if (self->tx_) {
        Task<void> transaction = send_transaction(self, std::move(m), index);
        co_await std::move(transaction);
        co_await rt.sleep(self->spec_.interval);
        continue;
      }
      // (No co_await inside a conditional expression: GCC 12 miscompiles it.)
      Task<Result<client::SendResult>> sending = self->spec_.ordered ? self->producer_->send(std::move(m), self->selector(key, seq))
                                                                     : self->producer_->send(std::move(m));
      Result<client::SendResult> r = co_await std::move(sending);
      held.lock();
      SendRecord& rec = h.sends[index];
      rec.done_at = rt.now();
      if (r.ok()) {
        rec.queue = r->queue;
        // A timer's reply names the timer topic's offset: where it is delivered is not known yet.
        rec.queue_offset = rec.timer_delay ? QueueOffset(-1) : r->queue_offset;
        rec.outcome = r->status == client::SendStatus::SEND_OK ? SendOutcome::ok : SendOutcome::stored_not_durable;
        rec.detail = r->status == client::SendStatus::SEND_OK ? "" : std::string(client::name(r->status));
      } else {
        // Retries may have stored an earlier attempt; only a refusal before any send is certain.
        rec.outcome = r.error().code == Errc::invalid_argument ? SendOutcome::failed : SendOutcome::unknown;
        rec.detail = r.error().to_string();
      }
      held.unlock();
      co_await rt.sleep(self->spec_.interval);
    }
    self->done_ = true;
  }

  Runtime& rt_;
  ProducerSpec spec_;
  std::shared_ptr<History> history_;
  std::string name_;
  std::unique_ptr<client::ClientInstance> instance_;
  std::unique_ptr<client::Producer> producer_;           // ordinary sends
  std::unique_ptr<client::TransactionProducer> tx_;      // or transactions (spec_.transactions)
  std::size_t verdicts_pending_ = 0;                      // transactions in their local phase
  std::size_t requests_pending_ = 0;                      // requests awaiting their reply
  bool done_ = false;
};

}  // namespace

ClientFactory producer_app(ProducerSpec spec, std::shared_ptr<History> history) {
  FERRY_ASSERT(!spec.keys.empty(), "ProducerSpec for topic {} has no keys", spec.topic);
  return [spec, history](Runtime& rt, const client::ClientConfig& cc) -> std::unique_ptr<NodeProcess> {
    return std::make_unique<ProducerApp>(rt, cc, spec, history);
  };
}

ClientFactory consumer_app(ConsumerSpec spec, std::shared_ptr<History> history) {
  return [spec, history](Runtime& rt, const client::ClientConfig& cc) -> std::unique_ptr<NodeProcess> {
    return std::make_unique<PushConsumerApp>(rt, cc, spec, false, history);
  };
}

ClientFactory orderly_consumer_app(ConsumerSpec spec, std::shared_ptr<History> history) {
  return [spec, history](Runtime& rt, const client::ClientConfig& cc) -> std::unique_ptr<NodeProcess> {
    return std::make_unique<PushConsumerApp>(rt, cc, spec, true, history);
  };
}

ClientFactory lite_pull_consumer_app(ConsumerSpec spec, std::shared_ptr<History> history) {
  return [spec, history](Runtime& rt, const client::ClientConfig& cc) -> std::unique_ptr<NodeProcess> {
    return std::make_unique<LitePullConsumerApp>(rt, cc, spec, history);
  };
}

ClientFactory pop_consumer_app(ConsumerSpec spec, std::shared_ptr<History> history) {
  return [spec, history](Runtime& rt, const client::ClientConfig& cc) -> std::unique_ptr<NodeProcess> {
    return std::make_unique<PopConsumerApp>(rt, cc, spec, history);
  };
}

namespace {

ConsumerNode* consumer_node(Cluster& c, NodeId node) { return dynamic_cast<ConsumerNode*>(c.world().node(node).process()); }

}  // namespace

client::PushConsumer* push_consumer_of(Cluster& c, NodeId node) {
  ConsumerNode* app = consumer_node(c, node);
  return app ? app->push() : nullptr;
}

client::LitePullConsumer* lite_pull_consumer_of(Cluster& c, NodeId node) {
  ConsumerNode* app = consumer_node(c, node);
  return app ? app->lite_pull() : nullptr;
}

std::optional<std::vector<MessageQueue>> held_queues_of(Cluster& c, NodeId node) {
  ConsumerNode* app = consumer_node(c, node);
  if (app == nullptr) return std::nullopt;
  return app->held_queues();
}

const client::ClientInstance* client_instance_of(Cluster& c, NodeId node) {
  auto* app = dynamic_cast<ClientApp*>(c.world().node(node).process());
  return app ? &app->client_instance() : nullptr;
}

bool producer_done(Cluster& c, NodeId node) {
  auto* app = dynamic_cast<ProducerApp*>(c.world().node(node).process());
  return app != nullptr && app->done();
}

// ---- liveness requirements -----------------------------------------------------------------

// Both are asked after every event of the liveness phase: an AckedProgress carries what it has
// seen instead of scanning the whole History each time.
Convergence all_acked_consumed(std::shared_ptr<History> history, std::string group) {
  auto progress = std::make_shared<sim::AckedProgress>(sim::AckedProgress::for_group(history, group));
  return Convergence{"acknowledged messages consumed by " + group, [progress]() -> std::optional<std::string> {
                       const auto [n, first] = progress->missing();
                       if (n == 0) return std::nullopt;
                       return fmt::format("{} acknowledged messages not consumed yet (first: {})", n, first->id());
                     }};
}

Convergence pop_deliveries_settled(std::shared_ptr<History> history, std::string group) {
  auto progress = std::make_shared<sim::PopProgress>(history, group, kPopRetryMaxTimes);
  return Convergence{"POP deliveries of " + group + " acknowledged", [progress]() -> std::optional<std::string> {
                       const auto [n, latest] = progress->unsettled();
                       if (n == 0) return std::nullopt;
                       return fmt::format("{} messages out without an ack (first: {}, last handed to {} at {} ms)", n, latest->id(),
                                          latest->consumer, ms_of(latest->at));
                     }};
}

Convergence all_acked_consumed_by(std::shared_ptr<History> history, std::string consumer) {
  auto progress = std::make_shared<sim::AckedProgress>(sim::AckedProgress::for_consumer(history, consumer));
  return Convergence{"acknowledged messages consumed by broadcast consumer " + consumer, [progress]() -> std::optional<std::string> {
                       const auto [n, first] = progress->missing();
                       if (n == 0) return std::nullopt;
                       return fmt::format("{} acknowledged messages not consumed yet (first: {})", n, first->id());
                     }};
}

std::optional<std::string> assignment_gap(const ClusterSpec& spec, const std::string& topic, const std::vector<HeldQueues>& consumers,
                                          bool broadcast) {
  std::int32_t queues = 0;
  for (const TopicSpec& t : spec.topics) {
    if (t.name == topic) queues = t.queues;
  }
  std::map<MessageQueue, std::string> holder;
  std::size_t up = 0;
  for (const HeldQueues& k : consumers) {
    if (!k.held) continue;
    ++up;
    if (broadcast) {
      // Broadcasting: every consumer that is up holds every queue.
      const std::set<MessageQueue> has(k.held->begin(), k.held->end());
      for (const BrokerGroupSpec& g : spec.brokers) {
        for (std::int32_t i = 0; i < queues; ++i) {
          const MessageQueue q{topic, g.name, QueueId(i)};
          if (has.count(q) == 0) return fmt::format("{} not held by {}", q.to_string(), k.name);
        }
      }
      continue;
    }
    for (const MessageQueue& q : *k.held) {
      if (q.topic != topic) continue;
      auto [it, fresh] = holder.emplace(q, k.name);
      if (!fresh) return fmt::format("{} held by both {} and {}", q.to_string(), it->second, k.name);
    }
  }
  if (up == 0) return std::string("no consumer is up");
  if (broadcast) return std::nullopt;
  for (const BrokerGroupSpec& g : spec.brokers) {
    for (std::int32_t i = 0; i < queues; ++i) {
      const MessageQueue q{topic, g.name, QueueId(i)};
      if (holder.count(q) == 0) return fmt::format("{} held by nobody", q.to_string());
    }
  }
  return std::nullopt;
}

std::string assignment_name(const std::string& topic, bool broadcast) {
  return broadcast ? "queues of " + topic + " held by every broadcast consumer" : "queues of " + topic + " assigned";
}

Convergence consumers_assigned(Cluster& c, std::string topic, std::vector<NodeId> consumers, bool broadcast) {
  return Convergence{assignment_name(topic, broadcast), [&c, topic, consumers, broadcast]() -> std::optional<std::string> {
                       std::vector<HeldQueues> held;
                       for (NodeId n : consumers) held.push_back(HeldQueues{c.name_of(n), held_queues_of(c, n)});
                       return assignment_gap(c.spec(), topic, held, broadcast);
                     }};
}

Convergence producers_done(Cluster& c, std::vector<NodeId> producers) {
  return Convergence{"producers done", [&c, producers]() -> std::optional<std::string> {
                       for (NodeId n : producers) {
                         if (!producer_done(c, n)) return c.name_of(n) + " has not finished";
                       }
                       return std::nullopt;
                     }};
}

}  // namespace ferry::sim::cluster
