#include "tests/daemons/client_node.h"

#include <unistd.h>

#include "client/admin_client.h"
#include "client/reply_message.h"
#include "client_api/loop_call.h"

namespace ferry::daemons_test {

namespace {

Task<Status> create_topic_task(client::ClientInstance* ci, std::string cluster, std::string topic, int queues) {
  client::AdminClient admin(*ci);
  remoting::body::TopicConfig config;
  config.topic_name = topic;
  config.read_queue_nums = queues;
  config.write_queue_nums = queues;
  config.perm = 6;
  Task<Status> ct = admin.create_topic_in_cluster(cluster, config);
  Status created = co_await std::move(ct);
  if (!created.ok()) co_return created;
  for (int i = 0; i < 100; ++i) {
    Task<Result<remoting::body::TopicRouteData>> rt = admin.topic_route(topic);
    Result<remoting::body::TopicRouteData> route = co_await std::move(rt);
    if (route.ok()) co_return Status{};
    co_await ci->runtime().sleep(std::chrono::milliseconds(100));
  }
  co_return Error(Errc::timed_out, "no route for topic '" + topic + "' 10 s after creating it");
}

Task<Status> start_producer_task(client::ClientInstance* ci, std::unique_ptr<client::Producer>* out,
                                 client::ProducerConfig config) {
  *out = std::make_unique<client::Producer>(*ci, std::move(config));
  co_return (*out)->start();
}

Task<Status> start_tx_producer_task(client::ClientInstance* ci, std::unique_ptr<client::TransactionProducer>* out,
                                   std::string group, client::TransactionListener listener) {
  client::ProducerConfig pc;
  pc.group = group;
  *out = std::make_unique<client::TransactionProducer>(*ci, pc, std::move(listener));
  co_return (*out)->start();
}

Task<void> make_consumer_task(client::ClientInstance* ci, std::unique_ptr<client::PushConsumer>* out,
                              client::PushConsumerConfig config) {
  *out = std::make_unique<client::PushConsumer>(*ci, config);
  co_return;
}

Task<void> destroy_consumer_task(std::unique_ptr<client::PushConsumer>* c) {
  c->reset();
  co_return;
}

Task<void> shutdown_task(client::ClientInstance* ci, std::unique_ptr<client::Producer>* producer,
                         std::unique_ptr<client::TransactionProducer>* tx) {
  if (*producer) {
    Task<void> t = (*producer)->shutdown();
    co_await std::move(t);
    producer->reset();
  }
  if (*tx) {
    Task<void> t = (*tx)->shutdown();
    co_await std::move(t);
    tx->reset();
  }
  Task<void> t = ci->shutdown();
  co_await std::move(t);
}

}  // namespace

ClientNode::ClientNode(std::string data_dir, std::vector<std::string> namesrv, std::string instance, Duration heartbeat) {
  AsioRuntime::Options opts;
  opts.node_name = instance;
  opts.data_root = std::move(data_dir);
  opts.offload_threads = 4;
  opts.sync_namespace = false;
  rt_ = std::make_unique<AsioRuntime>(opts);
  client::ClientConfig cfg;
  cfg.namesrv_addrs = std::move(namesrv);
  cfg.instance_name = instance;
  cfg.heartbeat_broker_interval = heartbeat;
  cfg.uniq_id_pid = static_cast<std::int32_t>(::getpid());
  cfg.uniq_id_process_hash = static_cast<std::int32_t>(std::hash<std::string>{}(instance));
  ci_ = std::make_unique<client::ClientInstance>(*rt_, cfg);
  // Built before the loop runs; from here on the loop thread owns them.
  loop_ = std::thread([rt = rt_.get()] { rt->run(); });
}

ClientNode::~ClientNode() {
  for (std::size_t i = 0; i < consumers_.size(); ++i) stop_consumer(i);
  blocking_producer_.reset();
  blocking_tx_producer_.reset();
  client_api::call_on_loop(*rt_, [this] { return shutdown_task(ci_.get(), &producer_, &tx_producer_); }).get();
  rt_->stop();
  loop_.join();
  // The loop is not running: this thread is the only one touching the node now.
  ci_.reset();
  rt_.reset();
}

Status ClientNode::create_topic(const std::string& cluster, const std::string& topic, int queues) {
  return client_api::call_on_loop(*rt_, [this, cluster, topic, queues] {
    return create_topic_task(ci_.get(), cluster, topic, queues);
  }).get();
}

Status ClientNode::start_producer(const std::string& group) { return start_producer(client::ProducerConfig{.group = group}); }

Status ClientNode::start_producer(client::ProducerConfig config) {
  Status s =
      client_api::call_on_loop(*rt_, [this, config] { return start_producer_task(ci_.get(), &producer_, config); }).get();
  if (s.ok()) blocking_producer_ = std::make_unique<client_api::BlockingProducer>(*rt_, *producer_);
  return s;
}

Result<client::SendResult> ClientNode::send(Message msg) { return blocking_producer_->send(std::move(msg)).get(); }

Status ClientNode::start_transaction_producer(const std::string& group, client::TransactionListener listener) {
  Status s = client_api::call_on_loop(*rt_, [this, group, listener] {
               return start_tx_producer_task(ci_.get(), &tx_producer_, group, listener);
             }).get();
  if (s.ok()) blocking_tx_producer_ = std::make_unique<client_api::BlockingTransactionProducer>(*rt_, *tx_producer_);
  return s;
}

Result<client::TransactionSendResult> ClientNode::send_in_transaction(Message msg) {
  return blocking_tx_producer_->send_in_transaction(std::move(msg)).get();
}

Result<std::shared_ptr<Received>> ClientNode::start_consumer(client::PushConsumerConfig config, const std::string& topic,
                                                             const std::string& expression) {
  return start_consumer(std::move(config), topic, client::MessageSelector::by_tag(expression));
}

Result<std::shared_ptr<Received>> ClientNode::start_consumer(client::PushConsumerConfig config, const std::string& topic,
                                                             client::MessageSelector selector) {
  return start_with(std::move(config), topic, std::move(selector), {});
}

Result<std::shared_ptr<Received>> ClientNode::start_replier(client::PushConsumerConfig config, const std::string& topic) {
  client_api::BlockingProducer* producer = blocking_producer_.get();
  if (producer == nullptr) return Error(Errc::invalid_argument, "start_replier before start_producer");
  return start_with(std::move(config), topic, client::MessageSelector::by_tag("*"), [producer](const std::vector<MessageExt>& msgs) {
    for (const MessageExt& m : msgs) {
      const std::string pong = "pong:" + std::string(m.body.begin(), m.body.end());
      Result<Message> reply = client::create_reply_message(m, std::vector<std::uint8_t>(pong.begin(), pong.end()));
      if (reply.ok()) (void)producer->send(*std::move(reply)).get();  // the listener runs off the loop: it may wait
    }
  });
}

Result<MessageExt> ClientNode::request(Message msg, Duration timeout) { return blocking_producer_->request(std::move(msg), timeout).get(); }

Result<std::shared_ptr<Received>> ClientNode::start_with(client::PushConsumerConfig config, const std::string& topic,
                                                         client::MessageSelector selector,
                                                         std::function<void(const std::vector<MessageExt>&)> also) {
  Consumer c;
  client_api::call_on_loop(*rt_, [this, &c, config] { return make_consumer_task(ci_.get(), &c.consumer, config); }).get();
  c.blocking = std::make_unique<client_api::BlockingPushConsumer>(*rt_, *c.consumer);
  c.received = std::make_shared<Received>();
  std::shared_ptr<Received> received = c.received;
  Status s = c.blocking->subscribe(topic, std::move(selector)).get();
  if (s.ok()) {
    c.blocking
        ->set_listener([received, also](const std::vector<MessageExt>& msgs, client::ConsumeConcurrentlyContext&) {
          received->add(msgs);
          if (also) also(msgs);
          return client::ConsumeConcurrentlyStatus::CONSUME_SUCCESS;
        })
        .get();
    s = c.blocking->start().get();
  }
  consumers_.push_back(std::move(c));
  if (!s.ok()) {
    stop_consumer(consumers_.size() - 1);
    return std::move(s).error();
  }
  return received;
}

void ClientNode::stop_consumer(std::size_t index) {
  Consumer& c = consumers_.at(index);
  if (!c.consumer) return;
  c.blocking->shutdown().get();
  c.blocking.reset();
  client_api::call_on_loop(*rt_, [&c] { return destroy_consumer_task(&c.consumer); }).get();
}

}  // namespace ferry::daemons_test
