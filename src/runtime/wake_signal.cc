#include "runtime/wake_signal.h"

namespace ferry {

Task<bool> WakeSignal::wait_for(Duration timeout) {
  if (pending_) {
    pending_ = false;
    co_return true;
  }
  if (waiting_ && waiting_->abandoned()) waiting_.reset();  // its waiter was destroyed
  FERRY_ASSERT(!waiting_.has_value(), "WakeSignal: a second waiter");
  Completion<bool> done(rt_.executor());
  waiting_.emplace(done);
  Timers& timers = rt_.timers();
  const TimerId timer = timers.schedule(timeout, [done] {
    if (!done.completed()) done.complete(false);
  });
  done.on_abandon([&timers, timer] { timers.cancel(timer); });
  const bool woken = co_await done.wait();
  waiting_.reset();
  if (woken) rt_.timers().cancel(timer);
  co_return woken;
}

void WakeSignal::wake() {
  if (waiting_ && !waiting_->completed() && !waiting_->abandoned()) {
    waiting_->complete(true);
    return;
  }
  pending_ = true;
}

}  // namespace ferry
