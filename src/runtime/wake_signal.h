// WakeSignal: one coroutine sleeps until a deadline or until somebody calls wake(), whichever
// comes first (a broker's registration loop waits 30 s or for a topic change; a client's rebalance
// loop waits 20 s or for NOTIFY_CONSUMER_IDS_CHANGED; a lite pull poll waits for a batch).
//
// A wake() while nobody waits is remembered: the next wait_for() returns true at once. One
// waiter at a time (asserted). The waiter must run on the owner's node; destroying the waiting
// frame cancels its timer. Loop thread only.
#pragma once

#include <optional>

#include "runtime/completion.h"
#include "runtime/runtime.h"

namespace ferry {

class WakeSignal {
 public:
  explicit WakeSignal(Runtime& rt) : rt_(rt) {}
  WakeSignal(const WakeSignal&) = delete;
  WakeSignal& operator=(const WakeSignal&) = delete;

  // True when woken (or a wake was pending), false when `timeout` passed first.
  Task<bool> wait_for(Duration timeout);
  void wake();

 private:
  Runtime& rt_;
  std::optional<Completion<bool>> waiting_;
  bool pending_ = false;
};

}  // namespace ferry
