// File names of the store's segment files.
//
// CommitLog and ConsumeQueue files are named by the byte offset of their first byte within their
// queue, as 20 decimal digits, zero-padded ("00000000000001073741824"): RocketMQ's
// UtilAll.offset2FileName. IndexFiles are named by their creation time (see index_file_name()).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ferry::store {

inline constexpr std::size_t kOffsetFileNameDigits = 20;

// "00000000000000001024" for 1024. `offset` must be >= 0.
std::string offset_file_name(std::int64_t offset);

// The offset a 20-digit name stands for, or nullopt when `name` is not exactly 20 decimal digits
// or does not fit an int64.
std::optional<std::int64_t> parse_offset_file_name(std::string_view name);

// Joins a directory and a name with '/' (an empty dir gives the bare name).
std::string join_path(std::string_view dir, std::string_view name);

}  // namespace ferry::store
