// The simulator behind the runtime conformance tests: a world with two bare nodes.
#include <gtest/gtest.h>

#include "tests/runtime/conformance.h"
#include "sim/node.h"
#include "sim/world.h"

namespace ferry::testing {
namespace {

class SimHarness final : public RuntimeHarness {
 public:
  explicit SimHarness(std::uint64_t seed) : seed_(seed), world_(options(seed)) {
    a_ = world_.add_node("node-a");
    b_ = world_.add_node("node-b");
  }

  std::string name() const override { return "sim"; }
  Runtime& rt() override { return world_.node(a_); }
  Runtime& peer() override { return world_.node(b_); }

  bool run(Task<void> task, Duration limit) override {
    sim::TaskRun<void> r = world_.run_task(a_, std::move(task), limit);
    if (!r.ok()) {
      ADD_FAILURE() << "simulated task did not finish: " << r.report.message << " (seed " << seed_
                    << ", trace hash " << world_.trace_hash() << ")";
    }
    return r.ok();
  }

  Endpoint listen_address(Runtime& node) override { return Endpoint{node.network().host(), 0}; }

 private:
  static sim::WorldOptions options(std::uint64_t seed) {
    sim::WorldOptions o;
    o.seed = seed;
    return o;
  }

  std::uint64_t seed_;
  sim::World world_;
  sim::NodeId a_;
  sim::NodeId b_;
};

}  // namespace

std::unique_ptr<RuntimeHarness> make_sim_harness(std::uint64_t seed) { return std::make_unique<SimHarness>(seed); }

}  // namespace ferry::testing
