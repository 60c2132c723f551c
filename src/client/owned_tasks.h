// OwnedTasks: detached tasks owned by one client object (ClientInstance, Producer), so that
// destroying the object destroys its background work (loops, async sends) with it and nothing
// ever resumes a frame that refers to a dead object.
//
// spawn() never runs task code inline: the start goes through the node's executor (a callback
// called from inside the object cannot re-enter it). A start posted before destruction is
// dropped when it runs after it (a liveness token). Loop thread only.
#pragma once

#include <memory>
#include <string>

#include "runtime/runtime.h"

namespace ferry::client {

class OwnedTasks {
 public:
  explicit OwnedTasks(Runtime& rt) : rt_(rt), alive_(std::make_shared<bool>(true)) {}
  ~OwnedTasks() { destroy_all(); }
  OwnedTasks(const OwnedTasks&) = delete;
  OwnedTasks& operator=(const OwnedTasks&) = delete;

  // Starts `task` on the next turn of the loop, owned by this set.
  void spawn(Task<void> task, std::string name);
  // Destroys every owned task now (their awaiters cancel timers and calls); later spawns are
  // dropped.
  void destroy_all();
  std::size_t size() const { return tasks_.size(); }

 private:
  Runtime& rt_;
  std::shared_ptr<bool> alive_;
  TaskSet tasks_;
};

}  // namespace ferry::client
