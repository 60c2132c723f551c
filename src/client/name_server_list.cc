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
  if (addrs_.empty()) co_return Error(Errc::invalid_argument, "no NameServer address configured");
  std::string tried;
  std::optional<Error> last;
  const std::size_t n = addrs_.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (addrs_.empty()) break;  // update() emptied the list meanwhile
    const std::string addr = addrs_[index_ % addrs_.size()];
    remoting::RemotingCommand copy = request;
    Result<remoting::RemotingCommand> r = co_await rpc_.invoke(addr, std::move(copy), timeout_);
    if (r.ok()) co_return r;
    rt_.log().info("NameServer {} did not answer: {}; trying the next one", addr, r.error().to_string());
    tried += tried.empty() ? addr : ", " + addr;
    last = std::move(r).error();
    if (!addrs_.empty()) index_ = (index_ + 1) % addrs_.size();
    ++failovers_;
  }
  if (!last) co_return Error(Errc::invalid_argument, "no NameServer address configured");
  co_return Error(last->code, fmt::format("no NameServer answered (tried {}): {}", tried, last->detail));
}

}  // namespace ferry::client
