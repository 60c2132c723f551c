// TaskSet: the owner of a node's detached tasks (Executor::spawn).
//
// Each spawned Task runs as a root coroutine owned by the set. When it finishes it leaves the
// set. Destroying the set (or calling destroy_all) destroys every root frame still suspended,
// and with them every frame they await; runtime awaiters cancel their registrations in their
// destructors, so nothing destroyed is ever resumed. A spawn during destroy_all destroys the new
// task at once without running it.
//
// An exception escaping a spawned task is a bug: the set calls its failure handler (by default:
// log to stderr and abort) with the task's name and the exception's text.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "runtime/task.h"

namespace ferry {

class TaskSet {
 public:
  using FailureHandler = std::function<void(const std::string& task_name, const std::string& what)>;

  TaskSet() = default;
  TaskSet(const TaskSet&) = delete;
  TaskSet& operator=(const TaskSet&) = delete;
  ~TaskSet() { destroy_all(); }

  // Starts `task` now, inline, until its first suspension. The caller decides where that runs
  // (Executor::spawn posts the start to the node's loop).
  void start(Task<void> task, std::string name);
  void destroy_all();

  void set_failure_handler(FailureHandler h) { on_failure_ = std::move(h); }
  std::size_t size() const { return roots_.size(); }
  std::uint64_t started() const { return next_id_; }

 private:
  struct Root;
  static Root run_root(TaskSet* set, std::uint64_t id, Task<void> task, std::string name);
  void finished(std::uint64_t id) { roots_.erase(id); }
  void failed(const std::string& name, const std::string& what);

  std::map<std::uint64_t, std::coroutine_handle<>> roots_;  // ordered by spawn id
  std::uint64_t next_id_ = 0;
  bool destroying_ = false;
  FailureHandler on_failure_;
};

}  // namespace ferry
