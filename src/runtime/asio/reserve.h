// Reserving disk blocks for a file that is about to be written through a shared mapping.
//
// A page of a mapping whose block does not exist (a sparse file) is allocated when the loop first
// stores into it; on a full disk that store is a SIGBUS, not an error value. So a mapped file is
// grown only over reserved blocks: Linux fallocate(2) where the file system has it, otherwise by
// writing zeros into the range beyond the file's current size (never into bytes the loop may be
// writing: those are below the size). ftruncate alone would leave the range sparse.
#pragma once

#include <cstdint>

namespace ferry::asio_rt {

enum class ReserveMethod {
  fallocate_or_zeros,  // fallocate(2); zeros where the file system does not support it
  zeros,               // zeros only (the fallback, forced: for tests)
};

// Reserves blocks for [offset, offset + len) and grows the file's size to cover it. Returns 0 or
// an errno value (ENOSPC on a full disk, with whatever was reserved kept). Blocking: call it off
// the node's loop (the I/O thread).
int reserve_blocks(int fd, std::uint64_t offset, std::uint64_t len,
                   ReserveMethod method = ReserveMethod::fallocate_or_zeros);

}  // namespace ferry::asio_rt
