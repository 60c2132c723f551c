#include "tests/client/asio_cluster.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "runtime/log.h"

namespace ferry::client::asio_testing {

void hung(const std::string& what) {
  std::fprintf(stderr, "FATAL: %s did not finish within %lld s; aborting the test binary\n", what.c_str(),
               static_cast<long long>(kWaitLimit.count()));
  std::fflush(stderr);
  std::abort();
}

namespace {

// A port on 127.0.0.1 nobody listened on a moment ago (bind to 0, read it, close).
std::uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) hung("socket()");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) hung("bind to a free port");
  socklen_t len = sizeof(a);
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) hung("getsockname");
  ::close(fd);
  return ntohs(a.sin_port);
}

store::StoreConfig small_store() {
  store::StoreConfig c;
  c.commit_log_file_size_bytes = 4 << 20;
  c.message_size_max_bytes = 1 << 20;
  c.consume_queue_units_per_file = 1000;
  c.index_geometry = store::IndexGeometry{64, 1024};
  // These brokers write a few MiB on the machine's real disk, which CI shares with other work
  // (a run once failed here with the host at 90%). Disk pressure is tested in simulation
  // (store_cleanup_sim_test, next_file_room_test); here only a truly full disk refuses puts.
  c.disk_max_used_space_ratio_pct = 100;
  c.disk_space_clean_forcibly_ratio_pct = 100;
  c.disk_space_warning_level_ratio_pct = 100;
  return c;
}

}  // namespace

// ---- LoopThread ------------------------------------------------------------------------------

LoopThread::LoopThread(std::string name, std::string data_root) : name_(std::move(name)) {
  AsioRuntime::Options o;
  o.node_name = name_;
  o.data_root = std::move(data_root);
  o.offload_threads = 4;
  rt_ = std::make_unique<AsioRuntime>(o);
  AsioRuntime* rt = rt_.get();
  thread_ = std::thread([rt] { rt->run(); });
}

LoopThread::~LoopThread() {
  join();
  rt_.reset();
}

void LoopThread::exec(std::function<void()> fn) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> f = done->get_future();
  rt_->executor().post([fn = std::move(fn), done] {
    fn();
    done->set_value();
  });
  await_future(std::move(f), name_ + ": a function on the loop");
}

void LoopThread::join() {
  if (!thread_.joinable()) return;
  rt_->stop();
  thread_.join();
}

