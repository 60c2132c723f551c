// The controller's metrics (controller.h, metrics()): RocketMQ 5's ControllerMetricsManager
// names and labels, and Ferry's own.
#include <algorithm>

#include "controller/controller.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"

namespace ferry::controller {

namespace {

namespace rc = remoting::request_code;
namespace code = remoting::response_code;

// RocketMQ's ControllerMetricsConstant.RequestType: the requests it counts, by its names.
std::string_view request_type(std::int32_t c) {
  switch (c) {
    case rc::CONTROLLER_ALTER_SYNC_STATE_SET: return "CONTROLLER_ALTER_SYNC_STATE_SET";
    case rc::CONTROLLER_ELECT_MASTER: return "CONTROLLER_ELECT_MASTER";
    case rc::CONTROLLER_REGISTER_BROKER: return "CONTROLLER_REGISTER_BROKER";
    case rc::CONTROLLER_GET_REPLICA_INFO: return "CONTROLLER_GET_REPLICA_INFO";
    case rc::CONTROLLER_GET_METADATA_INFO: return "CONTROLLER_GET_METADATA_INFO";
    case rc::CONTROLLER_GET_SYNC_STATE_DATA: return "CONTROLLER_GET_SYNC_STATE_DATA";
    case rc::GET_BROKER_EPOCH_CACHE: return "CONTROLLER_GET_BROKER_EPOCH_CACHE";
    case rc::NOTIFY_BROKER_ROLE_CHANGED: return "CONTROLLER_NOTIFY_BROKER_ROLE_CHANGED";
    case rc::BROKER_HEARTBEAT: return "CONTROLLER_BROKER_HEARTBEAT";
    case rc::UPDATE_CONTROLLER_CONFIG: return "CONTROLLER_UPDATE_CONTROLLER_CONFIG";
    case rc::GET_CONTROLLER_CONFIG: return "CONTROLLER_GET_CONTROLLER_CONFIG";
    case rc::CLEAN_BROKER_DATA: return "CONTROLLER_CLEAN_BROKER_DATA";
    case rc::CONTROLLER_GET_NEXT_BROKER_ID: return "CONTROLLER_GET_NEXT_BROKER_ID";
    case rc::CONTROLLER_APPLY_BROKER_ID: return "CONTROLLER_APPLY_BROKER_ID";
    default: return {};
  }
}

// RocketMQ's latency buckets for request_latency, in microseconds: 1 us .. 10 s.
std::vector<double> latency_bounds_us() {
  std::vector<double> out;
  for (double decade = 1; decade <= 1e6; decade *= 10) {
    for (double m : {1.0, 3.0, 5.0}) out.push_back(m * decade);
  }
  out.push_back(1e7);
  return out;
}

}  // namespace

void Controller::register_metrics() {
  using metrics::SampleSink;
  using metrics::Type;
  metrics_.set_common_labels({{"node_type", "controller"}, {"node_id", rt_.node_name()}});
  elections_ = &metrics_.counter("election_total", "total elect num", {"cluster", "broker_set", "election_result"});
  requests_ = &metrics_.counter("request_total", "total request num", {"request_type", "request_handle_status"});
  request_latency_ = &metrics_.histogram("request_latency_microseconds", "request latency",
                                         {"request_type", "request_handle_status"}, latency_bounds_us());
  server_.set_request_observer([this](const remoting::ServedRequest& r) {
    rpc_metrics_.on_request(r);
    const std::string_view type = request_type(r.code);
    if (type.empty()) return;
    // RocketMQ's RequestHandleStatus: a reply SUCCESS, or failed (a oneway counts as served).
    const bool ok = r.response_code == code::SUCCESS || r.outcome == remoting::ServedRequest::Outcome::oneway;
    const std::string_view status = ok ? "success" : "failed";
    requests_->with({type, status}).inc();
    request_latency_->with({type, status}).observe(to_seconds(r.elapsed) * 1e6);
  });
  // RocketMQ's role values: 0 unknown, 1 candidate, 2 follower, 3 leader.
  metrics_.callback(Type::gauge, "role", "role of current node (3 leader, 2 follower, 1 candidate, 0 unknown)", {},
                    [this](SampleSink& sink) {
                      if (!raft_) return sink.add({}, 0);
                      sink.add({}, raft_->is_leader() ? 3 : raft_->leader_id() != 0 ? 2 : 1);
                    });
  metrics_.callback(Type::gauge, "active_broker_num", "now active brokers num", {"cluster", "broker_set"},
                    [this](SampleSink& sink) {
                      std::map<std::pair<std::string, std::string>, int> alive;
                      for (const auto& [key, info] : heartbeats_.all()) {
                        if (heartbeats_.alive(info.name, info.id) != nullptr) ++alive[{info.cluster, info.name}];
                      }
                      for (const auto& [k, n] : alive) sink.add({k.first, k.second}, n);
                    });
  metrics_.callback(Type::gauge, "ferry_controller_raft_term", "This controller's Raft term", {},
                    [this](SampleSink& sink) {
                      if (raft_) sink.add({}, static_cast<double>(raft_->current_term()));
                    });
  metrics_.callback(Type::gauge, "ferry_controller_raft_commit_index", "This controller's Raft commit index", {},
                    [this](SampleSink& sink) {
                      if (raft_) sink.add({}, static_cast<double>(raft_->commit_index()));
                    });
  metrics_.callback(Type::gauge, "ferry_controller_master_epoch",
                    "Each broker group's master epoch, as this controller's state has it", {"cluster", "broker_set"},
                    [this](SampleSink& sink) {
                      for (const auto& [name, set] : replicas_.sets()) sink.add({set.cluster, name}, set.master_epoch);
                    });
  metrics_.callback(Type::gauge, "ferry_controller_sync_state_set_size",
                    "Each broker group's SyncStateSet size, as this controller's state has it", {"cluster", "broker_set"},
                    [this](SampleSink& sink) {
                      for (const auto& [name, set] : replicas_.sets()) {
                        sink.add({set.cluster, name}, static_cast<double>(set.sync_state_set.size()));
                      }
                    });
  metrics_.callback(Type::gauge, "ferry_controller_master_alive",
                    "1 when a broker group has a master and it is alive, as this controller's state has it",
                    {"cluster", "broker_set"}, [this](SampleSink& sink) {
                      for (const auto& [name, set] : replicas_.sets()) {
                        const bool alive = set.master && heartbeats_.alive(name, *set.master) != nullptr;
                        sink.add({set.cluster, name}, alive ? 1 : 0);
                      }
                    });
}

void Controller::count_election(const std::string& set_name, std::int32_t verdict_code) {
  std::string_view result;
  switch (verdict_code) {
    case code::SUCCESS: result = "new_master_elected"; break;
    case code::CONTROLLER_MASTER_STILL_EXIST: result = "keep_current_master"; break;
    case code::CONTROLLER_MASTER_NOT_AVAILABLE:
    case code::CONTROLLER_ELECT_MASTER_FAILED: result = "no_master_elected"; break;
    default: return;
  }
  const BrokerSet* set = replicas_.find(set_name);
  elections_->with({set != nullptr ? std::string_view(set->cluster) : std::string_view(), set_name, result}).inc();
}

}  // namespace ferry::controller
