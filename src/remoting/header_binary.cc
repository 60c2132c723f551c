#include "remoting/header_binary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "common/byte_reader.h"
#include "common/byte_writer.h"
#include "runtime/assert.h"

namespace ferry::remoting {
namespace {

constexpr std::size_t kLength32Max = std::numeric_limits<std::int32_t>::max();

std::size_t ext_fields_bytes(const ExtFields& fields) {
  std::size_t n = 0;
  for (const auto& [k, v] : fields) n += kBinaryExtEntryMinBytes + k.size() + v.size();
  return n;
}

Error corrupt(std::string what) { return Error(Errc::corrupt, "binary header: " + std::move(what)); }

// What a length belongs to, for errors: "remark", or `part` of the entry with `key`
// ("extFields value (key \"k\")"). Formatted only when there is an error to report.
struct LengthOf {
  std::string_view part;
  std::optional<std::string_view> key;

  std::string text() const {
    return key ? fmt::format("{} (key \"{}\")", part, *key) : std::string(part);
  }
};

// Reads an int32 length that must be >= 0 and fit in what is left.
Result<std::size_t> read_length(ByteReader& r, const LengthOf& what) {
  const Result<std::int32_t> len = r.i32();
  if (!len) return corrupt(fmt::format("truncated before the {} length", what.text()));
  if (*len < 0) return corrupt(fmt::format("negative {} length {}", what.text(), *len));
  if (static_cast<std::size_t>(*len) > r.remaining()) {
    return corrupt(fmt::format("{} length {} exceeds the {} bytes left", what.text(), *len,
                               r.remaining()));
  }
  return static_cast<std::size_t>(*len);
}

// Entries reserved before decoding extFields (more still fit: the vector grows).
constexpr std::size_t kReservedExtFields = 16;

// One entry read with every check spelled out, for the words of an error: Errc::corrupt, or
// false after the last entry.
Result<bool> read_entry_checked(ByteReader& r) {
  if (r.remaining() == 0) return false;
  const Result<std::int16_t> key_len = r.i16();
  if (!key_len) return corrupt("truncated extFields key length");
  if (*key_len < 0) return corrupt(fmt::format("negative extFields key length {}", *key_len));
  const Result<std::string_view> key = r.text(static_cast<std::size_t>(*key_len));
  if (!key) {
    return corrupt(fmt::format("extFields key length {} exceeds the {} bytes left", *key_len, r.remaining()));
  }
  auto value_len = read_length(r, LengthOf{"extFields value", *key});
  if (!value_len) return std::move(value_len).error();
  (void)r.skip(*value_len);  // read_length checked the length
  return true;
}

}  // namespace

Error BinaryExtFieldsReader::error() const {
  FERRY_ASSERT(failed_, "BinaryExtFieldsReader::error() before a failure");
  ByteReader r(data_);
  for (;;) {
    Result<bool> more = read_entry_checked(r);
    if (!more) return std::move(more).error();
    FERRY_ASSERT(*more, "extFields of {} bytes failed to read, but read whole when checked", data_.size());
  }
}

Result<ExtFields> read_binary_ext_fields(Bytes entries) {
  OrderedStringMapBuilder fields;
  // Reserving up front spares the vector's doublings, each of which moves every string. An entry
  // of a real header takes 12 bytes or more on average (6 of lengths, a name, a value): a dozen
  // request fields fill the reservation; a reply's half-dozen get no more than they need (an
  // estimate from the 6-byte minimum reserved a 1 KiB block for every reply, which missed the
  // allocator's per-thread cache). Counting the entries exactly first cost more than it saved.
  if (!entries.empty()) fields.reserve(std::min<std::size_t>(entries.size() / 12 + 1, kReservedExtFields));
  BinaryExtFieldsReader r(entries);
  BinaryExtFieldsReader::Entry e;
  while (r.next(e)) {
    if (fields.size() >= kExtFieldsMax) {
      return corrupt(fmt::format("more than {} extFields", kExtFieldsMax));
    }
    fields.set(e.key, e.value);
  }
  if (r.failed()) return r.error();
  return std::move(fields).take();
}

void append_binary_ext_field(std::vector<std::uint8_t>& out, std::string_view key, std::string_view value) {
  FERRY_ASSERT_LE(key.size(), static_cast<std::size_t>(std::numeric_limits<std::int16_t>::max()));
  FERRY_ASSERT_LE(value.size(), kLength32Max);
  const std::size_t at = out.size();
  out.resize(at + kBinaryExtEntryMinBytes + key.size() + value.size());
  std::uint8_t* p = out.data() + at;
  store_be16(p, static_cast<std::uint16_t>(key.size()));
  if (!key.empty()) std::memcpy(p + 2, key.data(), key.size());
  store_be32(p + 2 + key.size(), static_cast<std::uint32_t>(value.size()));
  if (!value.empty()) std::memcpy(p + kBinaryExtEntryMinBytes + key.size(), value.data(), value.size());
}

void assert_one_ext_fields_form(const RemotingCommand& cmd) {
  FERRY_ASSERT(cmd.raw_ext_fields.empty() || cmd.ext_fields.empty(), "a command with raw extFields also has {} in its map",
               cmd.ext_fields.size());
}

Status materialize_ext_fields(RemotingCommand& cmd) {
  if (cmd.raw_ext_fields.empty()) return {};
  assert_one_ext_fields_form(cmd);
  Result<ExtFields> fields = read_binary_ext_fields(Bytes(cmd.raw_ext_fields.data(), cmd.raw_ext_fields.size()));
  if (!fields) return std::move(fields).error();
  cmd.ext_fields = std::move(*fields);
  cmd.raw_ext_fields.clear();
  return {};
}

namespace {

// Whether `entries` read without error and hold at most kExtFieldsMax entries: then they may
// stay raw (below that count, distinct keys cannot pass the bound either).
bool raw_ok(Bytes entries) {
  BinaryExtFieldsReader r(entries);
  BinaryExtFieldsReader::Entry e;
  std::size_t n = 0;
  while (r.next(e)) {
    if (++n > kExtFieldsMax) return false;
  }
  return !r.failed();
}

}  // namespace

void write_binary_header(const RemotingCommand& cmd, std::vector<std::uint8_t>& out) {
  FERRY_ASSERT(cmd.code >= std::numeric_limits<std::int16_t>::min() &&
                   cmd.code <= std::numeric_limits<std::int16_t>::max(),
               "code {} does not fit the binary header's int16", cmd.code);
  FERRY_ASSERT(cmd.version >= std::numeric_limits<std::int16_t>::min() &&
                   cmd.version <= std::numeric_limits<std::int16_t>::max(),
               "version {} does not fit the binary header's int16", cmd.version);
  const std::string_view remark = cmd.remark ? std::string_view(*cmd.remark) : std::string_view();
  assert_one_ext_fields_form(cmd);
  const std::size_t ext_bytes = cmd.raw_ext_fields.empty() ? ext_fields_bytes(cmd.ext_fields) : cmd.raw_ext_fields.size();
  FERRY_ASSERT_LE(remark.size(), kLength32Max);
  FERRY_ASSERT_LE(ext_bytes, kLength32Max);
  // The exact length is known: size `out` once and write in place.
  const std::size_t header_bytes = kBinaryHeaderMinBytes + remark.size() + ext_bytes;
  const std::size_t at = out.size();
  out.resize(at + header_bytes);
  SpanWriter w(MutableBytes(out.data() + at, header_bytes));
  w.i16(static_cast<std::int16_t>(cmd.code));
  w.u8(static_cast<std::uint8_t>(cmd.language));
  w.i16(static_cast<std::int16_t>(cmd.version));
  w.i32(cmd.opaque);
  w.i32(cmd.flag);
  w.u32(static_cast<std::uint32_t>(remark.size()));
  w.text(remark);
  w.u32(static_cast<std::uint32_t>(ext_bytes));
  w.bytes(Bytes(cmd.raw_ext_fields.data(), cmd.raw_ext_fields.size()));
  for (const auto& [k, v] : cmd.ext_fields) {
    FERRY_ASSERT_LE(k.size(), static_cast<std::size_t>(std::numeric_limits<std::int16_t>::max()));
    w.u16(static_cast<std::uint16_t>(k.size()));
    w.text(k);
    w.u32(static_cast<std::uint32_t>(v.size()));
    w.text(v);
  }
  FERRY_ASSERT(w.remaining() == 0, "binary header of {} bytes written short: {} left",
               header_bytes, w.remaining());
}

Result<RemotingCommand> read_binary_header(Bytes header, std::span<const std::int32_t> raw_requests, bool raw_replies) {
  if (header.size() < kBinaryFixedBytes) {
    return corrupt(fmt::format("{} bytes, shorter than the {}-byte fixed part", header.size(),
                               kBinaryFixedBytes));
  }
  // The fixed part is there, so value() (which aborts with the reader's error) cannot fail.
  ByteReader r(header);
  RemotingCommand cmd;
  cmd.serialize_type = SerializeType::rocketmq;
  cmd.code = r.i16().value();
  const std::uint8_t language = r.u8().value();
  cmd.version = r.i16().value();
  cmd.opaque = r.i32().value();
  cmd.flag = r.i32().value();
  const auto lang = language_from_code(language);
  if (!lang) return corrupt(fmt::format("unknown language code {}", language));
  cmd.language = *lang;

  auto remark_len = read_length(r, LengthOf{"remark", std::nullopt});
  if (!remark_len) return std::move(remark_len).error();
  if (*remark_len > 0) cmd.remark = std::string(r.text(*remark_len).value());

  auto ext_len = read_length(r, LengthOf{"extFields", std::nullopt});
  if (!ext_len) return std::move(ext_len).error();
  if (*ext_len != r.remaining()) {
    return corrupt(fmt::format("extFields length {} but {} bytes follow it", *ext_len, r.remaining()));
  }
  const Bytes entries = r.bytes(*ext_len).value();  // the length was checked against what is left
  const bool raw = cmd.is_response() ? raw_replies
                                     : std::find(raw_requests.begin(), raw_requests.end(), cmd.code) != raw_requests.end();
  if (raw && raw_ok(entries)) {
    cmd.raw_ext_fields.assign(entries.begin(), entries.end());
    return cmd;
  }
  auto fields = read_binary_ext_fields(entries);
  if (!fields) return std::move(fields).error();
  cmd.ext_fields = std::move(*fields);
  return cmd;
}

}  // namespace ferry::remoting
