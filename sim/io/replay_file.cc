#include "sim/io/replay_file.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "sim/io/environment.h"
#include "sim/scenario/scenario_writer.h"

namespace ferry::sim::io {

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

std::string replay_command(const std::string& file, std::uint64_t seed) {
  return fmt::format("{} run {} --seed {}", mqsim_command(), file, seed);
}

std::string write_replay_file(const scenario::Scenario& s, std::uint64_t seed) {
  const std::string text = scenario::write_scenario(s);
  const std::filesystem::path dir = property_dir();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::filesystem::path file =
      std::filesystem::absolute(dir / fmt::format("generated-{:016x}.toml", fnv1a(text)), ec);
  const std::string command = replay_command(file.string(), seed);
  static std::uint64_t written = 0;
  std::filesystem::path partial = file;
  partial += fmt::format(".{}.{}.partial", ::getpid(), ++written);
  std::ofstream out(partial, std::ios::binary | std::ios::trunc);
  out << "# Written by a property test (sim/property/property.h); replay with:\n";
  out << "#   " << command << "\n";
  out << text;
  out.close();
  if (out) std::filesystem::rename(partial, file, ec);
  if (!out || ec) {
    std::filesystem::remove(partial, ec);
    return fmt::format("(could not write {}: the scenario follows)\n{}", file.string(), text);
  }
  return command;
}

void announce_replay(const scenario::Scenario& s, std::uint64_t seed) {
  fmt::print(stderr, "property run: {}\n", write_replay_file(s, seed));
  std::fflush(stderr);
}

}  // namespace ferry::sim::io
