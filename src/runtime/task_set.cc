#include "runtime/task_set.h"

#include <cstdio>
#include <cstdlib>

namespace ferry {

// The root coroutine: starts eagerly, never suspends at the end (its frame frees itself once the
// body has unregistered from the set).
struct TaskSet::Root {
  struct promise_type {
    Root get_return_object() noexcept {
      return Root{std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    std::suspend_always initial_suspend() noexcept { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() noexcept {}
    void unhandled_exception() noexcept { std::terminate(); }  // the body catches everything
  };
  std::coroutine_handle<promise_type> handle;
};

TaskSet::Root TaskSet::run_root(TaskSet* set, std::uint64_t id, Task<void> task, std::string name) {
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
  set->finished(id);
  if (threw) set->failed(name, failure);
}

void TaskSet::start(Task<void> task, std::string name) {
  if (destroying_) return;  // `task` is destroyed unstarted when it goes out of scope
  const std::uint64_t id = next_id_++;
  Root root = run_root(this, id, std::move(task), std::move(name));
  roots_.emplace(id, root.handle);
  root.handle.resume();
}

void TaskSet::destroy_all() {
  destroying_ = true;
  while (!roots_.empty()) {
    auto it = roots_.begin();
    std::coroutine_handle<> h = it->second;
    roots_.erase(it);
    h.destroy();
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
