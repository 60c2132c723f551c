#include "daemon/properties_rewrite.h"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

namespace ferry::daemon {

namespace {

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

Error sys_error(const std::string& what, const std::string& path) {
  return Error(Errc::io_error, fmt::format("{} {}: {}", what, path, std::strerror(errno)));
}

Status sync_path(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0) return sys_error("open", path);
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return sys_error("fsync", path);
  return Status();
}

}  // namespace

std::string rewrite_properties_text(const std::string& text, const std::map<std::string, std::string>& changes) {
  std::set<std::string> seen;
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const std::string t = trimmed(line);
    const auto eq = t.find('=');
    if (!t.empty() && t[0] != '#' && t[0] != '!' && eq != std::string::npos) {
      const std::string key = trimmed(t.substr(0, eq));
      if (auto c = changes.find(key); c != changes.end()) {
        out += fmt::format("{}={}\n", key, c->second);
        seen.insert(key);
        continue;
      }
    }
    out += line + "\n";
  }
  for (const auto& [key, value] : changes) {
    if (!seen.contains(key)) out += fmt::format("{}={}\n", key, value);
  }
  return out;
}

Status rewrite_properties_file(const std::string& path, const std::map<std::string, std::string>& changes) {
  std::string text;
  {
    std::ifstream in(path, std::ios::binary);
    if (!in) return sys_error("read", path);
    std::ostringstream all;
    all << in.rdbuf();
    text = all.str();
  }
  const std::string next = rewrite_properties_text(text, changes);
  const std::string tmp = path + ".tmp";
  {
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return sys_error("create", tmp);
    std::size_t done = 0;
    while (done < next.size()) {
      const ssize_t n = ::write(fd, next.data() + done, next.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        const Error e = sys_error("write", tmp);
        ::close(fd);
        return e;
      }
      done += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0) {
      const Error e = sys_error("fsync", tmp);
      ::close(fd);
      return e;
    }
    ::close(fd);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) return sys_error("rename to", path);
  const auto slash = path.find_last_of('/');
  return sync_path(slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash)), O_RDONLY | O_DIRECTORY);
}

}  // namespace ferry::daemon
