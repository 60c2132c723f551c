// The names scenario files use for enum values, one table each, shared by the parser (names to
// values) and the writer (values to names). RocketMQ's own names where RocketMQ has them
// (SYNC_FLUSH, SYNC_MASTER, CLUSTERING, CONSUME_FROM_FIRST_OFFSET), Ferry's lower-case ones
// elsewhere.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "broker/broker_config.h"
#include "client/allocate_strategy.h"
#include "remoting/body/consumer_enums.h"
#include "runtime/assert.h"
#include "sim/ids.h"
#include "sim/scenario/scenario.h"
#include "store/store_config.h"

namespace ferry::sim::scenario {

// A name and the value it stands for.
template <typename E>
using NameTable = std::vector<std::pair<std::string_view, E>>;

const NameTable<store::FlushMode>& flush_mode_names();
const NameTable<broker::BrokerRole>& master_role_names();  // a group's master: never SLAVE
const NameTable<remoting::body::MessageModel>& message_model_names();
const NameTable<remoting::body::ConsumeFromWhere>& consume_from_names();
const NameTable<client::AllocateStrategy>& allocate_strategy_names();
const NameTable<ConsumerKind>& consumer_kind_names();
const NameTable<ConsumeMode>& consume_mode_names();
const NameTable<CrashKind>& crash_kind_names();
const NameTable<LostMode>& lost_mode_names();
const NameTable<Requirement>& requirement_names();
const NameTable<cluster::ProducerSpec::Selector>& selector_names();
const NameTable<cluster::ProducerSpec::Transactions::CheckAnswers>& check_answers_names();
const NameTable<cluster::ConsumerSpec::Replies::Body>& reply_body_names();

// The name of `value` in `table`; asserts that the table has it.
template <typename E>
std::string_view name_in(const NameTable<E>& table, E value) {
  for (const auto& [name, v] : table) {
    if (v == value) return name;
  }
  FERRY_ASSERT(false, "no name for enum value {} in its table", static_cast<int>(value));
  return {};
}

}  // namespace ferry::sim::scenario
