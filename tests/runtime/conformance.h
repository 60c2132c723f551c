// The runtime conformance harness: one interface over both runtimes, so the same test cases
// (tests/runtime/conformance_test.cc) run against the Asio runtime and the simulator.
#pragma once

#include <memory>
#include <string>

#include "runtime/runtime.h"

namespace ferry::testing {

class RuntimeHarness {
 public:
  virtual ~RuntimeHarness() = default;
  virtual std::string name() const = 0;
  // The node under test. Its file system starts empty (a fresh temp dir / a fresh sim disk).
  virtual Runtime& rt() = 0;
  // A second node, for connections between nodes (the Asio harness may return rt() itself).
  virtual Runtime& peer() = 0;
  // Drives the loop(s) until `task` (spawned on rt()) finishes. Fails the current test (gtest
  // ADD_FAILURE) if it does not finish within `limit` (real time for Asio, virtual time for the
  // simulator) or if the simulator reports a deadlock. Returns true when the task finished.
  virtual bool run(Task<void> task, Duration limit) = 0;
  // An address to listen on with port 0 (the runtime picks the port): "127.0.0.1:0" in
  // production, the node's simulated IP in simulation.
  virtual Endpoint listen_address(Runtime& node) = 0;
};

std::unique_ptr<RuntimeHarness> make_asio_harness();
// The production runtime serving and dialling TLS only (asio_harness.cc).
std::unique_ptr<RuntimeHarness> make_asio_tls_harness();
std::unique_ptr<RuntimeHarness> make_sim_harness(std::uint64_t seed);

}  // namespace ferry::testing
