#include "daemon/open_files.h"

#include <sys/resource.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace ferry::daemon {

namespace {
std::uint64_t as_count(rlim_t v) { return v == RLIM_INFINITY ? UINT64_MAX : static_cast<std::uint64_t>(v); }
std::string count_text(std::uint64_t v) { return v == UINT64_MAX ? "unlimited" : std::to_string(v); }
}  // namespace

std::string OpenFilesReport::text() const {
  std::string out = now == before ? fmt::format("open files: soft limit {} (hard {})", count_text(now), count_text(hard))
                                  : fmt::format("open files: soft limit {} raised to {} (hard {})", count_text(before),
                                                count_text(now), count_text(hard));
  if (!error.empty()) out += fmt::format("; raising it failed: {}", error);
  if (low()) {
    out += fmt::format("; below the {} recommended, a broker with many topics or clients may run out of "
                       "descriptors (raise the hard limit: ulimit -Hn, LimitNOFILE=)",
                       kOpenFilesRecommended);
  }
  return out;
}

OpenFilesReport raise_open_files_limit() {
  OpenFilesReport r;
  struct rlimit lim {};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) {
    r.error = std::strerror(errno);
    return r;
  }
  r.before = r.now = as_count(lim.rlim_cur);
  r.hard = as_count(lim.rlim_max);
  if (lim.rlim_cur == lim.rlim_max) return r;
  struct rlimit raised = lim;
  raised.rlim_cur = lim.rlim_max;
  if (::setrlimit(RLIMIT_NOFILE, &raised) != 0) {
    r.error = std::strerror(errno);
    return r;
  }
  r.now = r.hard;
  return r;
}

}  // namespace ferry::daemon
