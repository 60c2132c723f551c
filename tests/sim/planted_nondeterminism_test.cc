// A deliberately non-deterministic component, planted to prove that the same-seed rerun check
// (rerun_check.sh) catches what the determinism lint cannot see: it names objects by their
// addresses and decides by the iteration order of an unordered map of those names, which changes
// from process to process with the heap's (randomized) addresses. (An unordered map keyed by the
// raw pointers would not do: libstdc++ buckets a pointer by its value, and a shifted heap only
// rotates the buckets, keeping the order.) Run by ctest only through
// `rerun_check.sh --expect-difference`.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "tests/support/sim_test_util.h"
#include "tests/support/sim_trace_log.h"

namespace ferry::sim::testing {
namespace {

class PointerOrdered final : public NodeProcess {
 public:
  explicit PointerOrdered(Runtime& rt) {
    for (int i = 0; i < 64; ++i) {
      items_.push_back(std::make_unique<int>(i));
      by_address_.emplace(std::to_string(reinterpret_cast<std::uintptr_t>(items_.back().get())), i);
    }
    // The bug: the map's iteration order decides what is written, and when.
    std::string order;
    for (const auto& [name, i] : by_address_) order += std::to_string(i) + ",";
    rt.spawn(act(&rt, by_address_.begin()->second, order), "act");
  }

 private:
  static Task<void> act(Runtime* rt, int first, std::string order) {
    co_await rt->sleep(std::chrono::milliseconds(first));
    auto f = rt->fs().open("order", OpenOptions{.create = true});
    if (!f.ok()) co_return;
    const auto bytes = bytes_of(order);
    (void)(*f)->pwrite(0, view_of(bytes));
  }

  std::vector<std::unique_ptr<int>> items_;
  std::unordered_map<std::string, int> by_address_;
};

TEST(PlantedNondeterminism, DecidesByPointerOrder) {
  World world(test_options(5));
  world.add_node("n", [](Runtime& rt) { return std::make_unique<PointerOrdered>(rt); });
  world.run_for(std::chrono::seconds(1));
  ferry::testing::record_trace(world);
}

}  // namespace
}  // namespace ferry::sim::testing
