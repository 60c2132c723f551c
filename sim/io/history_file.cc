#include "sim/io/history_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "sim/history/history_codec.h"

namespace ferry::sim::io {

Result<sim::History> load_history_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    const int err = errno;
    return Error(err == ENOENT ? Errc::not_found : Errc::io_error,
                 fmt::format("{}: cannot open: {}", path, std::strerror(err)));
  }
  const std::streamoff size = in.tellg();
  if (size < 0) return Error(Errc::io_error, fmt::format("{}: cannot tell its size", path));
  if (static_cast<std::uint64_t>(size) > kHistoryFileBytesMax) {
    return Error(Errc::invalid_argument,
                 fmt::format("{}: {} bytes, more than the {} a history may hold", path, size, kHistoryFileBytesMax));
  }
  std::string bytes(static_cast<std::size_t>(size), '\0');
  in.seekg(0);
  if (!in.read(bytes.data(), size)) return Error(Errc::io_error, fmt::format("{}: short read", path));
  Result<sim::History> h = sim::decode_history(bytes, sim::encoding_for_path(path));
  if (!h.ok()) return Error(h.error().code, fmt::format("{}: {}", path, h.error().detail));
  return h;
}

Status save_history_file(const std::string& path, const sim::History& h) {
  const std::string bytes = sim::encode_history(h, sim::encoding_for_path(path));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Error(Errc::io_error, fmt::format("{}: cannot create: {}", path, std::strerror(errno)));
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return Error(Errc::io_error, fmt::format("{}: cannot write {} bytes", path, bytes.size()));
  return {};
}

}  // namespace ferry::sim::io
