#include "broker/batch_decoder.h"

#include <fmt/format.h>

#include "common/byte_reader.h"

namespace ferry::broker {

Result<std::vector<BatchEntry>> decode_batch(Bytes body) {
  std::vector<BatchEntry> out;
  ByteReader r(body);
  while (!r.at_end()) {
    const std::size_t start = r.position();
    const std::size_t index = out.size();
    if (index >= kBatchEntriesMax) {
      return Error(Errc::invalid_argument, fmt::format("batch: more than {} messages", kBatchEntriesMax));
    }
    auto bad = [&](std::string what) {
      return Error(Errc::invalid_argument, fmt::format("batch message {} at byte {}: {}", index, start, what));
    };
    auto total = r.i32();
    auto magic = r.i32();
    auto crc = r.i32();
    auto flag = r.i32();
    auto body_len = r.i32();
    if (!total || !magic || !crc || !flag || !body_len) return bad("truncated header");
    if (*body_len < 0) return bad(fmt::format("bodyLen {} is negative", *body_len));
    auto payload = r.bytes(static_cast<std::size_t>(*body_len));
    if (!payload) return bad(fmt::format("bodyLen {} runs past the end", *body_len));
    auto prop_len = r.i16();
    if (!prop_len) return bad("truncated propLen");
    if (*prop_len < 0) return bad(fmt::format("propLen {} is negative", *prop_len));
    auto props = r.text(static_cast<std::size_t>(*prop_len));
    if (!props) return bad(fmt::format("propLen {} runs past the end", *prop_len));
    const std::size_t size = r.position() - start;
    if (*total < 0 || static_cast<std::size_t>(*total) != size) {
      return bad(fmt::format("totalSize {} but the entry holds {} bytes", *total, size));
    }
    out.push_back(BatchEntry{*flag, *payload, *props});
  }
  if (out.empty()) return Error(Errc::invalid_argument, "batch: no message in the body");
  return out;
}

}  // namespace ferry::broker
