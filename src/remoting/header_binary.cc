#include "remoting/header_binary.h"

#include <fmt/format.h>

#include <algorithm>
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

Result<ExtFields> read_ext_fields(ByteReader& r) {
  OrderedStringMapBuilder fields;
  // Reserving up front spares the vector's doublings, each of which moves every string. An entry
  // of a real header takes 12 bytes or more on average (6 of lengths, a name, a value): a dozen
  // request fields fill the reservation; a reply's half-dozen get no more than they need (an
  // estimate from the 6-byte minimum reserved a 1 KiB block for every reply, which missed the
  // allocator's per-thread cache). Counting the entries exactly first cost more than it saved.
  if (r.remaining() > 0) fields.reserve(std::min<std::size_t>(r.remaining() / 12 + 1, kReservedExtFields));
  while (r.remaining() > 0) {
    if (fields.size() >= kExtFieldsMax) {
      return corrupt(fmt::format("more than {} extFields", kExtFieldsMax));
    }
    const Result<std::int16_t> key_len = r.i16();
    if (!key_len) return corrupt("truncated extFields key length");
    if (*key_len < 0) return corrupt(fmt::format("negative extFields key length {}", *key_len));
    const Result<std::string_view> key = r.text(static_cast<std::size_t>(*key_len));
    if (!key) {
      return corrupt(fmt::format("extFields key length {} exceeds the {} bytes left", *key_len,
                                 r.remaining()));
    }
    auto value_len = read_length(r, LengthOf{"extFields value", *key});
    if (!value_len) return std::move(value_len).error();
    const std::string_view value = r.text(*value_len).value();  // read_length checked the length
    fields.set(*key, value);
  }
  return std::move(fields).take();
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
  const std::size_t ext_bytes = ext_fields_bytes(cmd.ext_fields);
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

Result<RemotingCommand> read_binary_header(Bytes header) {
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
  auto fields = read_ext_fields(r);
  if (!fields) return std::move(fields).error();
  cmd.ext_fields = std::move(*fields);
  return cmd;
}

}  // namespace ferry::remoting
