#include "sim/scenario/scenario_names.h"

namespace ferry::sim::scenario {

using remoting::body::ConsumeFromWhere;
using remoting::body::MessageModel;

const NameTable<store::FlushMode>& flush_mode_names() {
  static const NameTable<store::FlushMode> t = {{"ASYNC_FLUSH", store::FlushMode::async_flush},
                                                {"SYNC_FLUSH", store::FlushMode::sync_flush}};
  return t;
}

const NameTable<broker::BrokerRole>& master_role_names() {
  static const NameTable<broker::BrokerRole> t = {{"ASYNC_MASTER", broker::BrokerRole::async_master},
                                                  {"SYNC_MASTER", broker::BrokerRole::sync_master}};
  return t;
}

const NameTable<MessageModel>& message_model_names() {
  static const NameTable<MessageModel> t = {{"CLUSTERING", MessageModel::CLUSTERING},
                                            {"BROADCASTING", MessageModel::BROADCASTING}};
  return t;
}

const NameTable<ConsumeFromWhere>& consume_from_names() {
  static const NameTable<ConsumeFromWhere> t = {
      {"CONSUME_FROM_LAST_OFFSET", ConsumeFromWhere::CONSUME_FROM_LAST_OFFSET},
      {"CONSUME_FROM_FIRST_OFFSET", ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET},
      {"CONSUME_FROM_TIMESTAMP", ConsumeFromWhere::CONSUME_FROM_TIMESTAMP}};
  return t;
}

const NameTable<client::AllocateStrategy>& allocate_strategy_names() {
  static const NameTable<client::AllocateStrategy> t = {{"averagely", client::AllocateStrategy::averagely},
                                                        {"by_circle", client::AllocateStrategy::by_circle},
                                                        {"consistent_hash", client::AllocateStrategy::consistent_hash}};
  return t;
}

const NameTable<ConsumerKind>& consumer_kind_names() {
  static const NameTable<ConsumerKind> t = {{"push", ConsumerKind::push}, {"lite_pull", ConsumerKind::lite_pull}, {"pop", ConsumerKind::pop}};
  return t;
}

const NameTable<ConsumeMode>& consume_mode_names() {
  static const NameTable<ConsumeMode> t = {{"concurrently", ConsumeMode::concurrently},
                                           {"orderly", ConsumeMode::orderly}};
  return t;
}

const NameTable<CrashKind>& crash_kind_names() {
  static const NameTable<CrashKind> t = {{"kill", CrashKind::process_kill}, {"power_off", CrashKind::power_loss}};
  return t;
}

const NameTable<LostMode>& lost_mode_names() {
  static const NameTable<LostMode> t = {{"strict", LostMode::strict}, {"report", LostMode::report}, {"off", LostMode::off}};
  return t;
}

const NameTable<Requirement>& requirement_names() {
  static const NameTable<Requirement> t = [] {
    NameTable<Requirement> out;
    for (std::uint8_t i = 0; i <= kRequirementMax; ++i) {
      const auto r = static_cast<Requirement>(i);
      out.emplace_back(requirement_name(r), r);
    }
    return out;
  }();
  return t;
}

const NameTable<cluster::ProducerSpec::Transactions::CheckAnswers>& check_answers_names() {
  using A = cluster::ProducerSpec::Transactions::CheckAnswers;
  static const NameTable<A> t = {{"database", A::database}, {"always_commit", A::always_commit}};
  return t;
}

const NameTable<cluster::ConsumerSpec::Replies::Body>& reply_body_names() {
  using B = cluster::ConsumerSpec::Replies::Body;
  static const NameTable<B> t = {{"echo", B::echo}, {"previous", B::previous}};
  return t;
}

const NameTable<cluster::ProducerSpec::Selector>& selector_names() {
  static const NameTable<cluster::ProducerSpec::Selector> t = {{"by_key_hash", cluster::ProducerSpec::Selector::by_key_hash},
                                                               {"rotate", cluster::ProducerSpec::Selector::rotate}};
  return t;
}

}  // namespace ferry::sim::scenario
