#include "client/client_instance.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "client/client_errors.h"
#include "client/producer.h"
#include "common/host_port.h"
#include "common/names.h"
#include "remoting/header/client_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"

namespace ferry::client {

namespace rc = remoting::request_code;
namespace code = remoting::response_code;

namespace {

// How long after start() the first poll and the first heartbeat run (RocketMQ: 10 ms and 1 s).
constexpr Duration kFirstPollDelay = std::chrono::milliseconds(10);
constexpr Duration kFirstHeartbeatDelay = std::chrono::seconds(1);
constexpr Duration kFirstPersistDelay = std::chrono::seconds(10);

std::array<std::uint8_t, 4> ipv4_bytes(const std::string& host) {
  auto hp = HostPort::parse(host + ":0");
  if (!hp || hp->ipv6) return {127, 0, 0, 1};
  return {hp->ip[0], hp->ip[1], hp->ip[2], hp->ip[3]};
}

std::string host_of(Runtime& rt, const ClientConfig& c) {
  return c.client_ip.empty() ? rt.network().host() : c.client_ip;
}

}  // namespace

std::string make_client_id(const ClientConfig& config, const std::string& host) {
  std::string id = fmt::format("{}@{}", host, config.instance_name);
  if (config.unit_name && !config.unit_name->empty()) id += "@" + *config.unit_name;
  return id;
}

ClientInstance::ClientInstance(Runtime& rt, ClientConfig config)
    : rt_(rt),
      config_(std::move(config)),
      client_id_(make_client_id(config_, host_of(rt, config_))),
      rpc_(rt, config_.rpc),
      names_(rt, rpc_, config_.namesrv_addrs, config_.api_timeout),
      uniq_ids_(ipv4_bytes(host_of(rt, config_)), config_.uniq_id_pid, config_.uniq_id_process_hash),
      rebalance_wake_(rt),
      tasks_(rt) {
  config_.check();
  if (!config_.credentials.empty()) {
    rpc_.set_outgoing_hook([creds = config_.credentials](remoting::RemotingCommand& r) { remoting::acl::sign(r, creds); });
  }
  rpc_.register_processor(rc::NOTIFY_CONSUMER_IDS_CHANGED, [this](remoting::RequestContext ctx) {
    return on_consumer_ids_changed(this, std::move(ctx));
  });
  register_broker_requests();
}

ClientInstance::~ClientInstance() {
  inner_producer_.reset();  // its async sends refer to the instance
  tasks_.destroy_all();
  rpc_.shutdown();
}

void ClientInstance::start() {
  if (started_ || shut_down_) return;
  started_ = true;
  rt_.log().info("client instance {} starting (NameServers: {})", client_id_, fmt::join(config_.namesrv_addrs, ";"));
  tasks_.spawn(poll_loop(this), "client-route-poll");
  tasks_.spawn(heartbeat_loop(this), "client-heartbeat");
  tasks_.spawn(rebalance_loop(this), "client-rebalance");
  tasks_.spawn(persist_loop(this), "client-persist-offsets");
}

Task<void> ClientInstance::shutdown() {
  if (shut_down_) co_return;
  shut_down_ = true;
  const std::set<std::string> producers = producers_;
  for (const std::string& g : producers) co_await unregister_producer(g);
  std::vector<std::string> consumer_groups;
  for (const auto& [g, c] : consumers_) consumer_groups.push_back(g);
  for (const std::string& g : consumer_groups) co_await unregister_consumer(g);
  rpc_.shutdown();
  rt_.log().info("client instance {} shut down", client_id_);
  // The loops see shut_down_ at their next wake-up; their frames go with the instance.
}

// ---- registration ---------------------------------------------------------------------------

Status ClientInstance::register_producer(const std::string& group) {
  FERRY_TRY(validate_group(group));
  if (!producers_.insert(group).second) {
    return Error(Errc::invalid_argument, fmt::format("the producer group '{}' is already registered in client {}", group, client_id_));
  }
  if (running()) tasks_.spawn(heartbeat_soon(this), "client-heartbeat-now");
  return {};
}

Result<Producer*> ClientInstance::inner_producer() {
  if (inner_producer_) return inner_producer_.get();
  ProducerConfig c;
  c.group = std::string(kInnerProducerGroup);
  auto p = std::make_unique<Producer>(*this, c);
  Status s = p->start();
  if (!s.ok()) return with_context("the instance's inner producer", std::move(s).error());
  inner_producer_ = std::move(p);
  return inner_producer_.get();
}

Task<void> ClientInstance::unregister_producer(std::string group) {
  if (producers_.erase(group) == 0) co_return;
  co_await unregister_client(group, std::nullopt);
}

Status ClientInstance::register_consumer(const std::string& group, ConsumerHandle* consumer) {
  FERRY_ASSERT(consumer != nullptr, "register_consumer({}) with a null consumer", group);
  FERRY_TRY(validate_group(group));
  if (!consumers_.emplace(group, consumer).second) {
    return Error(Errc::invalid_argument, fmt::format("the consumer group '{}' is already registered in client {}", group, client_id_));
  }
  if (running()) tasks_.spawn(heartbeat_soon(this), "client-heartbeat-now");
  return {};
}

Task<void> ClientInstance::unregister_consumer(std::string group) {
  if (consumers_.erase(group) == 0) co_return;
  co_await unregister_client(std::nullopt, group);
}

void ClientInstance::forget_consumer(const std::string& group, const ConsumerHandle* consumer) {
  auto it = consumers_.find(group);
  if (it != consumers_.end() && it->second == consumer) consumers_.erase(it);
}

Task<void> ClientInstance::unregister_client(std::optional<std::string> producer_group,
                                             std::optional<std::string> consumer_group) {
  // Copy: the table may change while we wait.
  const std::map<std::string, BrokerAddrs> brokers = broker_addrs_;
  for (const auto& [name, addrs] : brokers) {
    for (const auto& [id, addr] : addrs) {
      remoting::UnregisterClientRequestHeader h;
      h.client_id = client_id_;
      h.producer_group = producer_group;
      h.consumer_group = consumer_group;
      remoting::RemotingCommand req = remoting::make_request(rc::UNREGISTER_CLIENT, 0);
      req.ext_fields = h.to_fields();
      Result<remoting::RemotingCommand> r = co_await rpc_.invoke(addr, std::move(req), config_.api_timeout);
      if (!r.ok()) {
        rt_.log().warn("unregister client {} from {} failed: {}", client_id_, broker_where(name, addr), r.error().to_string());
      } else if (r->code != code::SUCCESS) {
        rt_.log().warn("unregister client {}: {}", client_id_, reply_error(broker_where(name, addr), rc::UNREGISTER_CLIENT, *r).detail);
      }
    }
  }
}

// ---- heartbeats -----------------------------------------------------------------------------

remoting::body::HeartbeatData ClientInstance::heartbeat_data() const {
  remoting::body::HeartbeatData hb;
  hb.client_id = client_id_;
  for (const std::string& g : producers_) hb.producer_data_set.push_back(remoting::body::ProducerData{g});
  for (const auto& [g, c] : consumers_) hb.consumer_data_set.push_back(c->consumer_data());
  return hb;
}

Task<std::size_t> ClientInstance::send_heartbeat_to_all() {
  ++heartbeat_rounds_;
  clean_offline_brokers();
  const remoting::body::HeartbeatData hb = heartbeat_data();
  if (hb.producer_data_set.empty() && hb.consumer_data_set.empty()) co_return 0;
  const bool consumers_empty = hb.consumer_data_set.empty();
  const std::vector<std::uint8_t> body = hb.encode();
  const std::map<std::string, BrokerAddrs> brokers = broker_addrs_;
  std::size_t accepted = 0;
  for (const auto& [name, addrs] : brokers) {
    for (const auto& [id, addr] : addrs) {
      if (consumers_empty && id != kMasterId) continue;
      remoting::RemotingCommand req = remoting::make_request(rc::HEART_BEAT, 0);
      req.body = body;
      Result<remoting::RemotingCommand> r = co_await rpc_.invoke(addr, std::move(req), config_.api_timeout);
      if (shut_down_ && !r.ok()) co_return accepted;
      if (!r.ok()) {
        if (auto held = heartbeat_error_log_.admit(rt_.now(), static_cast<std::int64_t>(r.error().code))) {
          rt_.log().info("heartbeat to {} failed: {}{}", broker_where(name, addr), r.error().to_string(),
                         held_back_note(*held));
        }
      } else if (r->code == code::SUCCESS) {
        ++accepted;
        ++heartbeats_accepted_;
      } else if (r->code == code::REQUEST_CODE_NOT_SUPPORTED) {
        // A broker without HEART_BEAT (older Ferry builds): log once per instance.
        if (heartbeat_unsupported_logged_++ == 0) {
          rt_.log().warn("{}", reply_error(broker_where(name, addr), rc::HEART_BEAT, *r).detail);
        }
      } else {
        if (auto held = heartbeat_refused_log_.admit(rt_.now(), r->code)) {
          rt_.log().warn("heartbeat: {}{}", reply_error(broker_where(name, addr), rc::HEART_BEAT, *r).detail,
                         held_back_note(*held));
        }
      }
    }
  }
  co_return accepted;
}

Task<void> ClientInstance::heartbeat_soon(ClientInstance* self) {
  (void)co_await self->send_heartbeat_to_all();
}

Task<void> ClientInstance::heartbeat_loop(ClientInstance* self) {
  co_await self->rt_.sleep(kFirstHeartbeatDelay);
  bool may_skip = false;  // never the first round, nor two in a row
  while (!self->shut_down_) {
    // buggify: a heartbeat round is skipped once (brokers drop a client only after
    // channel_expired_timeout, four intervals; the next round heartbeats).
    if (may_skip && FERRY_BUGGIFY(self->rt_)) {
      may_skip = false;
    } else {
      (void)co_await self->send_heartbeat_to_all();
      may_skip = true;
    }
    co_await self->rt_.sleep(self->config_.heartbeat_broker_interval);
  }
}

Task<void> ClientInstance::poll_loop(ClientInstance* self) {
  co_await self->rt_.sleep(kFirstPollDelay);
  while (!self->shut_down_) {
    co_await self->update_all_routes();
    co_await self->rt_.sleep(self->config_.poll_name_server_interval);
  }
}

// ---- consumers ------------------------------------------------------------------------------

Task<std::optional<remoting::RemotingCommand>> ClientInstance::on_consumer_ids_changed(ClientInstance* self,
                                                                                       remoting::RequestContext ctx) {
  auto h = remoting::NotifyConsumerIdsChangedRequestHeader::from_fields(ctx.request.ext_fields);
  ++self->notifications_;
  // A broker notifies at every change of a group (clients come and go at will): limited.
  if (auto held = self->ids_changed_log_.admit(self->rt_.now(), h.ok() ? 0 : 1)) {
    if (h.ok()) {
      self->rt_.log().info("consumer ids of group '{}' changed: rebalancing{}", h->consumer_group, held_back_note(*held));
    } else {
      self->rt_.log().info("NOTIFY_CONSUMER_IDS_CHANGED with a bad header: {}{}", h.error().to_string(),
                           held_back_note(*held));
    }
  }
  self->rebalance_now();  // RocketMQ rebalances every consumer of the instance
  co_return std::nullopt;  // oneway
}

Task<void> ClientInstance::rebalance_loop(ClientInstance* self) {
  while (!self->shut_down_) {
    (void)co_await self->rebalance_wake_.wait_for(self->config_.rebalance_interval);
    if (self->shut_down_) break;
    for (const auto& [group, c] : self->consumers_) c->rebalance_soon();
  }
}

Task<void> ClientInstance::persist_loop(ClientInstance* self) {
  co_await self->rt_.sleep(kFirstPersistDelay);
  while (!self->shut_down_) {
    // buggify: this round persists no offsets (the next round does; a broker that restarts
    // meanwhile hands out older offsets: at-least-once).
    if (!FERRY_BUGGIFY(self->rt_)) {
      for (const auto& [group, c] : self->consumers_) c->persist_offsets_soon();
    }
    co_await self->rt_.sleep(self->config_.persist_consumer_offset_interval);
  }
}

void ClientInstance::clean_offline_brokers() {
  for (auto it = broker_addrs_.begin(); it != broker_addrs_.end();) {
    bool used = false;
    for (const auto& [topic, route] : routes_) {
      for (const auto& b : route.broker_datas) used = used || b.broker_name == it->first;
    }
    if (used) {
      ++it;
    } else {
      rt_.log().info("broker '{}' is in no route any more; forgetting it", it->first);
      it = broker_addrs_.erase(it);
    }
  }
}

// ---- brokers --------------------------------------------------------------------------------

std::optional<std::string> ClientInstance::master_address(const std::string& broker_name) const {
  auto it = broker_addrs_.find(broker_name);
  if (it == broker_addrs_.end()) return std::nullopt;
  auto m = it->second.find(kMasterId);
  if (m == it->second.end()) return std::nullopt;
  return m->second;
}

std::optional<std::string> ClientInstance::any_address(const std::string& broker_name) const {
  auto it = broker_addrs_.find(broker_name);
  if (it == broker_addrs_.end() || it->second.empty()) return std::nullopt;
  return it->second.begin()->second;  // ids sorted: the master (0) first when present
}

std::optional<ClientInstance::FoundBroker> ClientInstance::subscribe_address(const std::string& broker_name,
                                                                             std::int64_t broker_id) const {
  auto it = broker_addrs_.find(broker_name);
  if (it == broker_addrs_.end() || it->second.empty()) return std::nullopt;
  const BrokerAddrs& addrs = it->second;
  auto exact = addrs.find(broker_id);
  if (exact != addrs.end()) return FoundBroker{exact->second, broker_id};
  if (broker_id != kMasterId) {
    auto next = addrs.find(broker_id + 1);
    if (next != addrs.end()) return FoundBroker{next->second, broker_id + 1};
  }
  return FoundBroker{addrs.begin()->second, addrs.begin()->first};  // ids sorted: the master first
}

}  // namespace ferry::client
