#include "broker/slave_sync.h"

#include <fmt/format.h>

#include "remoting/request_code.h"
#include "remoting/response_code.h"
#include "runtime/assert.h"

namespace ferry::broker {

namespace rc = remoting::request_code;
using remoting::body::VersionedTableKeys;

namespace {

constexpr std::array<SlaveSync::Part, SlaveSync::kParts> kRoundOrder = {
    SlaveSync::Part::topics, SlaveSync::Part::consumer_offsets, SlaveSync::Part::delay_offsets,
    SlaveSync::Part::subscription_groups};

// The bodies' error paths start at the request that fetched them.
constexpr VersionedTableKeys kTopicsBody{"GET_ALL_TOPIC_CONFIG body", "topicConfigTable", "topicName"};
constexpr VersionedTableKeys kGroupsBody{"GET_ALL_SUBSCRIPTIONGROUP_CONFIG body", "subscriptionGroupTable",
                                         "groupName"};
constexpr std::string_view kOffsetsBody = "GET_ALL_CONSUMER_OFFSET body";
constexpr std::string_view kDelayOffsetsBody = "GET_ALL_DELAY_OFFSET body";

std::size_t index_of(SlaveSync::Part part) {
  const auto i = static_cast<std::size_t>(part);
  FERRY_ASSERT(i < SlaveSync::kParts, "SlaveSync part {} is not one of the {} tables", i, SlaveSync::kParts);
  return i;
}

}  // namespace

std::string_view SlaveSync::name(Part part) {
  switch (part) {
    case Part::topics: return "topics";
    case Part::consumer_offsets: return "consumer offsets";
    case Part::delay_offsets: return "delay offsets";
    case Part::subscription_groups: return "subscription groups";
  }
  FERRY_ASSERT(false, "SlaveSync part {} has no name", static_cast<int>(part));
  return {};
}

std::int32_t SlaveSync::request_code(Part part) {
  switch (part) {
    case Part::topics: return rc::GET_ALL_TOPIC_CONFIG;
    case Part::consumer_offsets: return rc::GET_ALL_CONSUMER_OFFSET;
    case Part::delay_offsets: return rc::GET_ALL_DELAY_OFFSET;
    case Part::subscription_groups: return rc::GET_ALL_SUBSCRIPTIONGROUP_CONFIG;
  }
  FERRY_ASSERT(false, "SlaveSync part {} has no request code", static_cast<int>(part));
  return 0;
}

SlaveSync::SlaveSync(Runtime& rt, const BrokerConfig& config, remoting::RpcClient& client,
                     const NameServerRegistrar& registrar, Tables tables, std::string own_address, bool enabled)
    : rt_(rt),
      config_(config),
      client_(client),
      registrar_(registrar),
      tables_(tables),
      own_address_(std::move(own_address)),
      wake_(rt),
      enabled_(enabled) {
  FERRY_ASSERT(config_.slave_sync_interval > Duration::zero(), "slave_sync_interval {} ms is not positive",
               to_ms(config_.slave_sync_interval));
}

void SlaveSync::set_enabled(bool on) {
  if (on == enabled_) return;
  enabled_ = on;
  rt_.log().info("slave sync: {}", on ? "enabled" : "disabled");
  if (on) wake_.wake();
}

void SlaveSync::stop() {
  stopped_ = true;
  wake_.wake();
}

bool SlaveSync::current(const std::string& master) const {
  return enabled_ && !stopped_ && registrar_.master_address() == master;
}

Task<void> SlaveSync::run_loop() {
  while (!stopped_) {
    const std::optional<std::string>& master = registrar_.master_address();
    if (enabled_ && master && *master != own_address_) {
      Task<void> round = run_round(this, *master);
      co_await std::move(round);
    }
    if (stopped_) break;
    Task<bool> woken = wake_.wait_for(config_.slave_sync_interval);
    (void)co_await std::move(woken);
  }
}

Task<void> SlaveSync::run_round(SlaveSync* self, std::string master) {
  ++self->counters_.rounds;
  std::size_t synced = 0;
  for (Part part : kRoundOrder) {
    Task<CallOutcome> call = sync_part(self, master, part);
    const CallOutcome outcome = co_await std::move(call);
    if (outcome == CallOutcome::abandoned) co_return;
    if (outcome == CallOutcome::unreachable) {
      if (!self->unreachable_) {
        self->unreachable_ = true;
        self->rt_.log().warn("slave sync: cannot reach master {}; keeping the tables as they are, retrying every {} ms",
                             master, to_ms(self->config_.slave_sync_interval));
      }
      co_return;
    }
    if (self->unreachable_) {
      self->unreachable_ = false;
      self->rt_.log().info("slave sync: master {} answers again", master);
    }
    if (outcome == CallOutcome::synced) ++synced;
  }
  if (synced == kParts) ++self->counters_.rounds_complete;
}

Task<SlaveSync::CallOutcome> SlaveSync::sync_part(SlaveSync* self, std::string master, Part part) {
  remoting::RemotingCommand request = remoting::make_request(request_code(part), 0);
  Task<Result<remoting::RemotingCommand>> call = self->client_.invoke(master, std::move(request), kCallTimeout);
  Result<remoting::RemotingCommand> r = co_await std::move(call);
  if (!self->current(master)) co_return CallOutcome::abandoned;
  if (!r) co_return CallOutcome::unreachable;
  if (r->code != remoting::response_code::SUCCESS) {
    self->note_refused(part, fmt::format("master {} answered {} with code {} ({})", master,
                                         rc::name(request_code(part)), r->code, r->remark.value_or("")));
    co_return CallOutcome::refused;
  }
  const std::string_view body(reinterpret_cast<const char*>(r->body.data()), r->body.size());
  Result<bool> applied = self->apply(part, body);
  if (!applied) {
    self->note_refused(part, fmt::format("refused the body from master {}: {}", master, applied.error().to_string()));
    co_return CallOutcome::refused;
  }
  const std::size_t i = index_of(part);
  if (self->refusing_[i]) {
    self->refusing_[i] = false;
    self->rt_.log().info("slave sync: {} sync again from master {}", name(part), master);
  }
  if (*applied) {
    ++self->counters_.applied[i];
    self->rt_.log().info("slave sync: {} updated from master {}", name(part), master);
    Task<Status> write = self->persist(part);
    Status s = co_await std::move(write);
    if (!s) self->rt_.log().error("slave sync: writing the {} failed: {}", name(part), s.error().to_string());
  }
  co_return CallOutcome::synced;
}

void SlaveSync::note_refused(Part part, const std::string& why) {
  const std::size_t i = index_of(part);
  ++counters_.refused[i];
  if (refusing_[i]) return;
  refusing_[i] = true;
  rt_.log().error("slave sync: {} not synced, kept as they are: {}", name(part), why);
}

Result<bool> SlaveSync::apply(Part part, std::string_view body) {
  switch (part) {
    case Part::topics: {
      TopicTable table;
      DataVersion version;
      FERRY_TRY(remoting::body::decode_versioned_table(body, kTopicsBody, &TopicConfig::topic_name, table, version));
      if (version == tables_.topics.data_version()) return false;  // RocketMQ compares versions only
      FERRY_TRY(tables_.topics.replace_all(std::move(table), version));
      return true;
    }
    case Part::consumer_offsets: {
      OffsetTable table;
      FERRY_TRY(ConsumerOffsetManager::decode_from(kOffsetsBody, body, table));
      Result<std::size_t> changed = tables_.offsets.put_all(table);
      if (!changed) return std::move(changed).error();
      return *changed > 0;
    }
    case Part::delay_offsets: {
      DelayOffsetTable table;
      FERRY_TRY(ScheduleMessageService::decode_from(kDelayOffsetsBody, body, table, tables_.schedule.levels()));
      return tables_.schedule.replace_offsets(std::move(table));
    }
    case Part::subscription_groups: {
      SubscriptionGroupTable table;
      DataVersion version;
      FERRY_TRY(remoting::body::decode_versioned_table(body, kGroupsBody, &SubscriptionGroupConfig::group_name, table,
                                                       version));
      if (version == tables_.groups.data_version()) return false;
      FERRY_TRY(tables_.groups.replace_all(std::move(table), version));
      return true;
    }
  }
  FERRY_ASSERT(false, "SlaveSync::apply of part {}", static_cast<int>(part));
  return false;
}

Task<Status> SlaveSync::persist(Part part) {
  switch (part) {
    case Part::topics: co_return co_await tables_.topics.persist();
    case Part::consumer_offsets: co_return co_await tables_.offsets.persist();
    case Part::delay_offsets: co_return co_await tables_.schedule.persist();
    case Part::subscription_groups: co_return co_await tables_.groups.persist();
  }
  FERRY_ASSERT(false, "SlaveSync::persist of part {}", static_cast<int>(part));
  co_return Status();
}

}  // namespace ferry::broker
