#include "client/owned_tasks.h"

#include <utility>

namespace ferry::client {

void OwnedTasks::spawn(Task<void> task, std::string name) {
  if (!*alive_) return;  // destroyed with the task, never run
  // The task waits in the set until the posted start runs (TaskSet::enqueue).
  const std::uint64_t ticket = tasks_.enqueue(std::move(task), std::move(name));
  std::weak_ptr<bool> alive = alive_;
  TaskSet* tasks = &tasks_;
  rt_.executor().post([alive, tasks, ticket] {
    auto token = alive.lock();
    if (!token || !*token) return;
    tasks->start_queued(ticket);
  });
}

void OwnedTasks::destroy_all() {
  *alive_ = false;
  tasks_.destroy_all();
}

}  // namespace ferry::client
