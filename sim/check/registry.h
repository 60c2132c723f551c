// The checkers, found by name: every part of the simulator that needs to know which checkers
// exist — the scenario parser ([checks.<name>] tables and their options), the runner and `mqsim
// check` (run_all_checks), `mqsim list --checkers`, the docs tables (checked against the registry
// by a test) — asks the registry, so a new checker is one .h/.cc pair plus one registration line.
//
// A checker is a CheckerSpec: its name (also its verdict's), what it judges, whether it runs on
// every History or only when a scenario asks for it, the options a scenario may give it (with
// defaults and ranges; named checks only), the History records it reads, and the function that
// judges. The built-in checkers are registered in a fixed order (builtin_checkers.cc: that is the
// order of the verdicts); a checker defined elsewhere (a test, a user's build) registers with a
// static RegisterChecker object and comes after them, in name order.
//
// Registration happens before main (static objects); the registry is read-only from its first
// use on (a later registration is a bug and asserts), so runs in several threads may read it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/check/verdict.h"
#include "sim/history/history.h"
#include "sim/history/option_value.h"
#include "sim/history/spec_registry.h"

namespace ferry::sim::check {

// The kinds of History record a checker reads (History's fields).
enum class Record : std::uint32_t {
  sends = 1 << 0,
  consumes = 1 << 1,
  events = 1 << 2,
  subscriptions = 1 << 3,
  routes = 1 << 4,
  registrations = 1 << 5,
  consumers = 1 << 6,
  commits = 1 << 7,
  takes = 1 << 8,
  store_restarts = 1 << 9,
  error_logs = 1 << 10,
  producers = 1 << 11,  // what the producer apps recorded at start (latency_fault_producers)
  controller_views = 1 << 12,
  broker_epochs = 1 << 13,
  queue_floors = 1 << 14,
  metric_samples = 1 << 15,
  requests = 1 << 16,
  pop_acks = 1 << 17,
};
inline constexpr std::uint32_t kRecordKinds = 18;
using Records = std::uint32_t;  // a set of Record bits
constexpr Records operator|(Record a, Record b) {
  return static_cast<Records>(static_cast<Records>(a) | static_cast<Records>(b));
}
constexpr Records operator|(Records a, Record b) { return static_cast<Records>(a | static_cast<Records>(b)); }
// "sends, consumes, events" (in the order above).
std::string records_text(Records r);
// The kind named `name` (a History field name, as records_text writes it); 0 for none.
Records record_named(std::string_view name);

struct CheckerSpec {
  std::string name;   // "lost-acked", "failover": the verdict's name and the [checks.<name>] table
  std::string story;  // one line: what it judges
  // True: runs on every History (ruled by the scenario-wide settings, History::settings). False:
  // a named check, run only when the scenario asks ([checks.<name>]; History::settings.named).
  bool always = false;
  std::vector<OptionSpec> options;  // named checks only
  Records needs = 0;
  // Judges `h`; `options` holds every option of `options` above (empty for an always-run one).
  std::function<Verdict(const History& h, const OptionValues& options)> judge;
};

using CheckerRegistry = SpecRegistry<CheckerSpec>;

// The registry (made on first use; read-only from then on).
const CheckerRegistry& checkers();

// Registers a checker defined outside the built-in list: a static object in its own file.
//   const RegisterChecker kMine{CheckerSpec{"my-check", "...", true, {}, Records(Record::sends), &judge_mine}};
// Asserts that the name is new and that the registry has not been read yet.
struct RegisterChecker {
  explicit RegisterChecker(CheckerSpec spec) { CheckerRegistry::add(std::move(spec)); }
};

// The built-in checkers, in verdict order (builtin_checkers.cc: one line each).
std::vector<CheckerSpec> builtin_checkers();

}  // namespace ferry::sim::check
