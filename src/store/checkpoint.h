// The store checkpoint: how far each structure is known durable (docs/store.md, "Checkpoint").
//
// RocketMQ's checkpoint holds three store TIMESTAMPS; Ferry's holds three CommitLog OFFSETS,
// which need no clock and no "minus 3 s" margin:
//
//   physic i64 | logics i64 | index i64 | crc i32      (28 bytes, big-endian, at offset 0)
//
//   physic  every CommitLog byte below it was synced
//   logics  every record below it has its ConsumeQueue unit synced
//   index   every record below it has its index entries synced
//   crc     zlib CRC32 & 0x7FFFFFFF of the 24 bytes before it
//
// The file is overwritten in place and synced; a torn or missing checkpoint reads as "none",
// and recovery then scans the whole log.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/offsets.h"
#include "runtime/file_system.h"
#include "runtime/result.h"
#include "runtime/task.h"

namespace ferry::store {

struct Checkpoint {
  PhysicalOffset physic;
  PhysicalOffset logics;
  PhysicalOffset index;
  PhysicalOffset min() const { return std::min(physic, std::min(logics, index)); }
  bool operator==(const Checkpoint&) const = default;
};

inline constexpr std::size_t kCheckpointBytes = 28;
// Under the store root.
inline constexpr std::string_view kCheckpointFileName = "checkpoint";

// nullopt when the file is missing, short, or fails its CRC. Errors: io_error.
Result<std::optional<Checkpoint>> read_checkpoint(FileSystem& fs, const std::string& path);
// Writes and syncs. Errors: io_error, no_space.
Task<Status> write_checkpoint(FileSystem& fs, std::string path, Checkpoint cp);

}  // namespace ferry::store
