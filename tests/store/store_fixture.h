// Shared helpers for MessageStore tests: a small-file configuration and message builders.
#pragma once

#include <string>
#include <vector>

#include "common/message_const.h"
#include "common/properties.h"
#include "common/record_reader.h"
#include "store/message_store.h"

namespace ferry::store::testing {

inline StoreConfig small_config() {
  StoreConfig c;
  c.root = "store";
  c.commit_log_file_size_bytes = 1024;
  c.message_size_max_bytes = 512;
  c.consume_queue_units_per_file = 4;
  c.index_geometry = IndexGeometry{16, 64};
  return c;
}

// A message with owned bytes; request() views them.
struct TestMessage {
  std::string topic = "T";
  QueueId queue_id{0};
  std::string body = "hello";
  std::string properties;
  std::int32_t sys_flag = 0;

  TestMessage& tags(std::string_view t) { return set(prop::kTags, t); }
  TestMessage& keys(std::string_view k) { return set(prop::kKeys, k); }
  TestMessage& uniq(std::string_view u) { return set(prop::kUniqKey, u); }
  TestMessage& set(std::string_view key, std::string_view value) {
    Properties p = *decode_properties(properties);
    p.set(key, value);
    properties = *encode_properties(p);
    return *this;
  }
  PutRequest request() const {
    PutRequest r;
    r.topic = topic;
    r.queue_id = queue_id;
    r.body = Bytes(reinterpret_cast<const std::uint8_t*>(body.data()), body.size());
    r.properties = properties;
    r.sys_flag = sys_flag;
    r.born_timestamp_ms = 1'700'000'000'000;
    r.born_host = HostPort::v4(10, 0, 0, 1, 5555);
    return r;
  }
};

inline RecordRead decode(const FileView& v) { return decode_record(v.bytes()); }
inline std::string body_of(const FileView& v) {
  const RecordRead r = decode(v);
  return std::string(reinterpret_cast<const char*>(r.fields.body.data()), r.fields.body.size());
}

}  // namespace ferry::store::testing
