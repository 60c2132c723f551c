#include "cli/namesrv_addrs.h"

#include <fmt/format.h>

#include "common/host_port.h"

namespace ferry::cli {

Result<std::vector<std::string>> parse_namesrv_addrs(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(';', start);
    if (end == std::string::npos) end = text.size();
    std::string piece = text.substr(start, end - start);
    while (!piece.empty() && piece.back() == ' ') piece.pop_back();
    while (!piece.empty() && piece.front() == ' ') piece.erase(piece.begin());
    if (!piece.empty()) {
      Result<HostPort> hp = HostPort::parse(piece);
      if (!hp.ok() || hp->port <= 0 || hp->port > 65535) {
        return Error(Errc::invalid_argument, fmt::format("-n: '{}' is not an ip:port NameServer address", piece));
      }
      out.push_back(piece);
    }
    start = end + 1;
  }
  if (out.empty()) return Error(Errc::invalid_argument, "-n: no NameServer address given");
  return out;
}

}  // namespace ferry::cli
