#include "tools/mqsim/report_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace ferry::mqsim {

std::string report_path(const std::string& file, std::uint64_t seed, bool several) {
  if (!several) return file;
  const auto slash = file.rfind('/');
  const auto dot = file.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash) || dot == 0 || dot == slash + 1) {
    return fmt::format("{}-seed{}", file, seed);
  }
  return fmt::format("{}-seed{}{}", file.substr(0, dot), seed, file.substr(dot));
}

Status save_report(const std::string& path, const std::string& html) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Error(Errc::io_error, fmt::format("{}: cannot create: {}", path, std::strerror(errno)));
  out.write(html.data(), static_cast<std::streamsize>(html.size()));
  out.close();
  if (!out) return Error(Errc::io_error, fmt::format("{}: cannot write {} bytes", path, html.size()));
  return {};
}

}  // namespace ferry::mqsim
