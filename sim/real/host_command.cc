#include "sim/real/host_command.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

namespace ferry::sim::real {

namespace {

constexpr std::size_t kOutputKeptMax = 1 << 20;  // what one command may print before we stop keeping it

std::string joined(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    if (!out.empty()) out += ' ';
    out += a;
  }
  return out;
}

std::string first_lines(const std::string& text, std::size_t lines) {
  std::size_t at = 0;
  for (std::size_t i = 0; i < lines && at != std::string::npos; ++i) {
    at = text.find('\n', at == 0 ? 0 : at + 1);
  }
  std::string head = at == std::string::npos ? text : text.substr(0, at);
  while (!head.empty() && (head.back() == '\n' || head.back() == ' ')) head.pop_back();
  return head;
}

}  // namespace

Result<std::string> run_host_command(const std::vector<std::string>& argv, std::string_view input) {
  return run_in_netns(-1, argv, input);
}

Result<std::string> run_in_netns(int netns_fd, const std::vector<std::string>& argv, std::string_view input) {
  if (argv.empty()) return Error(Errc::invalid_argument, "run_host_command: no program");
  int out_pipe[2];
  int in_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return Error(Errc::io_error, fmt::format("pipe: {}", std::strerror(errno)));
  if (pipe2(in_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return Error(Errc::io_error, fmt::format("pipe: {}", std::strerror(errno)));
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {out_pipe[0], out_pipe[1], in_pipe[0], in_pipe[1]}) close(fd);
    return Error(Errc::io_error, fmt::format("fork for {}: {}", argv[0], std::strerror(errno)));
  }
  if (pid == 0) {
    // The child: only async-signal-safe calls until exec.
    if (netns_fd >= 0 && setns(netns_fd, CLONE_NEWNET) != 0) {
      const char msg[] = "setns failed\n";
      (void)!write(out_pipe[1], msg, sizeof msg - 1);
      _exit(126);
    }
    dup2(in_pipe[0], STDIN_FILENO);
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(out_pipe[1], STDERR_FILENO);
    execvp(args[0], args.data());
    const char msg[] = "exec failed\n";
    (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
    _exit(127);
  }
  close(out_pipe[1]);
  close(in_pipe[0]);
  // Small inputs only (a pipe's buffer, 64 KiB): written before reading, then closed.
  std::size_t written = 0;
  while (written < input.size()) {
    const ssize_t n = write(in_pipe[1], input.data() + written, input.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  close(in_pipe[1]);
  std::string output;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(out_pipe[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (output.size() < kOutputKeptMax) output.append(buf, static_cast<std::size_t>(n));
  }
  close(out_pipe[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return output;
  const std::string how = WIFEXITED(status) ? fmt::format("exit status {}", WEXITSTATUS(status))
                                            : fmt::format("signal {}", WIFSIGNALED(status) ? WTERMSIG(status) : -1);
  return Error(Errc::io_error, fmt::format("`{}` failed ({}): {}", joined(argv), how, first_lines(output, 3)));
}

std::string find_program(const std::string& program) {
  const char* path = std::getenv("PATH");
  const std::string dirs = std::string(path != nullptr ? path : "/usr/bin:/bin") + ":/usr/sbin:/sbin";
  std::size_t at = 0;
  for (;;) {
    const std::size_t colon = dirs.find(':', at);
    const std::string dir = dirs.substr(at, colon == std::string::npos ? std::string::npos : colon - at);
    const std::string file = (dir.empty() ? "." : dir) + "/" + program;
    struct stat st {};
    if (stat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(file.c_str(), X_OK) == 0) return file;
    if (colon == std::string::npos) return "";
    at = colon + 1;
  }
}

}  // namespace ferry::sim::real
