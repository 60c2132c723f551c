// WaitQueue: coroutines wait until somebody notifies them (a condition variable for one loop).
//
//   while (!ready()) co_await q.wait();   // always re-check: a wake-up is a hint, not a promise
//   q.notify_all();                       // wakes every current waiter (through the executor)
//
// Waiters are woken in the order they started waiting. A waiter whose frame is destroyed simply
// leaves the queue (Completion abandonment). Bounded by the number of waiting coroutines.
#pragma once

#include <deque>

#include "runtime/completion.h"

namespace ferry {

class WaitQueue {
 public:
  explicit WaitQueue(Executor& ex) : ex_(&ex) {}

  Completion<bool>::Awaiter wait() {
    waiters_.emplace_back(*ex_);
    return waiters_.back().wait();
  }
  void notify_all() {
    if (waiters_.empty()) return;  // the common case: no deque built (it allocates)
    std::deque<Completion<bool>> now;
    now.swap(waiters_);
    for (auto& c : now) c.complete(true);
  }
  void notify_one() {
    while (!waiters_.empty()) {
      Completion<bool> c = std::move(waiters_.front());
      waiters_.pop_front();
      if (!c.abandoned()) {
        c.complete(true);
        return;
      }
    }
  }
  std::size_t size() const { return waiters_.size(); }

 private:
  Executor* ex_;
  std::deque<Completion<bool>> waiters_;
};

}  // namespace ferry
