#include "sim/real/testbed.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

#include <fmt/format.h>

#include "runtime/assert.h"
#include "sim/real/host_command.h"

namespace ferry::sim::real {

namespace {

constexpr std::size_t kHostsMax = 200;
constexpr std::size_t kHostNameMax = 40;
constexpr const char* kNetnsDir = "/run/netns";

std::string prefix_of(long pid) { return fmt::format("ferry{}-", pid); }

bool valid_host_name(const std::string& h) {
  if (h.empty() || h.size() > kHostNameMax || h == "hub") return false;
  for (char c : h) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

// The pid of a namespace name "ferry<pid>-...", 0 for anything else.
long pid_of_netns(const std::string& name) {
  if (name.rfind("ferry", 0) != 0) return 0;
  const char* begin = name.data() + 5;
  const char* end = name.data() + name.size();
  long pid = 0;
  const auto [at, ec] = std::from_chars(begin, end, pid);
  if (ec != std::errc() || at == begin || at == end || *at != '-') return 0;
  return pid;
}

std::vector<std::string> all_netns() {
  std::vector<std::string> out;
  DIR* d = opendir(kNetnsDir);
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") out.push_back(name);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

// Kills whatever runs in namespace `ns` (SIGKILL; a stopped process dies too).
void kill_inside(const std::string& ip_tool, const std::string& ns) {
  auto pids = run_host_command({ip_tool, "netns", "pids", ns});
  if (!pids) return;
  std::size_t at = 0;
  const std::string& text = *pids;
  while (at < text.size()) {
    std::size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    long pid = 0;
    const auto [p, ec] = std::from_chars(text.data() + at, text.data() + nl, pid);
    if (ec == std::errc() && pid > 1 && pid != static_cast<long>(getpid())) ::kill(static_cast<pid_t>(pid), SIGKILL);
    at = nl + 1;
  }
}

// The per-host table: see the header.
std::string host_table(const std::string& self_ip) {
  return fmt::format(
      "table inet ferry {{\n"
      "  set cut_to {{ type ipv4_addr; }}\n"
      "  set dark {{ type ipv4_addr; flags interval; }}\n"
      "  chain out {{ type filter hook output priority 0; policy accept;\n"
      "    oifname \"lo\" accept\n"
      "    ip daddr @dark drop\n"
      "    ip daddr @cut_to drop\n"
      "  }}\n"
      "  chain in {{ type filter hook input priority 0; policy accept;\n"
      "    iifname \"lo\" accept\n"
      "    ip saddr @dark drop\n"
      "  }}\n"
      "}}\n"
      "# {}\n",
      self_ip);
}

}  // namespace

Result<std::unique_ptr<Testbed>> Testbed::create(const std::vector<std::string>& hosts) {
  if (geteuid() != 0) {
    return Error(Errc::unsupported, "mqsim run --real needs root: it makes network namespaces, veth links and nftables rules");
  }
  if (hosts.empty() || hosts.size() > kHostsMax) {
    return Error(Errc::invalid_argument, fmt::format("a testbed has 1 to {} hosts, not {}", kHostsMax, hosts.size()));
  }
  std::unique_ptr<Testbed> t(new Testbed());
  t->pid_ = static_cast<long>(getpid());
  t->ip_tool_ = find_program("ip");
  t->nft_tool_ = find_program("nft");
  if (t->ip_tool_.empty()) return Error(Errc::unsupported, "mqsim run --real needs `ip` (Debian package iproute2)");
  if (t->nft_tool_.empty()) return Error(Errc::unsupported, "mqsim run --real needs `nft` (Debian package nftables)");
  for (const std::string& h : hosts) {
    if (!valid_host_name(h)) return Error(Errc::invalid_argument, fmt::format("\"{}\" is not a testbed host name", h));
    if (!t->index_.emplace(h, t->hosts_.size()).second) {
      return Error(Errc::invalid_argument, fmt::format("host \"{}\" is named twice", h));
    }
    t->hosts_.push_back(h);
  }
  const std::string& ip = t->ip_tool_;
  const std::string hub = prefix_of(t->pid_) + "hub";
  auto fail = [&t](Error e) -> Result<std::unique_ptr<Testbed>> {
    (void)t->remove();
    return e;
  };
  if (auto r = run_host_command({ip, "netns", "add", hub}); !r) return fail(r.error());
  t->made_.push_back(hub);
  t->hub_fd_ = open((std::string(kNetnsDir) + "/" + hub).c_str(), O_RDONLY | O_CLOEXEC);
  if (t->hub_fd_ < 0) return fail(Error(Errc::io_error, fmt::format("open {}/{}: {}", kNetnsDir, hub, std::strerror(errno))));
  // Commands inside a namespace run in a child that entered it (run_in_netns), not with `ip -n`,
  // whose remount of / fails in a chroot.
  for (const auto& cmd : std::vector<std::vector<std::string>>{
           {ip, "link", "add", "br0", "type", "bridge"}, {ip, "link", "set", "br0", "up"}, {ip, "link", "set", "lo", "up"}}) {
    if (auto r = run_in_netns(t->hub_fd_, cmd); !r) return fail(r.error());
  }
  for (std::size_t i = 0; i < t->hosts_.size(); ++i) {
    const std::string ns = t->netns(t->hosts_[i]);
    if (auto r = run_host_command({ip, "netns", "add", ns}); !r) return fail(r.error());
    t->made_.push_back(ns);
    const std::string outer = fmt::format("fv{}x{}", t->pid_, i);
    const std::string addr = t->ip(t->hosts_[i]) + "/24";
    const int fd = open((std::string(kNetnsDir) + "/" + ns).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return fail(Error(Errc::io_error, fmt::format("open {}/{}: {}", kNetnsDir, ns, std::strerror(errno))));
    t->fds_.push_back(fd);
    for (const auto& cmd : std::vector<std::vector<std::string>>{
             {ip, "link", "add", outer, "type", "veth", "peer", "name", "eth0", "netns", ns},
             {ip, "link", "set", outer, "master", "br0", "up"}}) {
      if (auto r = run_in_netns(t->hub_fd_, cmd); !r) return fail(r.error());
    }
    for (const auto& cmd : std::vector<std::vector<std::string>>{
             {ip, "addr", "add", addr, "dev", "eth0"}, {ip, "link", "set", "eth0", "up"}, {ip, "link", "set", "lo", "up"}}) {
      if (auto r = run_in_netns(fd, cmd); !r) return fail(r.error());
    }
    if (Status s = t->nft(t->hosts_[i], host_table(t->ip(t->hosts_[i]))); !s.ok()) return fail(s.error());
  }
  return t;
}

Testbed::~Testbed() { (void)remove(); }

Status Testbed::remove() {
  if (removed_) return Status();
  removed_ = true;
  for (int fd : fds_) close(fd);
  fds_.clear();
  if (hub_fd_ >= 0) close(hub_fd_);
  hub_fd_ = -1;
  Status first;
  // Hosts first, the hub (with the bridge) last.
  for (auto it = made_.rbegin(); it != made_.rend(); ++it) {
    kill_inside(ip_tool_, *it);
    if (auto r = run_host_command({ip_tool_, "netns", "del", *it}); !r && first.ok()) first = r.error();
  }
  made_.clear();
  return first;
}

std::string Testbed::ip(const std::string& host) const {
  auto it = index_.find(host);
  FERRY_ASSERT(it != index_.end(), "no testbed host {}", host);
  return fmt::format("10.77.0.{}", 10 + it->second);
}

std::string Testbed::netns(const std::string& host) const {
  FERRY_ASSERT(index_.count(host) > 0, "no testbed host {}", host);
  return prefix_of(pid_) + host;
}

int Testbed::netns_fd(const std::string& host) const {
  auto it = index_.find(host);
  FERRY_ASSERT(it != index_.end() && it->second < fds_.size(), "no open namespace for testbed host {}", host);
  return fds_[it->second];
}

Status Testbed::nft(const std::string& host, const std::string& script) {
  auto r = run_in_netns(netns_fd(host), {nft_tool_, "-f", "-"}, script);
  if (!r) return r.error();
  return Status();
}

Status Testbed::cut(const std::string& from, const std::string& to) {
  if (!cuts_.insert({from, to}).second) return Status();
  return nft(from, fmt::format("add element inet ferry cut_to {{ {} }}\n", ip(to)));
}

Status Testbed::uncut(const std::string& from, const std::string& to) {
  if (cuts_.erase({from, to}) == 0) return Status();
  return nft(from, fmt::format("delete element inet ferry cut_to {{ {} }}\n", ip(to)));
}

Status Testbed::darken(const std::string& host) {
  if (!dark_.insert(host).second) return Status();
  return nft(host, fmt::format("add element inet ferry dark {{ {} }}\n", kSubnet));
}

Status Testbed::undarken(const std::string& host) {
  if (dark_.erase(host) == 0) return Status();
  return nft(host, fmt::format("delete element inet ferry dark {{ {} }}\n", kSubnet));
}

Status Testbed::heal_all() {
  Status first;
  const auto cuts = cuts_;
  for (const auto& [from, to] : cuts) {
    if (Status s = uncut(from, to); !s.ok() && first.ok()) first = s;
  }
  const auto dark = dark_;
  for (const std::string& h : dark) {
    if (Status s = undarken(h); !s.ok() && first.ok()) first = s;
  }
  return first;
}

std::vector<std::string> Testbed::describe_cuts() const {
  std::vector<std::string> out;
  for (const auto& [from, to] : cuts_) out.push_back(from + "->" + to);
  for (const std::string& h : dark_) out.push_back("dark:" + h);
  return out;
}

Result<std::size_t> Testbed::sweep() {
  const std::string ip = find_program("ip");
  if (ip.empty()) return Error(Errc::unsupported, "no `ip` (Debian package iproute2)");
  std::size_t removed = 0;
  std::vector<std::string> names = all_netns();
  // Hosts before hubs: a hub's name sorts after nothing in particular, so do two passes.
  for (int pass = 0; pass < 2; ++pass) {
    for (const std::string& n : names) {
      const long pid = pid_of_netns(n);
      if (pid == 0 || (n.size() >= 4 && n.compare(n.size() - 4, 4, "-hub") == 0) != (pass == 1)) continue;
      if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // its run goes on
      kill_inside(ip, n);
      if (auto r = run_host_command({ip, "netns", "del", n}); !r) return r.error();
      ++removed;
    }
  }
  return removed;
}

std::vector<std::string> Testbed::namespaces_of(long pid) {
  std::vector<std::string> out;
  for (const std::string& n : all_netns()) {
    if (pid_of_netns(n) == pid) out.push_back(n);
  }
  return out;
}

}  // namespace ferry::sim::real
