// The byte form of a Raft message between controllers (libraft leaves the wire to its I/O), the
// body of a FERRY_RAFT_MESSAGE frame. Format (docs/controller.md, "Raft messages"), big-endian:
//
//   u8 version (1) | u8 type (RAFT_IO_*) | u64 sender id | the type's fields:
//   REQUEST_VOTE           u64 term | u64 candidate | u64 last log index | u64 last log term |
//                          u8 disrupt leader | u8 pre-vote
//   REQUEST_VOTE_RESULT    u64 term | u8 granted | u8 pre-vote (0 unknown, 1 true, 2 false)
//   APPEND_ENTRIES         u64 term | u64 prev index | u64 prev term | u64 leader commit |
//                          u32 count | count x (u64 term | u16 type | u32 length | data)
//   APPEND_ENTRIES_RESULT  u64 term | u64 rejected | u64 last log index
//   TIMEOUT_NOW            u64 term | u64 last log index | u64 last log term
//
// INSTALL_SNAPSHOT is not carried: Ferry's controllers take no snapshots (raft_node.h).
#pragma once

#include <cstdint>
#include <vector>

#include "controller/raft_c.h"
#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::controller {

inline constexpr std::size_t kRaftEntriesPerMessageMax = 1 << 16;
inline constexpr std::size_t kRaftMessageBytesMax = 16u << 20;

// The bytes of `e` as Ferry stores and sends them. A barrier's are zeros: libraft 0.15 allocates a
// barrier's 8 bytes and never sets them, and uninitialized memory must not reach a file or the
// network (it would also make the simulator's runs differ between two runs of one seed).
Bytes entry_bytes(const raft_entry& e);

// Errors: unsupported (INSTALL_SNAPSHOT, an unknown type), invalid_argument (over the bounds).
Result<std::vector<std::uint8_t>> encode_raft_message(raft_id sender, const raft_message& m);

// A decoded message, ready for libraft's recv callback: an APPEND_ENTRIES' entries array and
// their one batch are raft_malloc'd, and libraft takes them when the message is delivered. A
// message that is not delivered must be released with release(); the destructor does it.
class DecodedRaftMessage {
 public:
  DecodedRaftMessage() = default;
  DecodedRaftMessage(DecodedRaftMessage&& other) noexcept;
  DecodedRaftMessage& operator=(DecodedRaftMessage&& other) noexcept;
  ~DecodedRaftMessage() { release(); }

  raft_message& message() { return msg_; }
  raft_id sender() const { return msg_.server_id; }
  // Hands the memory to libraft (after recv_cb): nothing is freed here any more.
  void delivered() { owned_ = false; }
  void release();

 private:
  friend Result<DecodedRaftMessage> decode_raft_message(Bytes data);
  raft_message msg_{};
  bool owned_ = false;
};

// Errors: corrupt (truncated, trailing bytes, an unknown version or type, counts over bounds).
Result<DecodedRaftMessage> decode_raft_message(Bytes data);

}  // namespace ferry::controller
