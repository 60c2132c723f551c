// Selection: what a consumer's SQL92 subscription selects of the workload's messages.
//
// Every workload message carries two properties a selector may read (sim/cluster/workload.cc):
// `n`, its sequence number modulo 10 (as text), and KEYS, its key ("key-0".."key-3" by default).
// A scenario's `sql` may read only those (compile_selector refuses others), so whether a message
// is selected follows from its SendRecord (or an intact ConsumeRecord) alone, with the broker's
// own evaluator. A consumer with a selector is owed only what it selects (owed.h,
// acked_progress.h), and the checker `selection` fails when one consumes what it does not.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "common/sql92/expression.h"
#include "runtime/result.h"
#include "sim/history/history.h"

namespace ferry::sim {

inline constexpr std::uint64_t kSelectorModulus = 10;
inline constexpr std::string_view kSelectorSeqProperty = "n";

// The properties of workload message `seq` with `key` as a selector sees them (encoded,
// common/properties.h).
std::string workload_properties(std::uint64_t seq, std::string_view key);

// Errors (invalid_argument): the SQL92 compiler's (line and column), or a property other than
// n and KEYS.
Result<std::shared_ptr<const sql92::Expression>> compile_selector(std::string_view sql);

class Selection {
 public:
  // Reads h.consumers as it is at each call (consumers are recorded as they start).
  explicit Selection(const History& h) : h_(h) {}

  // Whether `consumer` (a node name) is owed message (seq, key): true without a selector.
  bool selects_for_consumer(const std::string& consumer, std::uint64_t seq, std::string_view key) const;
  // The same for a group: its consumers share one selector (the scenario parser sees to it).
  bool selects_for_group(const std::string& group, std::uint64_t seq, std::string_view key) const;
  // The selector text of `group` ("" when it has none).
  const std::string& group_sql(const std::string& group) const;

 private:
  bool selects(const std::string& sql, std::uint64_t seq, std::string_view key) const;

  const History& h_;
  mutable std::map<std::string, std::shared_ptr<const sql92::Expression>> compiled_;  // by text
};

}  // namespace ferry::sim
