// Signal: one coroutine sleeps until a deadline or until somebody calls wake(), whichever
// comes first (the registration loop waits 30 s or for a topic change).
//
// A wake() while nobody waits is remembered: the next wait_for() returns at once. Owned by a
// component; the waiting coroutine must belong to the same node. Destroying the waiting frame
// cancels its timer.
#pragma once

#include <optional>

#include "runtime/completion.h"
#include "runtime/runtime.h"

namespace ferry::broker {

class Signal {
 public:
  explicit Signal(Runtime& rt) : rt_(rt) {}
  Signal(const Signal&) = delete;
  Signal& operator=(const Signal&) = delete;

  // Returns true when woken, false when `timeout` passed first. One waiter at a time.
  Task<bool> wait_for(Duration timeout);
  void wake();

 private:
  Runtime& rt_;
  std::optional<Completion<bool>> waiting_;
  bool pending_ = false;
};

}  // namespace ferry::broker
