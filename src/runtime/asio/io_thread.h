// IoThread: the dedicated thread for blocking disk calls (msync, fdatasync, fsync of a directory,
// posix_fallocate), so the node's loop never waits on the disk.
//
// run(job) queues `job` on the I/O thread (FIFO; one job at a time) and completes on the node's
// loop through Executor::post with the job's Status. The awaiting coroutine is resumed on the
// loop, never on the I/O thread.
//
// Jobs must touch only what they own (capture shared_ptrs to descriptors and mappings by value):
// they run concurrently with the loop. If the awaiting frame is destroyed first, the job still
// runs to its end and its Status is dropped.
//
// join() waits for the queued jobs to finish and ends the thread; the owner calls it before the
// executor's io_context goes away. run() after join() is a bug.
//
// A runtime has two: syncs (msync/fdatasync/directory fsync) go to one, space reservation and
// page warming (fallocate, madvise) of files prepared ahead of need to the other, so that a slow
// flush never delays the next CommitLog segment being ready (and vice versa).
#pragma once

#include <boost/asio/thread_pool.hpp>

#include <functional>

#include "runtime/executor.h"
#include "runtime/result.h"
#include "runtime/task.h"

namespace ferry::asio_rt {

class IoThread {
 public:
  explicit IoThread(Executor& loop);
  ~IoThread();
  IoThread(const IoThread&) = delete;
  IoThread& operator=(const IoThread&) = delete;

  Task<Status> run(std::function<Status()> job);
  // Queues `job` with no completion (fire and forget: the job reports through what it captured,
  // e.g. atomics). False, and nothing queued, after join().
  bool post(std::function<void()> job);
  void join();

 private:
  Executor& loop_;
  boost::asio::thread_pool thread_{1};
  bool joined_ = false;
};

// The disk threads of one runtime (see above).
struct DiskThreads {
  IoThread& sync;      // sync(), sync_dir()
  IoThread& allocate;  // allocate()
};

}  // namespace ferry::asio_rt
