// Real processes for the daemon tests: fork/exec a daemon from build/bin with its output in a
// file, find free loopback ports, wait for a port to accept, and always kill what was started.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <map>
#include <string>
#include <vector>

#include "tests/support/temp_dir.h"

namespace ferry::daemons_test {

// The tests' one temporary directory (tests/support/temp_dir.h): daemons keep their data and
// output in it.
using ferry::testing::TempDir;

// Paths of the daemons under test (compile definitions from tests/daemons/CMakeLists.txt).
std::string mqnamesrv_path();
std::string mqbroker_path();

// A port on 127.0.0.1 nobody listened on a moment ago (bind to port 0, read it, close).
std::uint16_t free_port();
// A free port P whose successor P + 1 is free too: a broker listens on both (its HA port is
// listenPort + 1).
std::uint16_t free_broker_port();

// True once something accepts TCP connections on 127.0.0.1:port, false after `timeout`.
bool wait_for_port(std::uint16_t port, std::chrono::milliseconds timeout);

void write_file(const std::string& path, const std::string& text);
std::string read_file(const std::string& path);
// Three NameServers with embedded controllers on free ports: their listen ports, their
// controllers' ports, and the controllerDLegerPeers value naming them n0..n2.
struct QuorumPorts {
  std::uint16_t namesrv[3] = {};
  std::uint16_t controller[3] = {};
  std::string peers;
};
QuorumPorts quorum_ports();

// The properties file at `path` (an example in conf/) with the values of `overrides` in place of
// the file's; keys the file does not have are appended.
std::string conf_from_example(const std::string& path, std::map<std::string, std::string> overrides);

// How a Child starts, besides its arguments.
struct ChildOptions {
  // RLIMIT_NOFILE (soft and hard) set in the child between fork and exec, e.g. to make a daemon
  // run out of descriptors with a few hundred connections; unset: inherited. A limit the child
  // cannot set (above the parent's hard limit) makes it exit 127 before exec, saying so.
  std::optional<std::uint64_t> open_files_limit;
};

// One child process; stdout and stderr go to `output_path`, and no other descriptor of the test
// process is inherited. The destructor SIGKILLs it if it
// is still running and reaps it, so no test leaves a daemon behind.
class Child {
 public:
  Child(const std::string& exe, const std::vector<std::string>& args, std::string output_path,
        ChildOptions options = {});
  ~Child();
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }
  void signal(int sig) const;
  // The exit status (WEXITSTATUS, or 128 + signal when killed by one) once the child ended, or
  // nullopt if it is still running after `timeout`.
  std::optional<int> wait(std::chrono::milliseconds timeout);
  bool running();
  std::string output() const { return read_file(output_path_); }

 private:
  pid_t pid_ = -1;
  std::optional<int> status_;
  std::string output_path_;
};

// mqnamesrv on `port` with its data in `dir`/ns and its output in `dir`/namesrv.out (not waited
// for: wait_for_port).
std::unique_ptr<Child> spawn_namesrv(const TempDir& dir, std::uint16_t port);

// Runs `exe args` to completion (killed after `timeout`): exit status and combined output.
struct RunResult {
  int status = -1;
  std::string output;
};
RunResult run_to_exit(const std::string& exe, const std::vector<std::string>& args, const std::string& output_path,
                      std::chrono::milliseconds timeout);

// A NameServer and one broker (cluster TestCluster, broker-a, 1 MiB CommitLog files, 64 KiB
// messages at most) on free ports of 127.0.0.1, data and output under `dir`. The daemons die with
// the object (SIGKILL, see Child) unless stopped before.
class LocalCluster {
 public:
  explicit LocalCluster(const TempDir& dir) : dir_(dir) {}

  // Each returns "" once the daemon accepts connections, else what went wrong with its output.
  std::string start_namesrv();
  // broker.conf = the base keys + `extra_conf` ("key=value\n" lines; later keys win). The first
  // call picks the port; later calls (a restart) reuse it and the store.
  std::string start_broker(const std::string& extra_conf = "");
  // SIGTERM and wait (15 s): "" after exit status 0.
  std::string stop_broker();
  // SIGKILL and wait for the process to end: "" when it died of SIGKILL.
  std::string kill_broker();

  std::string namesrv_addr() const { return "127.0.0.1:" + std::to_string(ns_port_); }
  std::string broker_addr() const { return "127.0.0.1:" + std::to_string(broker_port_); }
  Child* broker() { return broker_.get(); }

 private:
  const TempDir& dir_;
  std::uint16_t ns_port_ = 0;
  std::uint16_t broker_port_ = 0;
  std::unique_ptr<Child> namesrv_;
  std::unique_ptr<Child> broker_;
  int broker_starts_ = 0;
};

}  // namespace ferry::daemons_test
