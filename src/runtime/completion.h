// Completion<T>: a one-shot slot through which a runtime back-end wakes one suspended coroutine.
//
// A runtime operation (timer, read, write, sync, connect) creates a Completion, hands a copy to
// whoever will finish the operation (an OS callback, the simulator's event queue, an I/O thread
// after hopping back to the loop) and returns `completion.wait()` to the coroutine.
//
//  * complete(v) stores the value and, when a coroutine waits, posts its resumption to the node's
//    executor (never resumes inline: every resumption goes through the executor).
//  * When the awaiting frame is destroyed before completion (node crash, cancelled task), the
//    awaiter's destructor marks the slot abandoned and runs the on_abandon hook (to cancel a
//    timer, drop a queued write, ...). A later complete() is then a no-op, and an already posted
//    resumption checks the flag and does nothing. A destroyed frame is never resumed.
//  * complete() may be called at most once; it must run on the node's loop thread.
#pragma once

#include <coroutine>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "runtime/assert.h"

namespace ferry {

class Executor;
void post_to(Executor& ex, std::function<void()> fn);  // defined in runtime.cc

template <typename T>
class Completion {
  struct State {
    Executor* executor = nullptr;
    std::optional<T> value;
    std::coroutine_handle<> waiter;
    bool abandoned = false;
    bool posted = false;
    std::function<void()> on_abandon;
  };

 public:
  explicit Completion(Executor& ex) : st_(std::make_shared<State>()) { st_->executor = &ex; }

  // Hook run once if the awaiting frame is destroyed before complete() (cancellation).
  void on_abandon(std::function<void()> fn) { st_->on_abandon = std::move(fn); }

  bool abandoned() const { return st_->abandoned; }
  bool completed() const { return st_->value.has_value(); }

  void complete(T v) const {
    State& s = *st_;
    if (s.abandoned) return;
    FERRY_ASSERT(!s.value.has_value(), "Completion completed twice");
    s.value.emplace(std::move(v));
    if (s.waiter) schedule_resume(st_);
  }

  class Awaiter {
   public:
    explicit Awaiter(std::shared_ptr<State> st) : st_(std::move(st)) {}
    Awaiter(Awaiter&& o) noexcept : st_(std::move(o.st_)) {}
    Awaiter(const Awaiter&) = delete;
    ~Awaiter() {
      if (!st_ || done_) return;
      // The frame holding this awaiter is going away without having consumed the value.
      st_->abandoned = true;
      st_->waiter = {};
      if (st_->on_abandon) std::exchange(st_->on_abandon, nullptr)();
    }
    bool await_ready() const noexcept { return st_->value.has_value(); }
    void await_suspend(std::coroutine_handle<> h) {
      st_->waiter = h;
    }
    T await_resume() {
      FERRY_ASSERT(st_->value.has_value(), "resumed without a value");
      done_ = true;
      st_->on_abandon = nullptr;
      return std::move(*st_->value);
    }

   private:
    std::shared_ptr<State> st_;
    bool done_ = false;
  };

  // Awaited exactly once.
  Awaiter wait() const { return Awaiter(st_); }

 private:
  static void schedule_resume(const std::shared_ptr<State>& st) {
    if (st->posted) return;
    st->posted = true;
    post_to(*st->executor, [st] {
      if (st->abandoned || !st->waiter) return;
      std::exchange(st->waiter, {}).resume();
    });
  }
  std::shared_ptr<State> st_;
};

// Completion::Awaiter::await_suspend may run after complete() was called but before the waiter
// was recorded (await_ready saw no value, then the value arrived synchronously on the same
// thread). That cannot happen here: complete() only runs from posted callbacks, never between
// await_ready and await_suspend of the same coroutine, because both run in one uninterrupted
// step on the loop thread. When the value is already present, await_ready returns true.

}  // namespace ferry
