// DaemonProcess: one real daemon of a `mqsim run --real` (mqnamesrv, mqbroker, mqcontroller), a
// child process in its host's network namespace, with stdout and stderr appended to a log file.
// The runner does to it what an operator or a crash would: start, SIGKILL, SIGSTOP/SIGCONT, a
// graceful SIGTERM. Not component code: it forks and execs.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "runtime/result.h"
#include "runtime/time.h"

namespace ferry::sim::real {

class DaemonProcess {
 public:
  // `argv[0]` is the program's path; `netns_fd` the namespace it runs in (setns before exec);
  // `log_file` gets its stdout and stderr, appended across lives.
  // `env`: NAME=value entries added to the runner's environment for every life (libfaketime's).
  DaemonProcess(std::string name, std::vector<std::string> argv, int netns_fd, std::string log_file,
                std::vector<std::string> env = {});
  ~DaemonProcess();  // kills a process still running (SIGKILL) and reaps it
  DaemonProcess(const DaemonProcess&) = delete;
  DaemonProcess& operator=(const DaemonProcess&) = delete;

  const std::string& name() const { return name_; }
  // Starts a new life. Errors: already running; fork failed.
  Status start();
  // SIGKILL and reap (a stopped process dies too). No-op when not running.
  void kill();
  // SIGTERM, then up to `grace` for it to exit; SIGKILL after that. True when it exited by itself.
  bool terminate(Duration grace);
  void pause();   // SIGSTOP
  void resume();  // SIGCONT
  bool paused() const { return paused_; }
  // Reaps it if it exited; true while it has not.
  bool running();
  // How its last life ended ("exit status 1", "signal 9"), "" while it runs or before a start.
  const std::string& last_exit() const { return last_exit_; }
  int lives() const { return lives_; }
  pid_t pid() const { return pid_; }

 private:
  void note_exit(int status);

  std::string name_;
  std::vector<std::string> argv_;
  std::vector<std::string> env_;
  int netns_fd_;
  std::string log_file_;
  pid_t pid_ = -1;
  bool paused_ = false;
  int lives_ = 0;
  std::string last_exit_;
};

}  // namespace ferry::sim::real
