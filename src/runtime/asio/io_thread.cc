#include "runtime/asio/io_thread.h"

#include <boost/asio/post.hpp>

#include <utility>

#include "runtime/completion.h"

namespace ferry::asio_rt {

IoThread::IoThread(Executor& loop) : loop_(loop) {}

IoThread::~IoThread() { join(); }

void IoThread::join() {
  if (joined_) return;
  joined_ = true;
  thread_.join();
}

Task<Status> IoThread::run(std::function<Status()> job) {
  FERRY_ASSERT(!joined_, "IoThread::run after join");
  Completion<Status> done(loop_);
  // The Completion's state is only touched on the loop: the I/O thread merely carries the handle
  // across and posts it back.
  boost::asio::post(thread_, [job = std::move(job), done, loop = &loop_]() mutable {
    Status status = job();
    job = nullptr;  // release what the job captured here, not on the loop
    loop->post([done = std::move(done), status = std::move(status)] { done.complete(status); });
  });
  co_return co_await done.wait();
}

bool IoThread::post(std::function<void()> job) {
  if (joined_) return false;
  boost::asio::post(thread_, std::move(job));
  return true;
}

}  // namespace ferry::asio_rt
