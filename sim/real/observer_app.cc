#include "sim/real/observer_app.h"

#include <fmt/format.h>

#include <algorithm>

#include "remoting/header/route_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"

namespace ferry::sim::real {

namespace {

namespace rc = remoting::request_code;
namespace code = remoting::response_code;

// Registrations come every 30 s; two ages of one registration read at different looks give times
// a few ms apart (the reply's own latency): closer than this, they are the same registration.
constexpr Duration kSameRegistration = std::chrono::milliseconds(500);

client::ClientConfig config_for(std::vector<std::string> namesrvs, const std::string& name, const std::string& ip) {
  client::ClientConfig c;
  c.namesrv_addrs = std::move(namesrvs);
  c.instance_name = name;
  c.client_ip = ip;
  return c;
}

// The NameServer's route of `topic`: nullopt when it has none (TOPIC_NOT_EXIST); an error when it
// did not answer.
Task<Result<std::optional<remoting::body::TopicRouteData>>> route_from(client::ClientInstance& ci, std::string topic) {
  remoting::RemotingCommand req = remoting::make_request(rc::GET_ROUTEINFO_BY_TOPIC, 0);
  req.ext_fields = remoting::GetRouteInfoRequestHeader{topic}.to_fields();
  Result<remoting::RemotingCommand> r = co_await ci.name_servers().invoke(std::move(req));
  if (!r.ok()) co_return std::move(r).error();
  if (r->code == code::TOPIC_NOT_EXIST) co_return std::optional<remoting::body::TopicRouteData>();
  if (r->code != code::SUCCESS) co_return Error(Errc::io_error, fmt::format("route of {}: code {} {}", topic, r->code, r->remark.value_or("")));
  auto route = remoting::body::TopicRouteData::decode(r->body);
  if (!route.ok()) co_return std::move(route).error();
  co_return std::optional<remoting::body::TopicRouteData>(std::move(*route));
}

}  // namespace

ObserverApp::ObserverApp(Runtime& rt, ObserverSetup setup, std::shared_ptr<sim::History> history)
    : rt_(rt), setup_(std::move(setup)), history_(history), routes_(history) {
  instance_ = std::make_unique<client::ClientInstance>(rt, config_for(setup_.namesrv_addrs, "observer", setup_.client_ip));
  instance_->start();
  admin_ = std::make_unique<client::AdminClient>(*instance_);
  for (std::size_t i = 0; i < setup_.namesrv_addrs.size(); ++i) {
    per_namesrv_.push_back(std::make_unique<client::ClientInstance>(
        rt, config_for({setup_.namesrv_addrs[i]}, fmt::format("observer-{}", i), setup_.client_ip)));
    per_namesrv_admin_.push_back(std::make_unique<client::AdminClient>(*per_namesrv_.back()));
  }
  views_.resize(setup_.namesrv_addrs.size());
  controller_views_.resize(setup_.controller_addrs.size());
}

ObserverApp::~ObserverApp() {
  per_namesrv_admin_.clear();
  per_namesrv_.clear();
  admin_.reset();
  instance_.reset();
}

void ObserverApp::start_watching() {
  if (watching_) return;
  watching_ = true;
  for (std::size_t i = 0; i < per_namesrv_.size(); ++i) rt_.spawn(watch_namesrv(this, i), "observe-namesrv");
  rt_.spawn(watch_commits(this), "observe-offsets");
  if (!setup_.controller_brokers.empty()) rt_.spawn(watch_epochs(this), "observe-epochs");
}

void ObserverApp::start_watching_controllers() {
  if (watching_controllers_) return;
  watching_controllers_ = true;
  for (std::size_t i = 0; i < setup_.controller_addrs.size(); ++i) rt_.spawn(watch_controller(this, i), "observe-controller");
}

Task<void> ObserverApp::watch_controller(ObserverApp* self, std::size_t i) {
  Runtime& rt = self->rt_;
  const std::string addr = self->setup_.controller_addrs[i];
  const std::string& name = self->setup_.controller_names[i];
  auto name_of_addr = [self](const std::string& a) {
    auto it = self->setup_.broker_by_addr.find(a);
    return it != self->setup_.broker_by_addr.end() ? it->second : a;
  };
  for (;;) {
    ControllerView view;
    Task<Result<remoting::GetMetaDataResponseHeader>> meta_call = self->admin_->controller_metadata(addr);
    Result<remoting::GetMetaDataResponseHeader> meta = co_await std::move(meta_call);
    if (meta.ok()) {
      view.leader = meta->is_leader;
      Task<Result<remoting::body::BrokerReplicasInfo>> ask = self->admin_->local_sync_state_data(addr, self->setup_.controller_groups);
      Result<remoting::body::BrokerReplicasInfo> info = co_await std::move(ask);
      view.answered = info.ok();
      if (info.ok()) {
        const MonoTime now = rt.now();
        for (const auto& [group, g] : info->replicas_info_table) {
          sim::ControllerViewRecord r;
          r.at = now;
          r.controller = name;
          r.group = group;
          r.master_epoch = g.master_epoch;
          if (g.master_broker_id >= 0 && !g.master_address.empty()) r.master = name_of_addr(g.master_address);
          r.sync_state_set_epoch = g.sync_state_set_epoch;
          for (const remoting::body::ReplicaIdentity& id : g.in_sync_replicas) r.sync_state_set.push_back(name_of_addr(id.broker_address));
          std::sort(r.sync_state_set.begin(), r.sync_state_set.end());
          const ControllerView& last = self->controller_views_[i];
          auto before = last.groups.find(group);
          const bool same = before != last.groups.end() && before->second.master_epoch == r.master_epoch &&
                            before->second.master == r.master && before->second.sync_state_set_epoch == r.sync_state_set_epoch &&
                            before->second.sync_state_set == r.sync_state_set;
          if (!same) {
            const auto held = self->history_->hold();
            self->history_->controller_views.push_back(r);
          }
          view.groups.emplace(group, same ? before->second : r);
        }
      }
    }
    // A controller that does not answer keeps what it said last (its state is on its disk), but
    // leads no more as far as anyone can tell.
    if (!view.answered) view.groups = self->controller_views_[i].groups;
    self->controller_views_[i] = std::move(view);
    co_await rt.sleep(sim::kObserveEvery);
  }
}

Task<void> ObserverApp::watch_epochs(ObserverApp* self) {
  Runtime& rt = self->rt_;
  for (;;) {
    for (const auto& [node, b] : self->setup_.controller_brokers) {
      Task<Result<remoting::body::EpochAcks>> ask = self->admin_->epoch_acks(b.addr);
      Result<remoting::body::EpochAcks> acks = co_await std::move(ask);
      if (!acks.ok()) continue;  // down, or paused: what it holds is compared when it answers again
      sim::BrokerEpochRecord r;
      r.at = rt.now();
      r.broker = node;
      r.group = b.group;
      r.epoch = acks->last_epoch;
      r.acked = acks->acked_by_epoch;
      auto [it, fresh] = self->last_epochs_.try_emplace(node, r);
      if (!fresh && it->second.epoch == r.epoch && it->second.acked == r.acked) continue;
      it->second = r;
      const auto held = self->history_->hold();
      self->history_->broker_epochs.push_back(std::move(r));
    }
    co_await rt.sleep(sim::kObserveEvery);
  }
}

Task<void> ObserverApp::watch_namesrv(ObserverApp* self, std::size_t i) {
  Runtime& rt = self->rt_;
  client::ClientInstance& ci = *self->per_namesrv_[i];
  client::AdminClient& admin = *self->per_namesrv_admin_[i];
  const std::string& name = self->setup_.namesrv_names[i];
  for (;;) {
    NamesrvView view;
    view.answered = true;
    for (const cluster::TopicSpec& t : self->setup_.topics) {
      Task<Result<std::optional<remoting::body::TopicRouteData>>> ask = route_from(ci, t.name);
      Result<std::optional<remoting::body::TopicRouteData>> route = co_await std::move(ask);
      if (!route.ok()) {
        view.answered = false;
        break;
      }
      const MonoTime now = rt.now();
      self->routes_.record(now, name, t.name, *route ? scenario::route_groups(**route) : std::map<std::string, sim::RouteGroup>{});
      if (*route) view.routes.emplace(t.name, std::move(**route));
    }
    if (view.answered) {
      Task<Result<remoting::body::ClusterInfo>> ask = admin.cluster_info();
      Result<remoting::body::ClusterInfo> info = co_await std::move(ask);
      if (info.ok()) {
        view.cluster = std::move(*info);
      } else {
        view.answered = false;
      }
    }
    if (view.answered) {
      Task<Result<remoting::body::BrokerLiveTable>> ask = admin.broker_live_table();
      Result<remoting::body::BrokerLiveTable> live = co_await std::move(ask);
      const MonoTime now = rt.now();
      if (live.ok()) {
        for (const auto& [addr, entry] : live->brokers) {
          const MonoTime at = now - std::chrono::milliseconds(entry.age_millis);
          auto [it, fresh] = self->last_registration_.try_emplace({name, addr}, at);
          if (!fresh && at - it->second < kSameRegistration) continue;
          it->second = at;
          auto b = self->setup_.broker_by_addr.find(addr);
          const auto held = self->history_->hold();
          self->history_->registrations.push_back(
              sim::RegistrationRecord{at, name, b != self->setup_.broker_by_addr.end() ? b->second : addr});
        }
      } else {
        view.answered = false;
      }
    }
    self->views_[i] = std::move(view);
    co_await rt.sleep(sim::kObserveEvery);
  }
}

Task<void> ObserverApp::watch_commits(ObserverApp* self) {
  Runtime& rt = self->rt_;
  // The broker node that answers for a group (the admin client reads from its master, else a
  // slave: AdminClient::read_address), as the route shows it now.
  auto answering = [self](const std::string& broker_name) {
    std::optional<std::string> addr = self->instance_->any_address(broker_name);
    if (!addr) return broker_name;
    auto b = self->setup_.broker_by_addr.find(*addr);
    return b != self->setup_.broker_by_addr.end() ? b->second : *addr;
  };
  for (;;) {
    for (const cluster::TopicSpec& t : self->setup_.topics) {
      // Each rise of a queue's first offset (lost-acked: what expired was not owed).
      Task<Result<std::vector<client::QueueStatus>>> status = self->admin_->topic_status(t.name);
      Result<std::vector<client::QueueStatus>> queues = co_await std::move(status);
      if (queues.ok()) {
        const MonoTime now = rt.now();
        for (const client::QueueStatus& q : *queues) {
          QueueOffset& floor = self->floors_[q.queue];
          if (!(floor < q.min_offset)) continue;
          floor = q.min_offset;
          const auto held = self->history_->hold();
          self->history_->queue_floors.push_back(sim::QueueFloorRecord{now, q.queue, q.min_offset});
        }
      }
      for (const std::string& group : self->setup_.groups) {
        Task<Result<std::vector<client::QueueProgress>>> ask = self->admin_->consumer_progress(group, t.name);
        Result<std::vector<client::QueueProgress>> progress = co_await std::move(ask);
        if (!progress.ok()) continue;
        const MonoTime now = rt.now();
        for (const client::QueueProgress& q : *progress) {
          if (q.consumer_offset.value() < 0) continue;
          std::string broker = answering(q.queue.broker_name);
          auto [it, fresh] = self->last_commit_.try_emplace({broker, group, q.queue}, q.consumer_offset);
          if (!fresh && it->second == q.consumer_offset) continue;
          it->second = q.consumer_offset;
          sim::CommitRecord r;
          r.at = now;
          r.broker = std::move(broker);
          r.group = group;
          r.queue = q.queue;
          r.offset = q.consumer_offset;
          const auto held = self->history_->hold();
          self->history_->commits.push_back(std::move(r));
        }
      }
    }
    co_await rt.sleep(sim::kObserveEvery);
  }
}

}  // namespace ferry::sim::real
