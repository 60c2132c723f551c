#include "sim/net/listener.h"

#include "sim/net/connection.h"
#include "sim/net/network.h"

namespace ferry::sim {

Task<Result<std::unique_ptr<Connection>>> SimListener::accept() {
  for (;;) {
    if (state_->closed) co_return Error(Errc::closed, "listener " + state_->local.to_string() + " is closed");
    if (!state_->backlog.empty()) {
      std::shared_ptr<ConnState> conn = std::move(state_->backlog.front());
      state_->backlog.pop_front();
      co_return std::unique_ptr<Connection>(std::make_unique<SimConnection>(net_, std::move(conn), 1));
    }
    FERRY_ASSERT(!state_->accept_wait || state_->accept_wait->abandoned(), "two accepts in progress on {}",
                 state_->local.to_string());
    Completion<bool> arrived(net_.executor_of(state_->node));
    state_->accept_wait = arrived;
    (void)co_await arrived.wait();
  }
}

void SimListener::close() {
  if (!state_->closed) net_.close_listener(*state_);
}

}  // namespace ferry::sim
