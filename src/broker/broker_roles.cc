// The Broker's side of controller mode: what a role the controllers named changes in the broker
// (replicas_manager.h does the store, epochs and replication side).
#include <fmt/format.h>

#include <limits>
#include <utility>

#include "broker/broker.h"
#include "broker/replies.h"
#include "remoting/body/controller_bodies.h"
#include "remoting/body/epoch_acks.h"
#include "remoting/body/topic_list.h"
#include "remoting/body/topic_route_data.h"
#include "remoting/header/route_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"

namespace ferry::broker {

void Broker::start_registering() {
  if (registering_) return;
  registering_ = true;
  rt_.spawn(registrar_.run_loop(), "register-broker");
}

void Broker::became_master() {
  const bool was_slave = config_.broker_role == BrokerRole::slave;
  // RocketMQ 5 makes every controller-mode master a SYNC_MASTER: what a put waits for is then
  // the SyncStateSet's (allAckInSyncStateSet) or inSyncReplicas' business.
  config_.broker_role = BrokerRole::sync_master;
  config_.broker_id = 0;
  slave_sync_.set_enabled(false);
  // First what this log holds becomes readable (a slave's stops at its confirm offset; a new
  // master's SyncStateSet is itself alone): the revive log's replay and the timers read it.
  update_visibility_bound();
  const bool settle = was_slave && !config_.namesrv_addr.empty();
  settling_topics_ = settle;  // no registration as master before the learned topics are settled
  if (was_slave) {
    // The old master's lock holders may still trust their locks (masterEpoch 1 is the group's
    // first master: nobody held a lock of it before).
    if (replicas_ == nullptr || replicas_->master_epoch() > 1) {
      consumer_services_.locks().hold_off_for(config_.rebalance_lock_max_live_time);
    }
    consumer_services_.schedule().start();
    consumer_services_.timers().set_delivering(true);
    pop_.set_master(true);
    adopt_replicated_topics("controller mode");
  }
  // A new dataVersion: the NameServers take this broker's topics as the master's; in controller
  // mode it carries the master epoch as its state version (RocketMQ 5), so that a NameServer
  // ignores an old master's registration that arrives after this one.
  topics_.touch(replicas_ != nullptr ? replicas_->master_epoch() : topics_.data_version().state_version);
  start_registering();
  if (settle) {
    rt_.spawn(settle_learned_topics(this, alive_), "settle-learned-topics");
    return;
  }
  settling_topics_ = false;
  registrar_.trigger();
}

namespace {

// At most this many topics a new master asks the NameServers about (one route request each).
constexpr std::size_t kSettleTopicsMax = 10'000;

}  // namespace

Task<void> Broker::settle_learned_topics(Broker* self, std::shared_ptr<bool> alive) {
  namespace rc = remoting::request_code;
  std::set<std::string> candidates = std::exchange(self->learned_topics_, {});
  // And every topic the NameServers know in this cluster: one this broker has no config of (a
  // slave elected before its first metadata copy and before any message of them arrived), and
  // one it has, which it may have learned from the log in an earlier life (a slave restarted after
  // learning a topic from the queues its messages used, and promoted before its next metadata
  // copy: the learned set above was in that life's memory). Every NameServer is asked: each keeps
  // routes in memory alone, and one that restarted knows none.
  bool full = false;
  for (const std::string& ns : self->config_.namesrv_addr) {
    if (full) break;
    remoting::RemotingCommand req = remoting::make_request(rc::GET_TOPICS_BY_CLUSTER, 0);
    req.ext_fields = remoting::GetTopicsByClusterRequestHeader{self->config_.broker_cluster_name}.to_fields();
    Result<remoting::RemotingCommand> r = co_await self->client_.invoke(ns, std::move(req), std::chrono::seconds(3));
    if (!*alive) co_return;
    if (!r.ok() || r->code != remoting::response_code::SUCCESS) continue;
    Result<remoting::body::TopicList> list = remoting::body::TopicList::decode(r->body);
    if (!list.ok()) continue;
    for (const std::string& t : list->topic_list) {
      if (candidates.size() >= kSettleTopicsMax) {
        self->rt_.log().warn("controller mode: more than {} topics to settle; the rest wait for the operator", kSettleTopicsMax);
        full = true;
        break;
      }
      candidates.insert(t);
    }
  }
  for (const std::string& topic : candidates) {
    for (const std::string& ns : self->config_.namesrv_addr) {
      remoting::RemotingCommand req = remoting::make_request(rc::GET_ROUTEINFO_BY_TOPIC, 0);
      req.ext_fields = remoting::GetRouteInfoRequestHeader{topic}.to_fields();
      Result<remoting::RemotingCommand> r = co_await self->client_.invoke(ns, std::move(req), std::chrono::seconds(3));
      if (!*alive) co_return;
      if (!r.ok() || r->code != remoting::response_code::SUCCESS) continue;
      Result<remoting::body::TopicRouteData> route = remoting::body::TopicRouteData::decode(r->body);
      if (!route.ok()) continue;
      const remoting::body::QueueData* ours = nullptr;
      for (const remoting::body::QueueData& q : route->queue_datas) {
        if (q.broker_name == self->config_.broker_name) ours = &q;
      }
      if (ours == nullptr) continue;  // this NameServer routes no queue of it here; the next may
      const TopicConfig* known = self->topics_.find(topic);
      TopicConfig tc = known != nullptr ? *known : TopicConfig{};
      tc.topic_name = topic;
      tc.read_queue_nums = std::max(tc.read_queue_nums, ours->read_queue_nums);
      tc.write_queue_nums = std::max(tc.write_queue_nums, ours->write_queue_nums);
      tc.perm = ours->perm;
      tc.topic_sys_flag = ours->topic_sys_flag;
      if (Status put = self->topics_.put(tc); !put.ok()) {
        self->rt_.log().error("controller mode: topic {} cannot take its routed config: {}", topic, put.error().to_string());
      } else {
        self->rt_.log().info("controller mode: topic {} takes {} read / {} write queues from the route of {}", topic,
                             tc.read_queue_nums, tc.write_queue_nums, ns);
      }
      break;
    }
  }
  self->settling_topics_ = false;
  self->topics_.touch();
  self->registrar_.trigger();
}

void Broker::update_visibility_bound() {
  if (!replicas_ || config_.read_uncommitted) {
    store_.set_visibility_bound(std::nullopt);
    return;
  }
  if (config_.broker_role == BrokerRole::slave) {
    store_.set_visibility_bound(ha_slave_.confirm_offset());
    return;
  }
  // A master alone in its set, or one that does not wait for every member: what it stores is
  // what the group agreed on (RocketMQ's getConfirmOffset).
  const bool alone = ha_master_.sync_state_set().size() <= 1;
  if (alone || !config_.ha.all_ack_in_sync_state_set) {
    store_.set_visibility_bound(std::nullopt);
  } else {
    store_.set_visibility_bound(ha_master_.confirm_offset());
  }
}

void Broker::became_slave(std::int64_t replica_id) {
  const bool was_master = config_.broker_role != BrokerRole::slave;
  const bool id_changed = config_.broker_id != replica_id;
  config_.broker_role = BrokerRole::slave;
  config_.broker_id = replica_id;
  if (was_master) {
    consumer_services_.schedule().pause();
    consumer_services_.timers().set_delivering(false);
    pop_.set_master(false);
  }
  if (replicas_ != nullptr) topics_.touch(replicas_->master_epoch());  // RocketMQ 5's changeToSlave
  slave_sync_.set_enabled(true);
  update_visibility_bound();
  start_registering();
  if (was_master || id_changed) registrar_.trigger();
}

Task<Reply> Broker::epoch_cache_request(Broker* self, RequestContext ctx) {
  if (!self->replicas_) {
    co_return reply(ctx.request, remoting::response_code::SYSTEM_ERROR, "this request only for controllerMode");
  }
  remoting::body::EpochEntryCache c;
  c.cluster_name = self->config_.broker_cluster_name;
  c.broker_name = self->config_.broker_name;
  c.broker_id = self->config_.broker_id;
  c.max_offset = self->store_.max_phy_offset().value();
  const auto& entries = self->replicas_->epochs().cache().entries();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    // RocketMQ's entries end where the next starts; the last at Long.MAX_VALUE.
    const std::int64_t end = i + 1 < entries.size() ? entries[i + 1].start.value() : std::numeric_limits<std::int64_t>::max();
    c.epoch_list.push_back({entries[i].epoch, entries[i].start.value(), end});
  }
  RemotingCommand out = reply(ctx.request, remoting::response_code::SUCCESS);
  out.body = c.encode();
  co_return out;
}

Task<Reply> Broker::epoch_acks_request(Broker* self, RequestContext ctx) {
  remoting::body::EpochAcks a;
  if (self->replicas_) a.last_epoch = self->replicas_->epochs().last_epoch();
  a.acked_by_epoch = self->stats().acked_by_epoch();
  RemotingCommand out = reply(ctx.request, remoting::response_code::SUCCESS);
  out.body = a.encode();
  co_return out;
}

}  // namespace ferry::broker
