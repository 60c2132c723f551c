#include "client/owned_tasks.h"

#include <utility>

namespace ferry::client {

void OwnedTasks::spawn(Task<void> task, std::string name) {
  if (!*alive_) return;  // destroyed with the task, never run
  // The task moves into a shared holder: std::function needs a copyable callable.
  auto holder = std::make_shared<Task<void>>(std::move(task));
  std::weak_ptr<bool> alive = alive_;
  TaskSet* tasks = &tasks_;
  rt_.executor().post([alive, tasks, holder, name = std::move(name)]() mutable {
    auto token = alive.lock();
    if (!token || !*token) return;
    tasks->start(std::move(*holder), std::move(name));
  });
}

void OwnedTasks::destroy_all() {
  *alive_ = false;
  tasks_.destroy_all();
}

}  // namespace ferry::client
