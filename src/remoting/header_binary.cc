#include "remoting/header_binary.h"

#include <fmt/format.h>

#include <limits>
#include <string_view>

#include "remoting/byte_io.h"
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

// Reads an int32 length that must be >= 0 and fit in what is left.
Result<std::size_t> read_length(ByteReader& r, std::string_view what) {
  std::uint32_t raw = 0;
  if (!r.be32(raw)) return corrupt(fmt::format("truncated before the {} length", what));
  const auto len = static_cast<std::int32_t>(raw);
  if (len < 0) return corrupt(fmt::format("negative {} length {}", what, len));
  if (static_cast<std::size_t>(len) > r.remaining()) {
    return corrupt(fmt::format("{} length {} exceeds the {} bytes left", what, len, r.remaining()));
  }
  return static_cast<std::size_t>(len);
}

Result<ExtFields> read_ext_fields(ByteReader& r) {
  ExtFields fields;
  while (r.remaining() > 0) {
    if (fields.size() >= kExtFieldsMax) {
      return corrupt(fmt::format("more than {} extFields", kExtFieldsMax));
    }
    std::uint16_t raw_key_len = 0;
    if (!r.be16(raw_key_len)) return corrupt("truncated extFields key length");
    const auto key_len = static_cast<std::int16_t>(raw_key_len);
    if (key_len < 0) return corrupt(fmt::format("negative extFields key length {}", key_len));
    std::string_view key;
    if (!r.text(static_cast<std::size_t>(key_len), key)) {
      return corrupt(fmt::format("extFields key length {} exceeds the {} bytes left", key_len,
                                 r.remaining()));
    }
    auto value_len = read_length(r, fmt::format("extFields value (key \"{}\")", key));
    if (!value_len) return std::move(value_len).error();
    std::string_view value;
    const bool ok = r.text(*value_len, value);
    FERRY_ASSERT(ok, "read_length checked {} <= remaining", *value_len);
    fields.set(std::string(key), std::string(value));
  }
  return fields;
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
  out.reserve(out.size() + kBinaryHeaderMinBytes + remark.size() + ext_bytes);

  ByteWriter w(out);
  w.be16(static_cast<std::uint16_t>(static_cast<std::int16_t>(cmd.code)));
  w.u8(static_cast<std::uint8_t>(cmd.language));
  w.be16(static_cast<std::uint16_t>(static_cast<std::int16_t>(cmd.version)));
  w.be32(static_cast<std::uint32_t>(cmd.opaque));
  w.be32(static_cast<std::uint32_t>(cmd.flag));
  w.be32(static_cast<std::uint32_t>(remark.size()));
  w.bytes(remark);
  w.be32(static_cast<std::uint32_t>(ext_bytes));
  for (const auto& [k, v] : cmd.ext_fields) {
    FERRY_ASSERT_LE(k.size(), static_cast<std::size_t>(std::numeric_limits<std::int16_t>::max()));
    w.be16(static_cast<std::uint16_t>(k.size()));
    w.bytes(k);
    w.be32(static_cast<std::uint32_t>(v.size()));
    w.bytes(v);
  }
}

Result<RemotingCommand> read_binary_header(Bytes header) {
  ByteReader r(header);
  std::uint16_t code = 0;
  std::uint8_t language = 0;
  std::uint16_t version = 0;
  std::uint32_t opaque = 0;
  std::uint32_t flag = 0;
  if (!r.be16(code) || !r.u8(language) || !r.be16(version) || !r.be32(opaque) || !r.be32(flag)) {
    return corrupt(fmt::format("{} bytes, shorter than the {}-byte fixed part", header.size(),
                               kBinaryFixedBytes));
  }
  const auto lang = language_from_code(language);
  if (!lang) return corrupt(fmt::format("unknown language code {}", language));

  RemotingCommand cmd;
  cmd.serialize_type = SerializeType::rocketmq;
  cmd.code = static_cast<std::int16_t>(code);
  cmd.language = *lang;
  cmd.version = static_cast<std::int16_t>(version);
  cmd.opaque = static_cast<std::int32_t>(opaque);
  cmd.flag = static_cast<std::int32_t>(flag);

  auto remark_len = read_length(r, "remark");
  if (!remark_len) return std::move(remark_len).error();
  if (*remark_len > 0) {
    std::string_view remark;
    const bool ok = r.text(*remark_len, remark);
    FERRY_ASSERT(ok, "read_length checked {} <= remaining", *remark_len);
    cmd.remark = std::string(remark);
  }

  auto ext_len = read_length(r, "extFields");
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
