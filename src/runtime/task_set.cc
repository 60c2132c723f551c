#include "runtime/task_set.h"

#include <cstdio>
#include <cstdlib>

#include "runtime/frame_pool.h"

namespace ferry {

// The root coroutine: created suspended, resumed by start(), never suspends at the end (its
// frame frees itself once the body has left the set).
struct TaskSet::Root {
  struct promise_type : Link {
    static void* operator new(std::size_t bytes) { return frame_allocate(bytes); }
    static void operator delete(void* frame, std::size_t bytes) noexcept { frame_free(frame, bytes); }
    Root get_return_object() noexcept {
      handle = std::coroutine_handle<promise_type>::from_promise(*this);
      return Root{std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    std::suspend_always initial_suspend() noexcept { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() noexcept {}
    void unhandled_exception() noexcept { std::terminate(); }  // the body catches everything
  };
  std::coroutine_handle<promise_type> handle;
};

namespace {
// co_await SelfLink{}: the running root's own promise, without suspending.
struct SelfLink {
  void* promise = nullptr;
  bool await_ready() const noexcept { return false; }
  template <typename P>
  bool await_suspend(std::coroutine_handle<P> h) noexcept {
    promise = &h.promise();
    return false;  // resume at once
  }
  void* await_resume() const noexcept { return promise; }
};
}  // namespace

TaskSet::Root TaskSet::run_root(TaskSet* set, Task<void> task, std::string name) {
  Link* self = static_cast<Root::promise_type*>(co_await SelfLink{});
  std::string failure;
  bool threw = false;
  try {
    co_await std::move(task);
  } catch (const std::exception& e) {
    threw = true;
    failure = e.what();
  } catch (...) {
    threw = true;
    failure = "unknown exception";
  }
  set->unlink(self);
  if (threw) set->failed(name, failure);
}

void TaskSet::link(Link* l) {
  l->prev = head_.prev;
  l->next = &head_;
  head_.prev->next = l;
  head_.prev = l;
  ++size_;
}

void TaskSet::unlink(Link* l) {
  if (l->next == nullptr) return;  // already out (destroy_all takes a root out before destroying it)
  l->prev->next = l->next;
  l->next->prev = l->prev;
  l->prev = l->next = nullptr;
  --size_;
}

void TaskSet::start(Task<void> task, std::string name) {
  if (destroying_) return;  // `task` is destroyed unstarted when it goes out of scope
  ++started_;
  Root root = run_root(this, std::move(task), std::move(name));
  link(&root.handle.promise());
  root.handle.resume();
}

std::uint64_t TaskSet::enqueue(Task<void> task, std::string name) {
  if (!destroying_) queued_.emplace_back(std::move(task), std::move(name));
  return epoch_;
}

void TaskSet::start_queued(std::uint64_t ticket) {
  if (ticket != epoch_ || queued_.empty()) return;
  auto [task, name] = std::move(queued_.front());
  queued_.pop_front();
  start(std::move(task), std::move(name));
}

void TaskSet::destroy_all() {
  destroying_ = true;
  ++epoch_;
  while (head_.next != &head_) {
    Link* l = head_.next;
    unlink(l);
    l->handle.destroy();
  }
  // Queued tasks never ran: destroying them destroys their frames (what their destructors try to
  // queue is dropped, as destroying_ says).
  {
    std::deque<std::pair<Task<void>, std::string>> dropped;
    dropped.swap(queued_);
  }
  destroying_ = false;
}

void TaskSet::failed(const std::string& name, const std::string& what) {
  if (on_failure_) {
    on_failure_(name, what);
    return;
  }
  std::fprintf(stderr, "ferry: task '%s' failed with an exception: %s\n", name.c_str(), what.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace ferry
