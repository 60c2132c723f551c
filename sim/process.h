// NodeProcess: the component a simulated node runs (a broker, a name server, a client), built by
// the node's factory from its Runtime& at every start and destroyed on crash, after the node's
// tasks and before its volatile state.
#pragma once

#include <functional>
#include <memory>

#include "runtime/runtime.h"

namespace ferry::sim {

class NodeProcess {
 public:
  virtual ~NodeProcess() = default;
};

using NodeFactory = std::function<std::unique_ptr<NodeProcess>(Runtime&)>;

// Hosts any component type as a NodeProcess: [](Runtime& rt) { return hosted(std::make_unique<T>(rt)); }
template <typename T>
class Hosted final : public NodeProcess {
 public:
  explicit Hosted(std::unique_ptr<T> value) : value_(std::move(value)) {}
  T& get() { return *value_; }

 private:
  std::unique_ptr<T> value_;
};

template <typename T>
std::unique_ptr<NodeProcess> hosted(std::unique_ptr<T> value) {
  return std::make_unique<Hosted<T>>(std::move(value));
}

}  // namespace ferry::sim
