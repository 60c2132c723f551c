// Helpers shared by the simulator's tests.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/log.h"
#include "runtime/network.h"
#include "sim/net/network.h"
#include "sim/node.h"
#include "sim/world.h"

namespace ferry::sim::testing {

// Options for a test world; node start/crash lines are logged only at FERRY_LOG=info or lower.
inline WorldOptions test_options(std::uint64_t seed) {
  if (std::getenv("FERRY_LOG") == nullptr) set_default_log_level(spdlog::level::warn);
  WorldOptions o;
  o.seed = seed;
  return o;
}

inline std::vector<std::uint8_t> bytes_of(const std::string& s) { return std::vector<std::uint8_t>(s.begin(), s.end()); }
inline Bytes view_of(const std::vector<std::uint8_t>& v) { return Bytes(v.data(), v.size()); }

// The seeds a sweep test runs: FERRY_SIM_SEEDS="17" or "1-40" (tests may read the environment),
// else first..last.
inline std::vector<std::uint64_t> sim_seeds(std::uint64_t first, std::uint64_t last) {
  if (const char* env = std::getenv("FERRY_SIM_SEEDS")) {
    const std::string s(env);
    const auto dash = s.find('-');
    first = std::stoull(s.substr(0, dash));
    last = dash == std::string::npos ? first : std::stoull(s.substr(dash + 1));
  }
  std::vector<std::uint64_t> out;
  for (std::uint64_t s = first; s <= last; ++s) out.push_back(s);
  return out;
}

// FERRY_TRY for coroutines returning Task<Status>/Task<Result<T>>.
#define SIM_CO_TRY(expr)                                        \
  do {                                                          \
    auto&& sim_try_r_ = (expr);                                 \
    if (!sim_try_r_.ok()) co_return std::move(sim_try_r_).error(); \
  } while (0)

// Reads a whole file of a node's disk (synchronously: reads are memory operations).
inline std::string read_file(Runtime& rt, const std::string& path) {
  auto f = rt.fs().open(path, {});
  if (!f.ok()) return "<" + f.error().to_string() + ">";
  std::string out((*f)->size(), '\0');
  auto n = (*f)->pread(0, MutableBytes(reinterpret_cast<std::uint8_t*>(out.data()), out.size()));
  if (!n.ok()) return "<" + n.error().to_string() + ">";
  out.resize(*n);
  return out;
}

// What a reader task collected from a connection, and how it ended.
struct Received {
  std::string bytes;
  bool ended = false;
  Errc end = Errc::ok;
};

// Reads `conn` until an error; records everything in `out`. The connection is owned by the task.
inline Task<void> read_all(std::unique_ptr<Connection> conn, std::shared_ptr<Received> out) {
  std::vector<std::uint8_t> buf(1024);
  for (;;) {
    auto n = co_await conn->read_some(MutableBytes(buf.data(), buf.size()));
    if (!n.ok()) {
      out->ended = true;
      out->end = n.error().code;
      co_return;
    }
    out->bytes.append(reinterpret_cast<const char*>(buf.data()), *n);
  }
}

// Accepts connections forever; each is drained by read_all into `out` (one Received each).
inline Task<void> accept_all(std::unique_ptr<Listener> l, Runtime* rt, std::shared_ptr<std::vector<std::shared_ptr<Received>>> out) {
  for (;;) {
    auto c = co_await l->accept();
    if (!c.ok()) co_return;
    auto r = std::make_shared<Received>();
    out->push_back(r);
    rt->spawn(read_all(std::move(*c), r), "read_all");
  }
}

}  // namespace ferry::sim::testing
