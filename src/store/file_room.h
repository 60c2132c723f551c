// Free space checked before a store file is created (issue 17).
//
// The cleanup pass reads the disk's used ratio every 10 s and refuses puts over
// diskSpaceWarningLevelRatio (cleanup_service.h). That ratio says nothing about the next file:
// on a small disk, or with 1 GiB CommitLog files, a disk under the ratio can still lack room for
// the next one, and a creation that fails half-way leaves a partial file behind (a zero-length
// segment, or with a sparse fallback a SIGBUS through the mapping later). So every creation of
// a CommitLog, ConsumeQueue or index file (and the CommitLog's pre-allocation) first asks
// FileSystem::space() whether the whole file fits, and if not is refused before any file is
// touched, with an error an operator can read.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/file_system.h"
#include "runtime/result.h"

namespace ferry::store {

// What a queue of files checks before creating one.
struct FileRoom {
  // How the error names the file ("CommitLog", "ConsumeQueue T:0", "index"); empty = the
  // queue's directory.
  std::string what;
  // Free bytes that must remain after the file is created (see CommitLog: room kept for the
  // ConsumeQueue and index files its records need). >= 0.
  std::int64_t reserve_bytes = 0;
};

// Ok when the disk has at least `file_size_bytes + room.reserve_bytes` free. Errors: no_space,
// detail "disk full: the next {what} file needs N bytes, M free" (N includes the reserve, which
// the detail then names). When space() itself fails the check passes: the creation goes ahead
// and reports what the disk says (a store must not stop writing because statvfs failed once).
// `file_size_bytes` > 0.
[[nodiscard]] Status check_room_for_file(const FileSystem& fs, const FileRoom& room, std::int64_t file_size_bytes);

}  // namespace ferry::store
