// Executor and Timers: how a node runs code on its single event loop.
#pragma once

#include <functional>
#include <string>

#include "runtime/completion.h"
#include "runtime/task.h"
#include "runtime/task_set.h"
#include "runtime/time.h"
#include "runtime/timer_queue.h"

namespace ferry {

// Every piece of a node's component code runs on its executor, one callback at a time.
class Executor {
 public:
  virtual ~Executor() = default;

  // Runs `fn` on the node's loop after everything already posted (FIFO). Never runs it inline.
  // Production: safe to call from any thread (that is how the client API and the I/O thread hand
  // work to the loop). Simulation: single-threaded. A node crash or stop drops what is queued.
  virtual void post(std::function<void()> fn) = 0;

  // Starts `task` as a detached root owned by this node (started through post(), so spawn never
  // runs task code inline). The node destroys all of its tasks when it crashes or stops;
  // `name` appears in the failure report if the task throws.
  void spawn(Task<void> task, std::string name = "task");
  // True when the caller runs on this node's loop (the simulator's single thread always does).
  // spawn() from another thread (production only) takes a slower path that touches no state of
  // the loop's.
  virtual bool on_loop_thread() const { return true; }

  TaskSet& tasks() { return tasks_; }

 protected:
  TaskSet tasks_;
};

// Timers run callbacks on the node's executor at a point of the node's monotonic clock.
class Timers {
 public:
  virtual ~Timers() = default;

  // Runs `fn` on the node's loop once `delay` has passed (a delay <= 0 means: as soon as
  // possible, after what is already due). Returns an id for cancel().
  virtual TimerId schedule(Duration delay, std::function<void()> fn) = 0;
  // True when the timer was pending and will now never run.
  virtual bool cancel(TimerId id) = 0;

  // co_await timers.sleep(d): suspends the calling coroutine for `d`. Destroying the awaiting
  // frame cancels the timer.
  Completion<bool>::Awaiter sleep(Duration d);

  // Executor that completions of this node go through (set by the runtime).
  void bind(Executor& ex) { executor_ = &ex; }

 private:
  Executor* executor_ = nullptr;
};

}  // namespace ferry
