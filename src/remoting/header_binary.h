// The ROCKETMQ binary header (serialize type 1), big-endian:
//
//   int16 code | int8 language | int16 version | int32 opaque | int32 flag |
//   int32 remarkLen | remark (UTF-8) | int32 extFieldsLen | extFields entries
//   entry = int16 keyLen | key | int32 valueLen | value
//
// An absent remark is written with remarkLen 0; remarkLen 0 reads back as absent.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "common/big_endian.h"
#include "remoting/frame_format.h"
#include "remoting/remoting_command.h"
#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting {

// Appends the binary header of `cmd` (not its body) to `out`: its raw_ext_fields as they are
// when it has them, else its ext_fields. Preconditions (asserted): code and version fit int16,
// every key is shorter than 32768 bytes, not both raw_ext_fields and ext_fields.
void write_binary_header(const RemotingCommand& cmd, std::vector<std::uint8_t>& out);

// Decodes a complete binary header. The result has serialize type rocketmq and an empty body.
// Errors (Errc::corrupt, the text says which): truncated fixed part, unknown language code,
// negative or overlong remark / extFields / key / value length, extFields length that does not
// match the rest of the header, more than kExtFieldsMax fields. Never reads outside `header`.
//
// `raw_requests`: request codes whose extFields stay in their wire form, in the command's
// raw_ext_fields, for a processor that decodes its typed header straight from them
// (HeaderTable::decode_binary) instead of from the map. They are checked entry by entry all the
// same, so a malformed header fails here either way; a command of more than kExtFieldsMax
// entries gets the map (which counts distinct keys). `raw_replies`: every reply's fields stay raw.
Result<RemotingCommand> read_binary_header(Bytes header, std::span<const std::int32_t> raw_requests = {},
                                           bool raw_replies = false);

// The extFields entries of a binary header (`int16 keyLen | key | int32 valueLen | value`,
// repeated), read one at a time. The views point into the bytes read. A hot path (every send's
// header): bounds are checked with a few compares, and the words of an error are found only when
// there is one, by reading the entries again as read_binary_header() does.
class BinaryExtFieldsReader {
 public:
  explicit BinaryExtFieldsReader(Bytes entries) : data_(entries) {}
  struct Entry {
    std::string_view key;
    std::string_view value;
  };
  // The next entry into `out` and true; false after the last entry, or at an entry that does not
  // read (then failed() is true and error() says what is wrong).
  bool next(Entry& out) {
    const std::size_t left = data_.size() - pos_;
    if (left == 0) return false;
    if (left < kBinaryExtEntryMinBytes) return fail();
    const std::uint8_t* p = data_.data() + pos_;
    const auto key_len = static_cast<std::int16_t>(load_be16(p));
    if (key_len < 0 || static_cast<std::size_t>(key_len) > left - kBinaryExtEntryMinBytes) return fail();
    const auto k = static_cast<std::size_t>(key_len);
    const auto value_len = static_cast<std::int32_t>(load_be32(p + 2 + k));
    if (value_len < 0 || static_cast<std::size_t>(value_len) > left - kBinaryExtEntryMinBytes - k) return fail();
    out.key = std::string_view(reinterpret_cast<const char*>(p + 2), k);
    out.value = std::string_view(reinterpret_cast<const char*>(p + kBinaryExtEntryMinBytes + k), static_cast<std::size_t>(value_len));
    pos_ += kBinaryExtEntryMinBytes + k + static_cast<std::size_t>(value_len);
    return true;
  }
  bool failed() const { return failed_; }
  // What is wrong with the entries (Errc::corrupt, in read_binary_header()'s words). Only after
  // next() failed.
  Error error() const;

 private:
  bool fail() {
    failed_ = true;
    return false;
  }

  Bytes data_;
  std::size_t pos_ = 0;
  bool failed_ = false;
};

// The entries as a map: a key met twice keeps its first place and its last value. Errors: as
// the reader's, and more than kExtFieldsMax distinct keys.
Result<ExtFields> read_binary_ext_fields(Bytes entries);

// Appends one entry to `out` (the extFields part of a binary header, or raw_ext_fields).
// Precondition (asserted): the key is shorter than 32768 bytes, the value than 2^31.
void append_binary_ext_field(std::vector<std::uint8_t>& out, std::string_view key, std::string_view value);

// Asserts the invariant of RemotingCommand::raw_ext_fields: not both forms at once.
void assert_one_ext_fields_form(const RemotingCommand& cmd);

// Turns cmd.raw_ext_fields into cmd.ext_fields (for code that reads the map: a request guard, a
// signing hook, a JSON header). No-op without raw fields. Errors: read_binary_ext_fields'.
Status materialize_ext_fields(RemotingCommand& cmd);

}  // namespace ferry::remoting
