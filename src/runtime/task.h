// Task<T>: Ferry's lazy coroutine type.
//
// Contract
//  * Lazy: creating a Task runs nothing. It starts when it is co_awaited (by another Task) or
//    handed to Executor::spawn (a detached task owned by the node).
//  * Symmetric transfer: awaiting a Task transfers control into it, and its completion transfers
//    straight back to the awaiter, so deep await chains use no stack.
//  * Exceptions thrown inside a Task propagate to its awaiter at co_await.
//  * Ownership: a Task object owns its coroutine frame. Destroying a Task that has not finished
//    destroys its frame and, through the frame's locals, every Task it is awaiting. Runtime
//    awaiters (timers, network, disk) cancel their registration in their destructors, so a
//    destroyed frame is never resumed. This is how a node crash or shutdown cancels work:
//    the node's TaskSet destroys the root frames it owns.
//  * A Task is awaited at most once, by one awaiter.
//
// Lifetime rules for code that writes coroutines (see docs/runtime.md):
//  * A coroutine keeps its parameters by value in its frame: take arguments by value, never by
//    reference or string_view, unless the caller provably outlives the awaited Task (a plain
//    `co_await f(x)` does: its temporaries live until the co_await finishes).
//  * Never make a capturing lambda a coroutine: the captures live in the lambda object, not in
//    the frame, and the lambda is usually gone before the frame resumes.
//  * `this` is a pointer like any other: a member coroutine must not outlive its object. Spawned
//    member coroutines are safe when the object outlives the node's TaskSet, which holds for
//    components (the node destroys its tasks before its components).
//  * co_await is not allowed inside a catch block: capture the exception, leave the block, await.
#pragma once

#include <coroutine>
#include <exception>
#include <optional>
#include <utility>

#include "runtime/assert.h"
#include "runtime/frame_pool.h"

namespace ferry {

template <typename T = void>
class [[nodiscard]] Task;

namespace detail {

struct TaskPromiseBase {
  std::coroutine_handle<> continuation_ = std::noop_coroutine();
  std::exception_ptr exception_;

  // Frames come from the thread's FramePool (runtime/frame_pool.h), not from malloc directly.
  static void* operator new(std::size_t bytes) { return frame_allocate(bytes); }
  static void operator delete(void* frame, std::size_t bytes) noexcept { frame_free(frame, bytes); }

  std::suspend_always initial_suspend() noexcept { return {}; }

  struct FinalAwaiter {
    bool await_ready() noexcept { return false; }
    template <typename P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> self) noexcept {
      return self.promise().continuation_;
    }
    void await_resume() noexcept {}
  };
  FinalAwaiter final_suspend() noexcept { return {}; }
  void unhandled_exception() noexcept { exception_ = std::current_exception(); }
  void rethrow_if_failed() {
    if (exception_) std::rethrow_exception(exception_);
  }
};

template <typename T>
struct TaskPromise final : TaskPromiseBase {
  std::optional<T> value_;
  Task<T> get_return_object() noexcept;
  template <typename U>
  void return_value(U&& v) {
    value_.emplace(std::forward<U>(v));
  }
  T take() {
    rethrow_if_failed();
    FERRY_ASSERT(value_.has_value(), "a Task<T> finished without a value");
    return std::move(*value_);
  }
};

template <>
struct TaskPromise<void> final : TaskPromiseBase {
  Task<void> get_return_object() noexcept;
  void return_void() noexcept {}
  void take() { rethrow_if_failed(); }
};

}  // namespace detail

template <typename T>
class [[nodiscard]] Task {
 public:
  using promise_type = detail::TaskPromise<T>;
  using Handle = std::coroutine_handle<promise_type>;

  Task() = default;
  explicit Task(Handle h) noexcept : h_(h) {}
  Task(Task&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  Task& operator=(Task&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() { reset(); }

  bool valid() const { return static_cast<bool>(h_); }
  bool done() const { return h_ && h_.done(); }

  struct Awaiter {
    Handle h;
    bool await_ready() const noexcept { return false; }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiting) noexcept {
      h.promise().continuation_ = awaiting;
      return h;
    }
    T await_resume() { return h.promise().take(); }
  };
  Awaiter operator co_await() && noexcept {
    FERRY_ASSERT(h_, "co_await on an empty Task");
    FERRY_ASSERT(!h_.done(), "co_await on a Task that already finished");
    return Awaiter{h_};
  }

  // For runtimes and TaskSet: the raw handle (ownership stays with this Task).
  Handle handle() const noexcept { return h_; }
  // The result of a finished Task (rethrows its exception). For drivers like World::run.
  T take_result() {
    FERRY_ASSERT(done(), "take_result() on a Task that has not finished");
    return h_.promise().take();
  }

 private:
  void reset() {
    if (h_) {
      h_.destroy();
      h_ = {};
    }
  }
  Handle h_;
};

namespace detail {
template <typename T>
Task<T> TaskPromise<T>::get_return_object() noexcept {
  return Task<T>(std::coroutine_handle<TaskPromise<T>>::from_promise(*this));
}
inline Task<void> TaskPromise<void>::get_return_object() noexcept {
  return Task<void>(std::coroutine_handle<TaskPromise<void>>::from_promise(*this));
}
}  // namespace detail

}  // namespace ferry
