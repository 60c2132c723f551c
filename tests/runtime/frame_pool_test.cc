// FramePool: coroutine frames are recycled per thread, bounded, and safe across threads.
#include "runtime/frame_pool.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "runtime/task.h"

namespace ferry {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kPooled = false;  // sanitizer builds bypass the pool
#else
constexpr bool kPooled = true;
#endif

TEST(FramePool, AFreedFrameServesTheNextFrameOfItsSizeClass) {
  if (!kPooled) GTEST_SKIP() << "sanitizer build: frames come from operator new";
  void* a = frame_allocate(200);
  std::memset(a, 0xab, 200);
  frame_free(a, 200);
  void* b = frame_allocate(250);  // same 64-byte class (193..256)
  EXPECT_EQ(a, b);
  std::memset(b, 0xcd, 250);  // the block holds the whole class
  frame_free(b, 250);
  void* c = frame_allocate(300);  // the next class
  EXPECT_NE(a, c);
  frame_free(c, 300);
}

TEST(FramePool, AClassKeepsAtMostItsBound) {
  if (!kPooled) GTEST_SKIP() << "sanitizer build: frames come from operator new";
  std::vector<void*> frames;
  for (std::size_t i = 0; i < kFramePoolPerClass + 50; ++i) frames.push_back(frame_allocate(1000));
  for (void* f : frames) frame_free(f, 1000);
  // Exactly kFramePoolPerClass of them come back before operator new is asked again.
  std::set<void*> freed(frames.begin(), frames.end());
  std::vector<void*> again;
  std::size_t reused = 0;
  for (std::size_t i = 0; i < kFramePoolPerClass + 50; ++i) {
    void* f = frame_allocate(1000);
    again.push_back(f);
    if (i < kFramePoolPerClass) {
      EXPECT_TRUE(freed.count(f)) << "allocation " << i << " did not come from the class list";
      ++reused;
    }
  }
  EXPECT_EQ(reused, kFramePoolPerClass);
  for (void* f : again) frame_free(f, 1000);
}

TEST(FramePool, AFrameFreedOnAnotherThreadJoinsThatThreadsLists) {
  std::vector<void*> made;
  std::thread maker([&] {
    for (int i = 0; i < 100; ++i) made.push_back(frame_allocate(64 * (1 + i % 8)));
  });
  maker.join();  // the maker's pool is gone; its frames are still valid
  std::size_t reused = 0;
  std::thread freer([&] {
    for (std::size_t i = 0; i < made.size(); ++i) frame_free(made[i], 64 * (1 + i % 8));
    // The freer's next frames of those classes are the ones it was handed.
    const std::set<void*> freed(made.begin(), made.end());
    std::vector<void*> again;
    for (std::size_t i = 0; i < made.size(); ++i) {
      again.push_back(frame_allocate(64 * (1 + i % 8)));
      reused += freed.count(again.back());
    }
    for (std::size_t i = 0; i < again.size(); ++i) frame_free(again[i], 64 * (1 + i % 8));
  });
  freer.join();  // the freer's pool released what it kept
  // Sanitizer builds hand every frame to operator new/delete: there the test checks only that
  // freeing on another thread is clean.
  if (kPooled) {
    EXPECT_EQ(reused, made.size()) << "frames freed on this thread did not come back from its lists";
  }
}

Task<int> leaf(int x) { co_return x * 2; }
Task<int> chain(int depth) {
  if (depth == 0) co_return co_await leaf(1);
  co_return 1 + co_await chain(depth - 1);
}

TEST(FramePool, TasksRunOnPooledFrames) {
  // Deep chains allocate and free a frame per level, twice over: the pool must hand back
  // working storage each time (a reused block that still held a stale link would break here).
  for (int round = 0; round < 2; ++round) {
    Task<int> t = chain(100);
    auto h = t.handle();
    h.resume();
    ASSERT_TRUE(t.done());
    EXPECT_EQ(t.take_result(), 102);
  }
}

}  // namespace
}  // namespace ferry
