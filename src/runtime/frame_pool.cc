#include "runtime/frame_pool.h"

#include <array>
#include <cstdint>
#include <new>
#include <utility>

#if defined(__SANITIZE_ADDRESS__)
#define FERRY_FRAME_POOL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FERRY_FRAME_POOL 0
#endif
#endif
#ifndef FERRY_FRAME_POOL
#define FERRY_FRAME_POOL 1
#endif

namespace ferry {
namespace {

constexpr std::size_t kClassBytes = 64;
constexpr std::size_t kClasses = kFramePoolMaxBytes / kClassBytes;
static_assert(kFramePoolMaxBytes % kClassBytes == 0);

struct FreeFrame {
  FreeFrame* next;
};

class ThreadFramePool {
 public:
  ThreadFramePool() { state = State::alive; }
  ~ThreadFramePool() {
    state = State::destroyed;
    for (List& list : lists_) {
      while (list.head != nullptr) ::operator delete(std::exchange(list.head, list.head->next));
    }
  }
  ThreadFramePool(const ThreadFramePool&) = delete;
  ThreadFramePool& operator=(const ThreadFramePool&) = delete;

  // Index of the class that holds `bytes` (1..kFramePoolMaxBytes).
  static std::size_t class_of(std::size_t bytes) { return (bytes - 1) / kClassBytes; }

  void* take(std::size_t cls) {
    List& list = lists_[cls];
    if (list.head == nullptr) return ::operator new((cls + 1) * kClassBytes);
    FreeFrame* f = list.head;
    list.head = f->next;
    --list.count;
    return f;
  }

  void give(void* frame, std::size_t cls) noexcept {
    List& list = lists_[cls];
    if (list.count >= kFramePoolPerClass) {
      ::operator delete(frame);
      return;
    }
    list.head = ::new (frame) FreeFrame{list.head};
    ++list.count;
  }

  // Where this thread's pool is in its life: a plain thread_local, readable even while and after
  // the pool itself is destroyed at thread exit. A thread whose first frame call is a free (it
  // only frees frames other threads made) creates its pool then.
  enum class State : std::uint8_t { unborn, alive, destroyed };
  static thread_local State state;

 private:
  struct List {
    FreeFrame* head = nullptr;
    std::size_t count = 0;
  };
  std::array<List, kClasses> lists_{};
};

thread_local ThreadFramePool::State ThreadFramePool::state = ThreadFramePool::State::unborn;

ThreadFramePool& pool() {
  thread_local ThreadFramePool p;
  return p;
}

}  // namespace

void* frame_allocate(std::size_t bytes) {
  if (!FERRY_FRAME_POOL || bytes == 0 || bytes > kFramePoolMaxBytes) return ::operator new(bytes);
  // A block from a class list is the class's full size, so a frame of any size in the class may
  // reuse it; operator new's alignment holds because every class size is a multiple of 16.
  return pool().take(ThreadFramePool::class_of(bytes));
}

void frame_free(void* frame, std::size_t bytes) noexcept {
  if (frame == nullptr) return;
  if (!FERRY_FRAME_POOL || bytes == 0 || bytes > kFramePoolMaxBytes) {
    ::operator delete(frame);
    return;
  }
  if (ThreadFramePool::state == ThreadFramePool::State::destroyed) {  // thread exit, static destructors
    ::operator delete(frame);
    return;
  }
  pool().give(frame, ThreadFramePool::class_of(bytes));
}

}  // namespace ferry
