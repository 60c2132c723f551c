#include "sim/real/daemon_process.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

namespace ferry::sim::real {

DaemonProcess::DaemonProcess(std::string name, std::vector<std::string> argv, int netns_fd, std::string log_file,
                             std::vector<std::string> env)
    : name_(std::move(name)), argv_(std::move(argv)), env_(std::move(env)), netns_fd_(netns_fd), log_file_(std::move(log_file)) {}

DaemonProcess::~DaemonProcess() { kill(); }

Status DaemonProcess::start() {
  if (running()) return Error(Errc::invalid_argument, fmt::format("{} is running already (pid {})", name_, pid_));
  const int log_fd = open(log_file_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) return Error(Errc::io_error, fmt::format("open {}: {}", log_file_, std::strerror(errno)));
  std::vector<char*> args;
  for (const std::string& a : argv_) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The environment, made before the fork (the child may only call async-signal-safe functions).
  std::vector<char*> envp;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) envp.push_back(*e);
  for (const std::string& e : env_) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(log_fd);
    return Error(Errc::io_error, fmt::format("fork for {}: {}", name_, std::strerror(errno)));
  }
  if (pid == 0) {
    // The child: async-signal-safe calls only until exec. Its own process group, so that a
    // Ctrl-C at the runner's terminal reaches the runner only (which then stops everything).
    setpgid(0, 0);
    if (setns(netns_fd_, CLONE_NEWNET) != 0) _exit(126);
    const int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
    dup2(log_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    execve(args[0], args.data(), envp.data());
    _exit(127);
  }
  close(log_fd);
  pid_ = pid;
  paused_ = false;
  ++lives_;
  last_exit_.clear();
  return Status();
}

void DaemonProcess::note_exit(int status) {
  if (WIFEXITED(status)) {
    last_exit_ = fmt::format("exit status {}", WEXITSTATUS(status));
  } else if (WIFSIGNALED(status)) {
    last_exit_ = fmt::format("signal {}", WTERMSIG(status));
  } else {
    last_exit_ = "ended";
  }
  pid_ = -1;
  paused_ = false;
}

bool DaemonProcess::running() {
  if (pid_ <= 0) return false;
  int status = 0;
  const pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    note_exit(status);
    return false;
  }
  return true;
}

void DaemonProcess::kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  note_exit(status);
}

bool DaemonProcess::terminate(Duration grace) {
  if (!running()) return true;
  if (paused_) ::kill(pid_, SIGCONT);
  ::kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (std::chrono::steady_clock::now() < deadline) {
    if (!running()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill();
  return false;
}

void DaemonProcess::pause() {
  if (!running()) return;
  ::kill(pid_, SIGSTOP);
  paused_ = true;
}

void DaemonProcess::resume() {
  if (!running()) return;
  ::kill(pid_, SIGCONT);
  paused_ = false;
}

}  // namespace ferry::sim::real
