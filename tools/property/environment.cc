// The part of the property library that touches files and the environment (write_replay of
// sim/property.h, sim/property/environment.h), outside sim/: the simulator's code is held to the
// determinism lint.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "runtime/log.h"
#include "sim/property.h"
#include "sim/property/environment.h"
#include "sim/scenario/scenario_writer.h"

#ifndef FERRY_MQSIM_PATH
#define FERRY_MQSIM_PATH "build/bin/mqsim"
#endif

namespace ferry::sim::property {

namespace {

// FNV-1a: a stable name for the same text on every machine.
std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

void quiet_logs_unless_asked() {
  static const bool done = [] {
    const char* level = std::getenv("FERRY_LOG");
    if (level == nullptr || *level == '\0') set_default_log_level(spdlog::level::off);
    return true;
  }();
  (void)done;
}

std::string write_replay(const GeneratedRun& run) {
  const std::string text = scenario::write_scenario(run.scenario);
  const char* dir_env = std::getenv("FERRY_PROPERTY_DIR");
  std::filesystem::path dir = dir_env != nullptr && *dir_env != '\0' ? dir_env : "property-failures";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::filesystem::path file = std::filesystem::absolute(dir / fmt::format("generated-{:016x}.toml", fnv1a(text)), ec);
  // Written beside it and renamed into place: two test processes sharing the folder (the same
  // RapidCheck seed, so the same file) never see each other's half-written file.
  static std::uint64_t written = 0;
  std::filesystem::path partial = file;
  partial += fmt::format(".{}.{}.partial", ::getpid(), ++written);
  std::ofstream out(partial, std::ios::binary | std::ios::trunc);
  out << "# Written by a property test (sim/property.h); replay with:\n";
  out << "#   " << FERRY_MQSIM_PATH << " run " << file.string() << " --seed " << run.seed << "\n";
  out << text;
  out.close();
  if (out) std::filesystem::rename(partial, file, ec);
  if (!out || ec) {
    std::filesystem::remove(partial, ec);
    return fmt::format("(could not write {}: the scenario follows)\n{}", file.string(), text);
  }
  return fmt::format("{} run {} --seed {}", FERRY_MQSIM_PATH, file.string(), run.seed);
}

void announce_run_if_asked(const GeneratedRun& run) {
  static const bool asked = [] {
    const char* announce = std::getenv("FERRY_PROPERTY_ANNOUNCE");
    return announce != nullptr && *announce != '\0';
  }();
  if (!asked) return;
  fmt::print(stderr, "property run: {}\n", write_replay(run));
  std::fflush(stderr);
}

}  // namespace ferry::sim::property
