#include "namesrv/name_server.h"

#include <optional>
#include <set>
#include <utility>

namespace ferry::namesrv {

using remoting::RemotingCommand;
using remoting::RequestContext;

namespace {

// The processor answers synchronously; the RPC layer wants a Task.
Task<std::optional<RemotingCommand>> ready(RemotingCommand reply) {
  co_return std::optional<RemotingCommand>(std::move(reply));
}

NameServerConfig checked(NameServerConfig config) {
  config.check();
  return config;
}

}  // namespace

NameServer::NameServer(Runtime& rt, NameServerConfig config)
    : rt_(rt),
      config_(checked(std::move(config))),
      routes_(config_.route_limits, rt.log()),
      kv_(config_.kv_limits),
      processor_(rt, config_, routes_, kv_),
      server_(rt, config_.rpc) {
  for (std::int32_t code : RequestProcessor::codes()) {
    // Not a coroutine: it runs process() now and hands back a finished Task.
    server_.register_processor(code, [this](RequestContext ctx) {
      return ready(processor_.process(ctx.channel->id(), ctx.request));
    });
  }
  server_.on_channel_closed([this](const std::shared_ptr<remoting::Channel>& ch) { on_channel_closed(ch); });
  register_metrics();
}

void NameServer::register_metrics() {
  using metrics::SampleSink;
  using metrics::Type;
  metrics_.set_common_labels({{"node_type", "namesrv"}, {"node_id", rt_.node_name()}});
  rpc_metrics_.observe(server_);
  metrics_.callback(Type::gauge, "ferry_namesrv_brokers_live", "Brokers registered and not expired", {},
                    [this](SampleSink& sink) { sink.add({}, static_cast<double>(routes_.live_brokers().size())); });
  metrics_.callback(Type::gauge, "ferry_namesrv_clusters", "Clusters with a broker registered", {},
                    [this](SampleSink& sink) { sink.add({}, static_cast<double>(routes_.cluster_count())); });
  metrics_.callback(Type::gauge, "ferry_namesrv_topics", "Topics with a route", {},
                    [this](SampleSink& sink) { sink.add({}, static_cast<double>(routes_.topic_count())); });
  auto& dropped = metrics_.counter("ferry_namesrv_brokers_dropped_total",
                                   "Brokers dropped from the routes: silent past the broker expiry, or their connection closed",
                                   {"reason"});
  dropped_expired_ = &dropped.with({"expired"});
  dropped_closed_ = &dropped.with({"connection_closed"});
  metrics_.callback(Type::counter, "ferry_connections_refused_total",
                    "Connections closed at once because the server was at maxConnections", {},
                    [this](SampleSink& sink) { sink.add({}, static_cast<double>(server_.refused_connections())); });
}

NameServer::~NameServer() { stop(); }

Status NameServer::start() {
  FERRY_ASSERT(!started_, "NameServer started twice");
  FERRY_ASSERT(!stopped_, "NameServer started after stop()");
  if (config_.acl_enable) {
    FileSystem& files = acl_files_ != nullptr ? *acl_files_ : rt_.fs();
    acl_ = std::make_unique<remoting::acl::AccessControl>(rt_, files, config_.acl_file_path,
                                                          acl_display_.empty() ? config_.acl_file_path : acl_display_,
                                                          remoting::acl::namesrv_policy());
    if (Status loaded = acl_->load(); !loaded) {
      acl_.reset();
      return Error(loaded.error().code, "aclEnable=true but " + loaded.error().detail);
    }
    server_.set_request_guard([this](const remoting::Channel& ch, const RemotingCommand& r) {
      return acl_->check(ch.peer().host, r);
    });
  }
  FERRY_TRY(server_.start(Endpoint{config_.listen_host, config_.listen_port}));
  if (acl_) acl_->start_watching();
  started_ = true;
  arm_scan(config_.scan_initial_delay);
  rt_.log().info("name server listening on {} (listenAddress {}; scan every {} ms, broker expiry {} ms; ACL {})",
                 address(), config_.listen_host, to_ms(config_.scan_interval), to_ms(config_.broker_expiry),
                 acl_ ? "on for write requests" : "off");
  return {};
}

void NameServer::stop() {
  if (stopped_) return;
  stopped_ = true;
  if (started_) rt_.timers().cancel(scan_timer_);
  server_.stop();
  if (acl_) acl_->stop();
}

void NameServer::arm_scan(Duration delay) {
  // buggify: the next scan of inactive brokers runs at an odd moment, early (it drops only
  // brokers silent for broker_expiry, whenever it runs).
  if (FERRY_BUGGIFY(rt_)) delay = std::chrono::milliseconds(rt_.random().between(0, to_ms(delay)));
  scan_timer_ = rt_.timers().schedule(delay, [this] {
    if (stopped_) return;
    (void)scan_not_active_brokers();
    arm_scan(config_.scan_interval);
  });
}

std::size_t NameServer::scan_not_active_brokers() {
  std::vector<ExpiredBroker> expired = routes_.drop_expired(rt_.now(), config_.broker_expiry);
  if (expired.empty()) return 0;
  dropped_expired_->inc(expired.size());
  // Close the connections they registered on (RocketMQ does too); brokers reconnect and
  // re-register. The tables no longer name these brokers, so the close hook finds only brokers
  // that shared the connection.
  std::set<ChannelId> doomed;
  for (const ExpiredBroker& e : expired) {
    if (e.channel != kNoChannel) doomed.insert(e.channel);
  }
  for (const std::shared_ptr<remoting::Channel>& ch : server_.channels()) {
    if (doomed.count(ch->id()) > 0) ch->close("broker expired");
  }
  return expired.size();
}

void NameServer::on_channel_closed(const std::shared_ptr<remoting::Channel>& channel) {
  std::vector<std::string> dropped = routes_.drop_channel(channel->id());
  if (!dropped.empty()) {
    dropped_closed_->inc(dropped.size());
    if (auto held = dropped_closed_log_.admit(rt_.now())) {
      rt_.log().info("connection from {} closed: dropped {} broker(s){}", channel->peer_text(), dropped.size(),
                     held_back_note(*held));
    }
  }
}

}  // namespace ferry::namesrv
