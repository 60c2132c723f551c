#include "daemon/properties_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace ferry::daemon {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

Error line_error(const std::string& file, std::size_t line, std::string what) {
  return Error(Errc::invalid_argument, fmt::format("{}:{}: {}", file, line, what));
}

}  // namespace

Result<PropertiesFile> parse_properties(std::string_view text, std::string file) {
  PropertiesFile out;
  out.file = std::move(file);
  std::map<std::string, std::size_t, std::less<>> index;  // key -> position in entries
  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto nl = text.find('\n', pos);
    const std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    const std::string_view line = trim(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    if (line.empty() || line.front() == '#' || line.front() == '!') continue;
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) {
      return line_error(out.file, line_no, fmt::format("expected key=value, got \"{}\"", line));
    }
    const std::string_view key = trim(line.substr(0, eq));
    const std::string_view value = trim(line.substr(eq + 1));
    if (key.empty()) return line_error(out.file, line_no, fmt::format("empty key in \"{}\"", line));
    if (!value.empty() && value.back() == '\\') {
      return line_error(out.file, line_no,
                        fmt::format("{}: line continuations (a trailing backslash) are not supported", key));
    }
    if (auto it = index.find(key); it != index.end()) {
      Property& earlier = out.entries[it->second];
      out.duplicates.push_back(
          fmt::format("{}:{}: key {} given again on line {}; the later value wins", out.file, earlier.line, key, line_no));
      earlier.line = line_no;
      earlier.value = std::string(value);
    } else {
      index.emplace(std::string(key), out.entries.size());
      out.entries.push_back(Property{line_no, std::string(key), std::string(value)});
    }
  }
  return out;
}

Result<PropertiesFile> read_properties(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Error(Errc::invalid_argument, fmt::format("config file {} is a directory", path));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    return Error(err == ENOENT ? Errc::not_found : Errc::io_error,
                 fmt::format("cannot read config file {}: {}", path, std::strerror(err)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Error(Errc::io_error, fmt::format("cannot read config file {}", path));
  return parse_properties(text.str(), path);
}

}  // namespace ferry::daemon
