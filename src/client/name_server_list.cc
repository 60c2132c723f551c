#include "client/name_server_list.h"

#include <fmt/format.h>

#include <algorithm>

namespace ferry::client {

NameServerList::NameServerList(Runtime& rt, remoting::RpcClient& rpc, std::vector<std::string> addrs, Duration timeout)
    : rt_(rt), rpc_(rpc), addrs_(std::move(addrs)), timeout_(timeout) {
  if (!addrs_.empty()) index_ = static_cast<std::size_t>(rt_.random().below(addrs_.size()));
}

const std::string& NameServerList::current() const {
  static const std::string none;
  return addrs_.empty() ? none : addrs_[index_ % addrs_.size()];
}

void NameServerList::update(std::vector<std::string> addrs) {
  const std::string cur = current();
  addrs_ = std::move(addrs);
  auto it = std::find(addrs_.begin(), addrs_.end(), cur);
  index_ = it == addrs_.end() ? 0 : static_cast<std::size_t>(it - addrs_.begin());
}

Task<Result<remoting::RemotingCommand>> NameServerList::invoke(remoting::RemotingCommand request) {
  // This call's own walk over the list as it is now: calls in flight together (a route poll, a
  // send's route look-up) each try every NameServer once, whatever the others' fail-overs do to
  // index_ meanwhile.
  const std::vector<std::string> addrs = addrs_;
  if (addrs.empty()) co_return Error(Errc::invalid_argument, "no NameServer address configured");
  const std::size_t start = index_ % addrs.size();
  std::string tried;
  std::optional<Error> last;
  for (std::size_t i = 0; i < addrs.size(); ++i) {
    const std::string& addr = addrs[(start + i) % addrs.size()];
    remoting::RemotingCommand copy = request;
    Result<remoting::RemotingCommand> r = co_await rpc_.invoke(addr, std::move(copy), timeout_);
    if (r.ok()) {
      // Stick to the one that answered (if update() kept it listed).
      auto it = std::find(addrs_.begin(), addrs_.end(), addr);
      if (it != addrs_.end()) index_ = static_cast<std::size_t>(it - addrs_.begin());
      co_return r;
    }
    if (auto held = failover_log_.admit(rt_.now(), static_cast<std::int64_t>(r.error().code))) {
      rt_.log().info("NameServer {} did not answer: {}; trying the next one{}", addr, r.error().to_string(),
                     held_back_note(*held));
    }
    tried += tried.empty() ? addr : ", " + addr;
    last = std::move(r).error();
    // The next call starts after the one that failed, unless another call moved on already.
    if (!addrs_.empty() && addrs_[index_ % addrs_.size()] == addr) index_ = (index_ + 1) % addrs_.size();
    ++failovers_;
  }
  co_return Error(last->code, fmt::format("no NameServer answered (tried {}): {}", tried, last->detail));
}

}  // namespace ferry::client
