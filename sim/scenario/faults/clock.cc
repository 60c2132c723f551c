// Fault action on a node's clock: skew_clock, a jump of its wall clock (kept: a property of the
// machine from then on; the monotonic clock does not move).
#include "sim/scenario/fault_registry.h"

namespace ferry::sim::scenario {

FaultActionSpec skew_clock_fault() {
  FaultActionSpec a;
  a.name = "skew_clock";
  a.story = "the targets' wall clocks jump by `skew` (kept: a property of the machine)";
  a.keys = {{.name = "skew",
             .default_value = Duration{},
             .story = "the jump (skew = \"-5s\" or \"+2m\")",
             .min_duration = -std::chrono::hours(24 * 7),
             .max_duration = std::chrono::hours(24 * 7),
             .signed_ms = true,
             .required = true}};
  a.validate = [](const FaultCheck& c) {
    if (c.entry.param<Duration>("skew") % std::chrono::milliseconds(1) != Duration{}) {
      c.reader.fail("skew", "a wall clock jumps by whole milliseconds");
    }
  };
  a.apply = [](FaultContext& ctx, const FaultEntry& f) {
    const std::int64_t skew_ms = to_ms(f.param<Duration>("skew"));
    return ctx.for_targets(f, [&](NodeId n) { ctx.cluster().skew_wall_clock(n, skew_ms); });
  };
  a.real_apply = [](RealFaults& real, const FaultEntry& f) {
    return each_real_target(f, [&](const std::string& n) { return real.skew_clock(n, f.param<Duration>("skew")); });
  };
  return a;
}

}  // namespace ferry::sim::scenario
