#include "runtime/runtime.h"

#include <charconv>
#include <memory>
#include <utility>

namespace ferry {

void post_to(Executor& ex, std::function<void()> fn) { ex.post(std::move(fn)); }

void Executor::spawn(Task<void> task, std::string name) {
  // Start through post() so spawn never runs task code inline in its caller. The task waits in
  // the set; what is posted is small enough for std::function to hold without allocating.
  if (!on_loop_thread()) {
    // Another thread: the task travels inside the posted callback (a std::function must be
    // copyable, so it moves into a shared holder) and enters the set on the loop.
    auto holder = std::make_shared<std::pair<Task<void>, std::string>>(std::move(task), std::move(name));
    post([this, holder] { tasks_.start(std::move(holder->first), std::move(holder->second)); });
    return;
  }
  const std::uint64_t ticket = tasks_.enqueue(std::move(task), std::move(name));
  post([this, ticket] { tasks_.start_queued(ticket); });
}

Completion<bool>::Awaiter Timers::sleep(Duration d) {
  FERRY_ASSERT(executor_ != nullptr, "Timers used before bind()");
  Completion<bool> c(*executor_);
  const TimerId id = schedule(d, [c] { c.complete(true); });
  c.on_abandon([this, id] { cancel(id); });
  return c.wait();
}

Task<Status> Connection::write(Bytes buf) {
  const Bytes one[1] = {buf};
  co_return co_await write(std::span<const Bytes>(one));
}

Task<Status> Connection::read_exact(MutableBytes buf) {
  std::size_t got = 0;
  while (got < buf.size()) {
    auto n = co_await read_some(buf.subspan(got));
    if (!n.ok()) co_return std::move(n).error();
    got += *n;
  }
  co_return Status();
}

Result<Endpoint> Endpoint::parse(std::string_view text) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    return Error(Errc::invalid_argument, "address '" + std::string(text) + "' is not host:port");
  }
  const std::string_view port_text = text.substr(colon + 1);
  unsigned port = 0;
  const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port > 65535 || port_text.empty()) {
    return Error(Errc::invalid_argument, "address '" + std::string(text) + "' has a bad port");
  }
  return Endpoint{std::string(text.substr(0, colon)), static_cast<std::uint16_t>(port)};
}

std::string Endpoint::to_string() const { return host + ":" + std::to_string(port); }

}  // namespace ferry
