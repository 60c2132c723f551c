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
#include <coroutine>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <utility>
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
  // Holds `task` until start_queued() starts it: Executor::spawn queues here and posts one
  // start_queued(ticket) per task, so the tasks start in the order they were queued. The ticket
  // names this life of the set: destroy_all() drops what is queued, and a start_queued() with an
  // older ticket (posted before it) starts nothing.
  std::uint64_t enqueue(Task<void> task, std::string name);
  void start_queued(std::uint64_t ticket);
  // Destroys the started tasks (oldest first) and drops the queued ones.
  void destroy_all();
  void set_failure_handler(FailureHandler h) { on_failure_ = std::move(h); }
  // Started tasks still running (suspended).
  std::size_t size() const { return size_; }
  std::uint64_t started() const { return started_; }
 private:
  // A started root's place in the set: an intrusive list in spawn order (no allocation, O(1)
  // removal); the link lives in the root coroutine's promise.
  struct Link {
    Link* prev = nullptr;
    Link* next = nullptr;
    std::coroutine_handle<> handle;
  };
  struct Root;
  static Root run_root(TaskSet* set, Task<void> task, std::string name);
  void link(Link* l);
  void unlink(Link* l);
  void failed(const std::string& name, const std::string& what);
  Link head_{&head_, &head_, {}};  // sentinel of the circular list
  std::size_t size_ = 0;
  std::uint64_t started_ = 0;
  std::uint64_t epoch_ = 0;  // bumped by destroy_all()
  std::deque<std::pair<Task<void>, std::string>> queued_;
  bool destroying_ = false;
  FailureHandler on_failure_;
};
}  // namespace ferry