bool eventually(const std::function<bool()>& check) {
  const auto end = std::chrono::steady_clock::now() + kWaitLimit;
  while (std::chrono::steady_clock::now() < end) {
    if (check()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return check();
}

// ---- the cluster -----------------------------------------------------------------------------

void AsioClusterTest::SetUp() {
  if (std::getenv("FERRY_LOG") == nullptr) set_default_log_level(spdlog::level::warn);

  ns_node_ = std::make_unique<LoopThread>("namesrv", dir_ / "namesrv");
  Status ns_started;
  ns_node_->exec([&] {
    namesrv::NameServerConfig c;
    c.listen_host = "127.0.0.1";
    c.listen_port = 0;
    namesrv_ = std::make_unique<namesrv::NameServer>(ns_node_->rt(), c);
    ns_started = namesrv_->start();
    if (ns_started.ok()) namesrv_addr_ = namesrv_->address();
  });
  ASSERT_TRUE(ns_started.ok()) << ns_started.error().to_string();

  start_broker();
  if (HasFatalFailure()) return;

  client_node_ = std::make_unique<LoopThread>("client", dir_ / "client");
  client_node_->exec([&] {
    ClientConfig cc;
    cc.namesrv_addrs = {namesrv_addr_};
    cc.instance_name = "loopback";
    cc.uniq_id_pid = static_cast<std::int32_t>(::getpid() & 0x7fff);
    cc.uniq_id_process_hash = 0x5eed;
    // Shorter rounds than RocketMQ's so that a new %RETRY% topic is picked up quickly.
    cc.rebalance_interval = std::chrono::seconds(1);
    cc.poll_name_server_interval = std::chrono::seconds(1);
    cc.persist_consumer_offset_interval = std::chrono::seconds(1);
    instance_ = std::make_unique<ClientInstance>(client_node_->rt(), cc);
    ProducerConfig pc;
    pc.group = "LoopbackPG";
    producer_ = std::make_unique<Producer>(*instance_, pc);
    admin_ = std::make_unique<AdminClient>(*instance_);
  });
  Status started;
  client_node_->exec([&] { started = producer_->start(); });
  ASSERT_TRUE(started.ok()) << started.error().to_string();
}

void AsioClusterTest::start_broker() {
  // The free port may be taken by somebody else before the broker binds it: try a few, each on a
  // fresh node (a broker that failed to start is destroyed once its loop has stopped).
  Status started = Error(Errc::address_in_use, "not tried");
  for (int attempt = 0; attempt < 5 && !started.ok() && started.error().is(Errc::address_in_use); ++attempt) {
    broker_node_ = std::make_unique<LoopThread>("broker-a", dir_ / "broker");
    broker::BrokerConfig cfg;
    cfg.broker_name = "broker-a";
    cfg.broker_ip1 = "127.0.0.1";
    cfg.listen_port = free_port();
    cfg.namesrv_addr = {namesrv_addr_};
    cfg.store = small_store();
    broker_node_->exec([&] { broker_ = std::make_unique<broker::Broker>(broker_node_->rt(), cfg); });
    broker::Broker* b = broker_.get();
    started = broker_node_->call([b] { return b->start(); });
    if (!started.ok()) {
      broker_node_->call([b] { return b->stop(); });
      broker_node_->join();
      broker_.reset();
      broker_node_.reset();
    }
  }
  ASSERT_TRUE(started.ok()) << started.error().to_string();
  const bool registered = eventually([&] {
    bool done = false;
    broker_node_->exec([&] { done = !broker_->registrar().successes().empty(); });
    return done;
  });
  ASSERT_TRUE(registered) << "the broker did not register with the NameServer";
}

// Each node: stop its components gracefully on the loop, stop the loop, then destroy the
// components (as the daemons do: once the loop no longer runs, nothing resumes into them), then
// the runtime (which destroys the node's remaining task frames).
void AsioClusterTest::TearDown() {
  if (client_node_) {
    for (auto& c : pushes_) {
      PushConsumer* p = c.get();
      if (p != nullptr) client_node_->call([p] { return p->shutdown(); });
    }
    for (auto& c : lites_) {
      LitePullConsumer* l = c.get();
      if (l != nullptr) client_node_->call([l] { return l->shutdown(); });
    }
    if (producer_) {
      Producer* p = producer_.get();
      client_node_->call([p] { return p->shutdown(); });
    }
    if (instance_) {
      ClientInstance* ci = instance_.get();
      client_node_->call([ci] { return ci->shutdown(); });
    }
    client_node_->join();
    pushes_.clear();
    lites_.clear();
    admin_.reset();
    producer_.reset();
    instance_.reset();
    client_node_.reset();
  }
  if (broker_node_) {
    if (broker_) {
      broker::Broker* b = broker_.get();
      broker_node_->call([b] { return b->stop(); });
    }
    broker_node_->join();
    broker_.reset();
    broker_node_.reset();
  }
  if (ns_node_) {
    if (namesrv_) ns_node_->exec([&] { namesrv_->stop(); });
    ns_node_->join();
    namesrv_.reset();
    ns_node_.reset();
  }
}

void AsioClusterTest::create_topic(const std::string& topic, std::int32_t queues) {
  remoting::body::TopicConfig t;
  t.topic_name = topic;
  t.read_queue_nums = queues;
  t.write_queue_nums = queues;
  t.perm = 6;
  AdminClient* admin = admin_.get();
  const std::string addr = broker_->address();
  Status s = client_node_->call([admin, addr, t] { return admin->create_topic(addr, t); });
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  ClientInstance* ci = instance_.get();
  const bool routed = eventually([&] {
    Status r = client_node_->call([ci, topic] { return ci->update_topic_route(topic); });
    std::size_t known = 0;
    client_node_->exec([&] { known = ci->subscribe_queues(topic).size(); });
    return r.ok() && static_cast<std::int32_t>(known) == queues;
  });
  ASSERT_TRUE(routed) << "no route with " << queues << " queues for " << topic;
}

PushConsumer& AsioClusterTest::add_push(PushConsumerConfig config) {
  std::unique_ptr<PushConsumer>& slot = pushes_.emplace_back();
  client_node_->exec([&] { slot = std::make_unique<PushConsumer>(*instance_, config); });
  return *slot;
}

LitePullConsumer& AsioClusterTest::add_lite(LitePullConsumerConfig config) {
  std::unique_ptr<LitePullConsumer>& slot = lites_.emplace_back();
  client_node_->exec([&] { slot = std::make_unique<LitePullConsumer>(*instance_, config); });
  return *slot;
}

Message AsioClusterTest::message(std::string topic, std::string body, std::string tag, std::string keys) {
  Message m;
  m.topic = std::move(topic);
  m.body.assign(body.begin(), body.end());
  if (!tag.empty()) m.set_tags(tag);
  if (!keys.empty()) m.set_keys(std::string_view(keys));
  return m;
}

}  // namespace ferry::client::asio_testing
