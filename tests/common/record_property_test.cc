// RapidCheck properties of the record codec: random messages (topics, properties, bodies, hosts)
// survive encode -> decode -> MessageExt unchanged; arbitrary bytes never crash the reader, and
// whatever it accepts as a message re-encodes to the same bytes.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

#include "common/compression.h"
#include "common/crc.h"
#include "common/message_decoder.h"
#include "common/msg_id.h"
#include "common/properties.h"
#include "common/record_reader.h"
#include "common/record_writer.h"
#include "common/sys_flag.h"

namespace ferry {
namespace {

rc::Gen<std::string> gen_topic() {
  static const std::string kChars =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789%|_-";
  return rc::gen::mapcat(rc::gen::inRange<std::size_t>(1, 128), [](std::size_t n) {
    return rc::gen::container<std::string>(n, rc::gen::elementOf(kChars));
  });
}

rc::Gen<HostPort> gen_host() {
  return rc::gen::apply(
      [](bool v6, std::array<std::uint8_t, 16> ip, std::uint16_t port) {
        HostPort h;
        h.ipv6 = v6;
        for (std::size_t i = 0; i < (v6 ? 16u : 4u); ++i) h.ip[i] = ip[i];
        h.port = port;
        return h;
      },
      rc::gen::arbitrary<bool>(), rc::gen::arbitrary<std::array<std::uint8_t, 16>>(),
      rc::gen::arbitrary<std::uint16_t>());
}

// Keys: non-empty, no separators. Values: anything but \x02 (a \x01 inside a value survives).
rc::Gen<Properties> gen_properties() {
  auto key = rc::gen::nonEmpty(rc::gen::container<std::string>(
      rc::gen::suchThat(rc::gen::arbitrary<char>(), [](char c) { return c != 1 && c != 2; })));
  auto value = rc::gen::container<std::string>(
      rc::gen::suchThat(rc::gen::arbitrary<char>(), [](char c) { return c != 2; }));
  return rc::gen::map(
      rc::gen::container<std::vector<std::pair<std::string, std::string>>>(
          rc::gen::pair(key, value)),
      [](const std::vector<std::pair<std::string, std::string>>& kvs) {
        Properties p;
        for (const auto& [k, v] : kvs) p.set(k, v);
        return p;
      });
}

RC_GTEST_PROP(RecordProperty, RandomMessagesRoundTrip, ()) {
  const std::string topic = *gen_topic();
  const Properties props = *gen_properties();
  const auto body = *rc::gen::arbitrary<std::vector<std::uint8_t>>();
  auto encoded_props = encode_properties(props);
  RC_ASSERT(encoded_props.ok());
  RC_PRE(encoded_props->size() <= record::kPropertiesBytesMax);

  RecordFields f;
  f.body = body;
  f.body_crc = body_crc(body);
  f.queue_id = QueueId(*rc::gen::arbitrary<std::int32_t>());
  f.flag = *rc::gen::arbitrary<std::int32_t>();
  f.queue_offset = QueueOffset(*rc::gen::arbitrary<std::int64_t>());
  f.physical_offset = PhysicalOffset(*rc::gen::arbitrary<std::int64_t>());
  f.born_timestamp_ms = *rc::gen::arbitrary<std::int64_t>();
  f.born_host = *gen_host();
  f.store_timestamp_ms = *rc::gen::arbitrary<std::int64_t>();
  f.store_host = *gen_host();
  f.sys_flag = with_host_flags(*rc::gen::arbitrary<std::int32_t>(), f.born_host, f.store_host);
  f.reconsume_times = *rc::gen::arbitrary<std::int32_t>();
  f.prepared_transaction_offset = *rc::gen::arbitrary<std::int64_t>();
  f.topic = topic;
  f.properties = *encoded_props;

  auto size = record_size(f);
  RC_ASSERT(size.ok());
  std::vector<std::uint8_t> buf(*size);
  RC_ASSERT(encode_record(f, buf) == *size);

  RecordRead r = decode_record(buf, {.check_crc = true, .size_bytes_max = 1u << 30});
  RC_ASSERT(r.kind == RecordKind::message);
  RC_ASSERT(r.size_bytes == *size);
  const RecordFields& g = r.fields;
  RC_ASSERT(g.topic == f.topic);
  RC_ASSERT(std::vector<std::uint8_t>(g.body.begin(), g.body.end()) == body);
  RC_ASSERT(g.properties == f.properties);
  RC_ASSERT(g.queue_id == f.queue_id);
  RC_ASSERT(g.flag == f.flag);
  RC_ASSERT(g.queue_offset == f.queue_offset);
  RC_ASSERT(g.physical_offset == f.physical_offset);
  RC_ASSERT(g.sys_flag == f.sys_flag);
  RC_ASSERT(g.born_timestamp_ms == f.born_timestamp_ms);
  RC_ASSERT(g.born_host == f.born_host);
  RC_ASSERT(g.store_timestamp_ms == f.store_timestamp_ms);
  RC_ASSERT(g.store_host == f.store_host);
  RC_ASSERT(g.reconsume_times == f.reconsume_times);
  RC_ASSERT(g.prepared_transaction_offset == f.prepared_transaction_offset);
  RC_ASSERT(g.body_crc == f.body_crc);

  auto ext = to_message_ext(g, r.size_bytes);
  RC_ASSERT(ext.ok());
  RC_ASSERT(ext->properties == props);
  auto id = decode_offset_msg_id(ext->offset_msg_id);
  RC_ASSERT(id.ok());
  RC_ASSERT(id->store_host == f.store_host);
  RC_ASSERT(id->offset == f.physical_offset);
}

RC_GTEST_PROP(RecordProperty, ArbitraryBytesNeverCrashTheReader, ()) {
  auto bytes = *rc::gen::arbitrary<std::vector<std::uint8_t>>();
  // Often start with a plausible header so that the deeper checks are reached.
  if (*rc::gen::arbitrary<bool>() && bytes.size() >= 8) {
    store_be32(bytes.data(), static_cast<std::uint32_t>(bytes.size()));
    store_be32(bytes.data() + 4, record::kMessageMagic);
  }
  RecordRead r = decode_record(bytes, {.check_crc = *rc::gen::arbitrary<bool>()});
  if (r.kind == RecordKind::message) {
    RC_ASSERT(r.size_bytes <= bytes.size());
    std::vector<std::uint8_t> again(r.size_bytes);
    encode_record(r.fields, again);
    RC_ASSERT(std::equal(again.begin(), again.end(), bytes.begin()));
  } else if (r.kind == RecordKind::torn || r.kind == RecordKind::corrupt) {
    RC_ASSERT(!r.detail.empty());
  }
  auto msgs = decode_messages(bytes, {});  // must not crash either
  (void)msgs;
}

RC_GTEST_PROP(RecordProperty, DamagedRecordsAreReportedNeverCrash, ()) {
  const std::string topic = *gen_topic();
  const auto body = *rc::gen::arbitrary<std::vector<std::uint8_t>>();
  RecordFields f;
  f.body = body;
  f.body_crc = body_crc(body);
  f.born_host = *gen_host();
  f.store_host = *gen_host();
  f.sys_flag = with_host_flags(0, f.born_host, f.store_host);
  f.topic = topic;
  f.properties = "TAGS\x01T";
  std::vector<std::uint8_t> buf(record_size(f).value());
  encode_record(f, buf);
  // Damage: a few random byte changes, then maybe a cut.
  const auto edits = *rc::gen::container<std::vector<std::pair<std::size_t, std::uint8_t>>>(
      rc::gen::pair(rc::gen::inRange<std::size_t>(0, buf.size()), rc::gen::arbitrary<std::uint8_t>()));
  for (const auto& [pos, value] : edits) buf[pos] = value;
  const std::size_t len = *rc::gen::inRange<std::size_t>(0, buf.size() + 1);
  Bytes data(buf.data(), len);
  RecordRead r = decode_record(data);
  if (r.kind == RecordKind::message) {
    RC_ASSERT(r.size_bytes <= len);
    std::vector<std::uint8_t> again(r.size_bytes);
    encode_record(r.fields, again);
    RC_ASSERT(std::equal(again.begin(), again.end(), data.begin()));
    RC_ASSERT(body_crc(r.fields.body) == r.fields.body_crc);
  } else {
    RC_ASSERT(r.kind == RecordKind::torn || r.kind == RecordKind::corrupt ||
              r.kind == RecordKind::blank || r.kind == RecordKind::unwritten);
    if (edits.empty()) RC_ASSERT(r.kind == RecordKind::torn);  // only cut: torn
  }
}

RC_GTEST_PROP(RecordProperty, CompressedBodiesComeBackInflated, ()) {
  const auto body = *rc::gen::arbitrary<std::vector<std::uint8_t>>();
  auto packed = zlib_compress(body);
  RecordFields f;
  f.body = packed;
  f.body_crc = body_crc(packed);  // the CRC covers the stored (compressed) body
  f.sys_flag = sysflag::kCompressed | sysflag::kCompressionZlib;
  f.topic = "T";
  std::vector<std::uint8_t> buf(record_size(f).value());
  encode_record(f, buf);
  auto msgs = decode_messages(buf, {.check_crc = true});
  RC_ASSERT(msgs.ok());
  RC_ASSERT(msgs->size() == 1u);
  RC_ASSERT((*msgs)[0].body == body);
  RC_ASSERT(((*msgs)[0].sys_flag & sysflag::kCompressed) == 0);
}

}  // namespace
}  // namespace ferry
