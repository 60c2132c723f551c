#include "broker/name_server_registrar.h"

#include <memory>

#include "common/crc.h"
#include "remoting/body/register_broker_body.h"
#include "remoting/header/broker_registration_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"

namespace ferry::broker {

using remoting::RemotingCommand;

NameServerRegistrar::NameServerRegistrar(Runtime& rt, const BrokerConfig& config, TopicConfigManager& topics,
                                         remoting::RpcClient& client, std::string broker_addr, std::string ha_addr)
    : rt_(rt), config_(config), topics_(topics), client_(client), broker_addr_(std::move(broker_addr)),
      ha_addr_(std::move(ha_addr)), wake_(rt) {}

RemotingCommand NameServerRegistrar::build_request() const {
  remoting::body::RegisterBrokerBody body;
  body.topic_config_serialize_wrapper = topics_.snapshot();
  remoting::RegisterBrokerRequestHeader h;
  h.broker_name = config_.broker_name;
  h.broker_addr = broker_addr_;
  h.cluster_name = config_.broker_cluster_name;
  h.ha_server_addr = ha_addr_;
  h.broker_id = config_.broker_id;
  h.compressed = false;
  RemotingCommand req = remoting::make_request(remoting::request_code::REGISTER_BROKER, 0);
  req.body = body.encode();
  h.body_crc32 = body_crc(Bytes(req.body.data(), req.body.size()));
  req.ext_fields = h.to_fields();
  return req;
}

Task<std::size_t> NameServerRegistrar::register_all() {
  ++rounds_;
  if (config_.namesrv_addr.empty()) co_return 0;
  struct Round {
    explicit Round(Executor& ex) : done(ex) {}
    std::size_t left = 0;
    std::size_t ok = 0;
    bool master_named = false;  // a successful reply named the master: the round has decided
    Completion<bool> done;
  };
  auto round = std::make_shared<Round>(rt_.executor());
  round->left = config_.namesrv_addr.size();
  const RemotingCommand request = build_request();
  for (const std::string& addr : config_.namesrv_addr) {
    client_.invoke_async(addr, request, config_.register_broker_timeout,
                         [this, round, addr](Result<RemotingCommand> r) {
                           if (r && r->code == remoting::response_code::SUCCESS) {
                             ++round->ok;
                             ++successes_[addr];
                             auto h = remoting::RegisterBrokerResponseHeader::from_fields(r->ext_fields);
                             if (!h) {
                               if (auto held = bad_reply_log_.admit(rt_.now())) {
                                 rt_.log().warn("register: REGISTER_BROKER reply from {}: {}{}", addr,
                                                h.error().to_string(), held_back_note(*held));
                               }
                             } else if (!round->master_named && h->master_addr && !h->master_addr->empty()) {
                               round->master_named = true;
                               std::optional<std::string> ha = std::move(h->ha_server_addr);
                               if (ha && ha->empty()) ha.reset();
                               set_master(std::move(h->master_addr), std::move(ha));
                             }
                           } else {
                             // Kinds: the reply's code, or -1 - the Errc of a call that failed.
                             const std::int64_t kind = r ? r->code : -1 - static_cast<std::int64_t>(r.error().code);
                             if (auto held = failure_log_.admit(rt_.now(), kind)) {
                               rt_.log().warn("register: REGISTER_BROKER to {} failed: {}{}", addr,
                                              r ? fmt::format("code {} {}", r->code, r->remark.value_or(""))
                                                : r.error().to_string(),
                                              held_back_note(*held));
                             }
                           }
                           if (--round->left == 0) round->done.complete(true);
                         });
  }
  co_await round->done.wait();
  if (round->ok > 0 && !round->master_named) set_master(std::nullopt, std::nullopt);
  co_return round->ok;
}

void NameServerRegistrar::set_master(std::optional<std::string> addr, std::optional<std::string> ha_addr) {
  if (addr == master_addr_ && ha_addr == master_ha_addr_) return;
  rt_.log().info("register: master of {} is now {} (HA {}), was {} (HA {})", config_.broker_name,
                 addr.value_or("unknown"), ha_addr.value_or("unknown"), master_addr_.value_or("unknown"),
                 master_ha_addr_.value_or("unknown"));
  master_addr_ = std::move(addr);
  master_ha_addr_ = std::move(ha_addr);
  if (on_master_changed_) on_master_changed_();
}

Task<void> NameServerRegistrar::run_loop() {
  bool may_skip = false;  // never the first round, one woken by a change, or two in a row
  while (!stopped_) {
    // buggify: a periodic registration is skipped once (NameServers expire a broker only after
    // broker_expiry, four periods; the next round registers).
    if (may_skip && FERRY_BUGGIFY(rt_)) {
      may_skip = false;
    } else {
      (void)co_await register_all();
      may_skip = true;
    }
    if (stopped_) break;
    // A slave that has not learnt its master yet (it registered before the master did) asks again
    // soon, so that replication starts within seconds rather than a registration period.
    const bool masterless = config_.broker_role == BrokerRole::slave && !master_address();
    const Duration wait = masterless ? std::min<Duration>(config_.register_name_server_period, kMasterlessRetry)
                                     : config_.register_name_server_period;
    const bool woken = co_await wake_.wait_for(wait);
    if (woken) may_skip = false;
  }
}

Task<void> NameServerRegistrar::unregister_all() {
  for (const std::string& addr : config_.namesrv_addr) {
    remoting::UnregisterBrokerRequestHeader h;
    h.broker_name = config_.broker_name;
    h.broker_addr = broker_addr_;
    h.cluster_name = config_.broker_cluster_name;
    h.broker_id = config_.broker_id;
    RemotingCommand req = remoting::make_request(remoting::request_code::UNREGISTER_BROKER, 0);
    req.ext_fields = h.to_fields();
    Task<Result<RemotingCommand>> call = client_.invoke(addr, std::move(req), config_.unregister_broker_timeout);
    Result<RemotingCommand> r = co_await std::move(call);
    if (!r || r->code != remoting::response_code::SUCCESS) {
      rt_.log().warn("register: UNREGISTER_BROKER to {} failed: {}", addr,
                     r ? fmt::format("code {}", r->code) : r.error().to_string());
    }
  }
}

}  // namespace ferry::broker
