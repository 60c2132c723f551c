#include "tests/daemons/daemon_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace ferry::daemons_test {

std::string mqnamesrv_path() { return FERRY_MQNAMESRV_PATH; }
std::string mqbroker_path() { return FERRY_MQBROKER_PATH; }

namespace {

// The real disk is shared with the rest of CI (a run once saw the host at 90%): brokers of these
// tests refuse puts only at broker.conf's highest ratios. Disk pressure is tested in simulation.
constexpr const char* kLenientDiskConf =
    "diskMaxUsedSpaceRatio=95\ndiskSpaceCleanForciblyRatio=99\ndiskSpaceWarningLevelRatio=99\n";

sockaddr_in loopback(std::uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

}  // namespace

std::uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("socket failed");
  sockaddr_in a = loopback(0);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    ::close(fd);
    throw std::runtime_error("bind to port 0 failed");
  }
  socklen_t len = sizeof(a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

namespace {

// True when nothing is bound to 127.0.0.1:`port` (a bind succeeds).
bool bindable(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in a = loopback(port);
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

std::uint16_t free_broker_port() {
  for (int attempt = 0; attempt < 200; ++attempt) {
    const std::uint16_t p = free_port();
    if (p < 65535 && bindable(static_cast<std::uint16_t>(p + 1))) return p;
  }
  throw std::runtime_error("found no free port whose successor is free too");
}

bool wait_for_port(std::uint16_t port, std::chrono::milliseconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a = loopback(port);
    const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
    ::close(fd);
    if (ok) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

QuorumPorts quorum_ports() {
  QuorumPorts q;
  for (int i = 0; i < 3; ++i) {
    q.namesrv[i] = free_port();
    q.controller[i] = free_port();
    q.peers.append("n").append(std::to_string(i)).append("-127.0.0.1:").append(std::to_string(q.controller[i])).append(";");
  }
  return q;
}

std::string conf_from_example(const std::string& path, std::map<std::string, std::string> overrides) {
  std::istringstream in(read_file(path));
  std::string out;
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find('=');
    if (!line.empty() && line[0] != '#' && eq != std::string::npos) {
      auto it = overrides.find(line.substr(0, eq));
      if (it != overrides.end()) {
        line = it->first + "=" + it->second;
        overrides.erase(it);
      }
    }
    out += line + "\n";
  }
  for (const auto& [k, v] : overrides) out += k + "=" + v + "\n";
  return out;
}

Child::Child(const std::string& exe, const std::vector<std::string>& args, std::string output_path,
             ChildOptions options)
    : output_path_(std::move(output_path)) {
  std::vector<std::string> argv_s;
  argv_s.push_back(exe);
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    const int fd = ::open(output_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::close(fd);
    }
    // Nothing of the test process (its sockets, its files) leaks into the daemon: it would hold
    // the test's connections open and count against the daemon's descriptor limit.
    ::close_range(3, ~0U, 0);
    if (options.open_files_limit) {
      const rlimit lim{static_cast<rlim_t>(*options.open_files_limit), static_cast<rlim_t>(*options.open_files_limit)};
      if (::setrlimit(RLIMIT_NOFILE, &lim) != 0) {
        const char msg[] = "daemon_process: setrlimit(RLIMIT_NOFILE) failed before exec\n";
        (void)!::write(2, msg, sizeof(msg) - 1);  // async-signal-safe: no stdio after fork
        ::_exit(127);
      }
    }
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
}

Child::~Child() {
  if (!status_) {
    ::kill(pid_, SIGKILL);
    int st = 0;
    ::waitpid(pid_, &st, 0);
  }
}

void Child::signal(int sig) const {
  if (!status_) ::kill(pid_, sig);
}

std::optional<int> Child::wait(std::chrono::milliseconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (!status_) {
    int st = 0;
    const pid_t r = ::waitpid(pid_, &st, WNOHANG);
    if (r == pid_) {
      status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      break;
    }
    if (std::chrono::steady_clock::now() >= end) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return status_;
}

bool Child::running() { return !wait(std::chrono::milliseconds(0)).has_value(); }

RunResult run_to_exit(const std::string& exe, const std::vector<std::string>& args, const std::string& output_path,
                      std::chrono::milliseconds timeout) {
  Child c(exe, args, output_path);
  RunResult r;
  auto st = c.wait(timeout);
  r.status = st.value_or(-1);
  r.output = c.output();
  return r;
}

std::unique_ptr<Child> spawn_namesrv(const TempDir& dir, std::uint16_t port) {
  return std::make_unique<Child>(mqnamesrv_path(), std::vector<std::string>{"-p", std::to_string(port), "-d", dir / "ns"},
                                 dir / "namesrv.out");
}

std::string LocalCluster::start_namesrv() {
  ns_port_ = free_port();
  namesrv_ = spawn_namesrv(dir_, ns_port_);
  if (!wait_for_port(ns_port_, std::chrono::seconds(15))) return "mqnamesrv did not come up:\n" + namesrv_->output();
  return "";
}

std::string LocalCluster::start_broker(const std::string& extra_conf) {
  if (broker_port_ == 0) broker_port_ = free_broker_port();
  const std::string conf = dir_ / "broker.conf";
  write_file(conf, "brokerClusterName=TestCluster\nbrokerName=broker-a\nbrokerId=0\nlistenPort=" +
                       std::to_string(broker_port_) + "\nstorePathRootDir=" + (dir_ / "store") +
                       "\nmappedFileSizeCommitLog=1048576\nmaxMessageSize=65536\n" + kLenientDiskConf + extra_conf);
  std::vector<std::string> args{"-c", conf};
  if (ns_port_ != 0) args.insert(args.end(), {"-n", namesrv_addr()});
  broker_ = std::make_unique<Child>(mqbroker_path(), args, dir_ / ("broker-" + std::to_string(++broker_starts_) + ".out"));
  if (!wait_for_port(broker_port_, std::chrono::seconds(15))) return "mqbroker did not come up:\n" + broker_->output();
  return "";
}

std::string LocalCluster::stop_broker() {
  broker_->signal(SIGTERM);
  const std::optional<int> st = broker_->wait(std::chrono::seconds(15));
  if (!st) return "mqbroker did not stop within 15 s:\n" + broker_->output();
  if (*st != 0) return "mqbroker exited with " + std::to_string(*st) + ":\n" + broker_->output();
  return "";
}

std::string LocalCluster::kill_broker() {
  broker_->signal(SIGKILL);
  const std::optional<int> st = broker_->wait(std::chrono::seconds(15));
  if (!st || *st != 128 + SIGKILL) return "mqbroker did not die of SIGKILL:\n" + broker_->output();
  return "";
}

}  // namespace ferry::daemons_test
