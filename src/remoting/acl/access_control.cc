#include "remoting/acl/access_control.h"

#include <fmt/format.h>

#include <string_view>

namespace ferry::remoting::acl {

AccessControl::AccessControl(Runtime& rt, FileSystem& files, std::string path, std::string display, AclPolicy policy,
                             Duration poll_interval)
    : rt_(rt),
      files_(files),
      path_(std::move(path)),
      display_(std::move(display)),
      policy_(std::move(policy)),
      poll_interval_(poll_interval) {
  FERRY_ASSERT(poll_interval_ > Duration::zero(), "ACL poll interval {} ms", to_ms(poll_interval_));
}

AccessControl::~AccessControl() { stop(); }

Result<std::vector<std::uint8_t>> AccessControl::read_file() const {
  auto file = files_.open(path_, OpenOptions{});
  if (!file) return Error(file.error().code, fmt::format("{}: {}", display_, file.error().to_string()));
  const std::uint64_t size = (*file)->size();
  if (size > kAclFileBytesMax) {
    return Error(Errc::invalid_argument,
                 fmt::format("{}: {} bytes, more than the {} an ACL file may have", display_, size, kAclFileBytesMax));
  }
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
  auto n = (*file)->pread(0, MutableBytes(bytes.data(), bytes.size()));
  if (!n) return Error(n.error().code, fmt::format("{}: {}", display_, n.error().to_string()));
  bytes.resize(*n);
  return bytes;
}

Status AccessControl::load() {
  auto bytes = read_file();
  if (!bytes) return std::move(bytes).error();
  last_bytes_ = *bytes;
  last_missing_ = false;
  auto parsed = parse_acl_yaml(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), display_);
  if (!parsed) return std::move(parsed).error();
  config_ = std::move(*parsed);
  ++reloads_;
  rt_.log().info("ACL: {} loaded: {} account(s), {} global whitelist pattern(s)", display_, config_.accounts.size(),
                 config_.global_white_remote_addresses.size());
  return Status();
}

void AccessControl::start_watching() {
  if (watching_) return;
  watching_ = true;
  arm();
}

void AccessControl::stop() {
  if (!watching_) return;
  watching_ = false;
  rt_.timers().cancel(timer_);
}

void AccessControl::arm() {
  timer_ = rt_.timers().schedule(poll_interval_, [this] {
    if (!watching_) return;
    poll();
    arm();
  });
}

void AccessControl::poll() {
  auto bytes = read_file();
  if (!bytes) {
    if (!last_missing_) {
      rt_.log().error("ACL: cannot read {} ({}); the last good accounts stay in force", display_,
                      bytes.error().to_string());
    }
    last_missing_ = true;
    return;
  }
  last_missing_ = false;
  if (last_bytes_ && *last_bytes_ == *bytes) return;  // unchanged since the last read, good or bad
  last_bytes_ = *bytes;
  auto parsed = parse_acl_yaml(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), display_);
  if (!parsed) {
    rt_.log().error("ACL: {} changed but is not usable, the last good accounts stay in force: {}", display_,
                    parsed.error().detail);
    return;
  }
  config_ = std::move(*parsed);
  ++reloads_;
  rt_.log().info("ACL: {} changed and was reloaded: {} account(s), {} global whitelist pattern(s)", display_,
                 config_.accounts.size(), config_.global_white_remote_addresses.size());
}

std::optional<std::string> AccessControl::check(std::string_view remote_host, const RemotingCommand& request) {
  std::optional<std::string> refusal = check_access(config_, policy_, remote_host, request);
  if (!refusal) return refusal;
  ++refusals_;
  if (auto held = refusal_log_.admit(rt_.now())) {
    rt_.log().warn("ACL: refused request code {} from {}: {} ({} refusal(s) since the last line)", request.code,
                   remote_host, *refusal, *held + 1);
  }
  return refusal;
}

}  // namespace ferry::remoting::acl
