#include "sim/io/scenario_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

#include "sim/scenario/scenario_parser.h"

namespace ferry::sim::io {

Result<sim::scenario::Scenario> load_scenario(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Error(Errc::not_found, fmt::format("{}: no such scenario file", path));
  }
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return Error(Errc::io_error, fmt::format("{}: {}", path, ec.message()));
  if (size > kScenarioFileBytesMax) {
    return Error(Errc::invalid_argument,
                 fmt::format("{}: {} bytes; a scenario file is at most {} bytes", path, size, kScenarioFileBytesMax));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(Errc::io_error, fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return Error(Errc::io_error, fmt::format("{}: read failed", path));
  return sim::scenario::parse_scenario(text, path);
}

Result<std::vector<std::string>> scenario_files(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return Error(Errc::not_found, fmt::format("{}: not a folder", dir));
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.is_regular_file() && e.path().extension() == ".toml") out.push_back(e.path().string());
  }
  if (ec) return Error(Errc::io_error, fmt::format("{}: {}", dir, ec.message()));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ferry::sim::io
