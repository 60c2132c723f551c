#include "remoting/body/batch_ack_body.h"

#include "common/base64.h"
#include "remoting/body/body_json.h"

namespace ferry::remoting::body {

namespace {

std::vector<std::uint8_t> to_bitset(const BatchAck& a) {
  std::vector<std::uint8_t> bytes;
  for (const std::int64_t offset : a.offsets) {
    const std::int64_t bit = offset - a.start_offset;
    if (bit < 0 || bit >= BatchAckMessageRequestBody::kBitsMax) continue;
    const auto byte = static_cast<std::size_t>(bit / 8);
    if (bytes.size() <= byte) bytes.resize(byte + 1, 0);
    bytes[byte] = static_cast<std::uint8_t>(bytes[byte] | (1u << (bit % 8)));
  }
  return bytes;
}

}  // namespace

template <>
struct JsonCodec<BatchAck> {
  static BatchAck read(const rapidjson::Value& v, std::string path, json::JsonErrors& errors) {
    json::ObjectReader r(v, path, errors);
    BatchAck a;
    a.consumer_group = r.string("c");
    a.topic = r.string("t");
    const std::string retry = r.string("r");
    if (retry == "0" || retry == "1" || retry == "2") {
      a.retry = static_cast<PopRetry>(retry[0]);
    } else if (!errors.failed()) {
      errors.fail(fmt::format("{}: retry flag \"{}\" is not 0, 1 or 2", r.path_of("r"), retry));
    }
    a.start_offset = r.int64("so");
    a.queue_id = r.int32("q");
    a.revive_qid = r.int32("rq");
    a.pop_time = r.int64("pt");
    a.invisible_time = r.int64("it");
    const std::string bits = r.string("b");
    if (errors.failed()) return a;
    auto bytes = base64_decode(bits);
    if (!bytes) {
      errors.fail(fmt::format("{}: {}", r.path_of("b"), bytes.error().detail));
      return a;
    }
    if (static_cast<std::int64_t>(bytes->size()) * 8 > BatchAckMessageRequestBody::kBitsMax) {
      errors.fail(fmt::format("{}: {} bits, at most {}", r.path_of("b"), bytes->size() * 8,
                              BatchAckMessageRequestBody::kBitsMax));
      return a;
    }
    for (std::size_t i = 0; i < bytes->size(); ++i) {
      for (int b = 0; b < 8; ++b) {
        if (((*bytes)[i] >> b) & 1u) a.offsets.push_back(a.start_offset + static_cast<std::int64_t>(i * 8 + b));
      }
    }
    return a;
  }
  static void write(json::Writer& w, const BatchAck& a) {
    w.StartObject();
    write_string_field(w, "c", a.consumer_group);
    write_string_field(w, "t", a.topic);
    write_string_field(w, "r", std::string(1, static_cast<char>(a.retry)));
    json::write_key(w, "so");
    w.Int64(a.start_offset);
    json::write_key(w, "q");
    w.Int(a.queue_id);
    json::write_key(w, "rq");
    w.Int(a.revive_qid);
    json::write_key(w, "pt");
    w.Int64(a.pop_time);
    json::write_key(w, "it");
    w.Int64(a.invisible_time);
    write_string_field(w, "b", base64_encode(to_bitset(a)));
    w.EndObject();
  }
};

Result<BatchAckMessageRequestBody> BatchAckMessageRequestBody::decode(Bytes body) {
  auto doc = parse_body(body, "BatchAckMessageRequestBody");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "BatchAckMessageRequestBody", errors);
  BatchAckMessageRequestBody b;
  b.broker_name = r.optional_string("brokerName").value_or("");
  b.acks = read_array<BatchAck>(r, "acks", false);
  if (errors.failed()) return errors.take();
  return b;
}

std::vector<std::uint8_t> BatchAckMessageRequestBody::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    write_string_field(w, "brokerName", broker_name);
    write_array(w, "acks", acks);
    w.EndObject();
  });
}

}  // namespace ferry::remoting::body
