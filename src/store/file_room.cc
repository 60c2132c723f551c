#include "store/file_room.h"

#include <fmt/format.h>

#include "runtime/assert.h"

namespace ferry::store {

Status check_room_for_file(const FileSystem& fs, const FileRoom& room, std::int64_t file_size_bytes) {
  FERRY_ASSERT(file_size_bytes > 0, "room for a file of {} bytes ({})", file_size_bytes, room.what);
  FERRY_ASSERT(room.reserve_bytes >= 0, "negative reserve {} for {} files", room.reserve_bytes, room.what);
  const Result<SpaceInfo> space = fs.space();
  if (!space.ok()) return {};
  const std::uint64_t needed = static_cast<std::uint64_t>(file_size_bytes) + static_cast<std::uint64_t>(room.reserve_bytes);
  if (space->free_bytes >= needed) return {};
  if (room.reserve_bytes == 0) {
    return Error(Errc::no_space, fmt::format("disk full: the next {} file needs {} bytes, {} free", room.what,
                                             needed, space->free_bytes));
  }
  return Error(Errc::no_space,
               fmt::format("disk full: the next {} file needs {} bytes ({} for the file, {} kept in reserve), {} free",
                           room.what, needed, file_size_bytes, room.reserve_bytes, space->free_bytes));
}

}  // namespace ferry::store
