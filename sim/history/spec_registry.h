// SpecRegistry<Spec>: specs found by name — the checkers (sim/check/registry.h) and the fault
// actions (sim/scenario/fault_registry.h) are each one. A Spec has a `name` (a std::string).
//
// The built-in specs come in the order their list gives; a spec defined elsewhere (a test, a
// user's build) is added before main by a static object calling add(), and comes after them, in
// name order (static objects of different files are made in no fixed order: sorting makes the
// registry the same in every build and run). The registry is made on its first use and is
// read-only from then on: add() after that is a bug and asserts, and runs in several threads may
// read it at once.
#pragma once

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/assert.h"

namespace ferry::sim {

template <typename Spec>
class SpecRegistry {
 public:
  // Every spec: the built-in ones in their order, then the added ones by name.
  const std::vector<Spec>& all() const { return specs_; }
  // nullptr when there is none of that name.
  const Spec* find(std::string_view name) const {
    for (const Spec& s : specs_) {
      if (s.name == name) return &s;
    }
    return nullptr;
  }
  // Asserts that there is one of that name (for names a parser has already checked).
  const Spec& at(std::string_view name) const {
    const Spec* s = find(name);
    FERRY_ASSERT(s != nullptr, "no {} named \"{}\"", kind_, name);
    return *s;
  }

  // The registry of this Spec, made on the first call from `builtins()` and what add() was given;
  // `check` asserts what a spec must hold. Every call must pass the same functions.
  static const SpecRegistry& instance(const char* kind, std::vector<Spec> (*builtins)(), void (*check)(const Spec&)) {
    static const SpecRegistry registry = [&] {
      Pending& p = pending();
      p.frozen = true;
      std::vector<Spec> all = builtins();
      std::vector<Spec> extra = std::move(p.specs);
      std::sort(extra.begin(), extra.end(), [](const Spec& a, const Spec& b) { return a.name < b.name; });
      for (Spec& s : extra) all.push_back(std::move(s));
      for (std::size_t i = 0; i < all.size(); ++i) {
        check(all[i]);
        for (std::size_t j = 0; j < i; ++j)
          FERRY_ASSERT(all[j].name != all[i].name, "two {}s named {}", kind, all[i].name);
      }
      return SpecRegistry(kind, std::move(all));
    }();
    return registry;
  }

  // Adds a spec defined outside the built-in list (from a static object, before main).
  static void add(Spec spec) {
    Pending& p = pending();
    FERRY_ASSERT(!p.frozen, "{} added after the registry was first read (add it from a static object)", spec.name);
    p.specs.push_back(std::move(spec));
  }

 private:
  struct Pending {
    std::vector<Spec> specs;
    bool frozen = false;
  };
  static Pending& pending() {
    static Pending p;
    return p;
  }

  SpecRegistry(const char* kind, std::vector<Spec> specs) : kind_(kind), specs_(std::move(specs)) {}

  const char* kind_;
  std::vector<Spec> specs_;
};

}  // namespace ferry::sim
