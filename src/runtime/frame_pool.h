// FramePool: recycles coroutine frames (Task<T>, TaskSet roots) per thread.
//
// Why: every request runs a handful of coroutines (serve, process, send_one, invoke, attempt...),
// so a node allocates and frees several frames per message, most of them hundreds of bytes to a
// few KiB. glibc's per-thread cache keeps 7 blocks per size and none above 1 KiB: with hundreds of
// requests in flight the frees overflow it and every allocation walks malloc's bins (callgrind:
// 300–850 instructions per frame on the broker's and the client's send path).
//
// Contract
//  * frame_allocate(n) returns storage for n bytes aligned as operator new's; frame_free(p, n)
//    takes it back with the same n. Frames of up to kFramePoolMaxBytes are kept on a free list of
//    their 64-byte size class, per thread, at most kFramePoolPerClass per class (so at most
//    kFramePoolMaxBytes * kFramePoolPerClass / 2 bytes idle per thread on average); larger frames
//    and full lists go to operator new/delete.
//  * A frame may be freed on another thread than the one that allocated it (it joins the freeing
//    thread's lists). A thread's lists are released when the thread exits; frees after that (static
//    destructors) go straight to operator delete.
//  * Nothing observable depends on the pool: addresses never reach output or decisions, so the
//    simulator's schedules do not change with it.
//  * Sanitizer builds bypass the pool, so AddressSanitizer still sees each frame's lifetime.
#pragma once

#include <cstddef>

namespace ferry {

inline constexpr std::size_t kFramePoolMaxBytes = 4096;
inline constexpr std::size_t kFramePoolPerClass = 256;

void* frame_allocate(std::size_t bytes);
void frame_free(void* frame, std::size_t bytes) noexcept;

}  // namespace ferry
