#include "client/batch_encoder.h"

#include <fmt/format.h>

#include "common/properties.h"

namespace ferry::client {

namespace {
void put32(std::vector<std::uint8_t>& out, std::int32_t v) {
  const auto u = static_cast<std::uint32_t>(v);
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<std::uint8_t>((u >> s) & 0xff));
}
void put16(std::vector<std::uint8_t>& out, std::int16_t v) {
  const auto u = static_cast<std::uint16_t>(v);
  out.push_back(static_cast<std::uint8_t>(u >> 8));
  out.push_back(static_cast<std::uint8_t>(u & 0xff));
}
}  // namespace

Result<std::vector<std::uint8_t>> encode_batch(std::span<const Message> msgs) {
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; i < msgs.size(); ++i) {
    const Message& m = msgs[i];
    Result<std::string> props = encode_properties(m.properties);
    if (!props.ok()) return Error(Errc::invalid_argument, fmt::format("batch message {}: {}", i, props.error().detail));
    if (props->size() > 32767) {
      return Error(Errc::invalid_argument, fmt::format("batch message {}: properties of {} bytes; the most is 32767", i, props->size()));
    }
    const std::size_t total = 4 + 4 + 4 + 4 + 4 + m.body.size() + 2 + props->size();
    out.reserve(out.size() + total);
    put32(out, static_cast<std::int32_t>(total));
    put32(out, 0);  // magic: the broker sets it
    put32(out, 0);  // body CRC: the broker computes it
    put32(out, m.flag);
    put32(out, static_cast<std::int32_t>(m.body.size()));
    out.insert(out.end(), m.body.begin(), m.body.end());
    put16(out, static_cast<std::int16_t>(props->size()));
    out.insert(out.end(), props->begin(), props->end());
  }
  return out;
}

}  // namespace ferry::client
