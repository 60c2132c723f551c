#include "broker/pop_checkpoint.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "common/pop_receipt.h"
#include "remoting/body/batch_ack_body.h"
#include "remoting/body/body_json.h"

namespace ferry::broker {

namespace json = remoting::json;
using remoting::body::parse_body;
using remoting::body::write_body;
using remoting::body::write_string_field;

namespace {

std::string as_text(const std::vector<std::uint8_t>& bytes) { return std::string(bytes.begin(), bytes.end()); }

void write_key_fields(json::Writer& w, const PopCheckpointKey& k) {
  json::write_key(w, "so");
  w.Int64(k.start_offset);
  json::write_key(w, "pt");
  w.Int64(k.pop_time);
  json::write_key(w, "q");
  w.Int(k.queue_id);
  write_string_field(w, "t", k.topic);
  write_string_field(w, "c", k.group);
}

PopCheckpointKey read_key_fields(json::ObjectReader& r) {
  PopCheckpointKey k;
  k.start_offset = r.int64("so");
  k.pop_time = r.int64("pt");
  k.queue_id = r.int32("q");
  k.topic = r.string("t");
  k.group = r.string("c");
  return k;
}

}  // namespace

std::string revive_topic(std::string_view cluster) { return fmt::format("{}{}", kReviveTopicPrefix, cluster); }

bool PopCheckpoint::all_acked() const {
  const std::int32_t n = count();
  const std::uint32_t all = n >= 32 ? ~std::uint32_t{0} : ((std::uint32_t{1} << n) - 1);
  return (acked_bits & all) == all;
}

std::int32_t PopCheckpoint::index_of(std::int64_t queue_offset) const {
  const std::int64_t diff = queue_offset - key.start_offset;
  for (std::int32_t i = 0; i < count(); ++i) {
    if (offset_diffs[static_cast<std::size_t>(i)] == diff) return i;
  }
  return -1;
}

std::string encode_checkpoint(const PopCheckpoint& ck) {
  return as_text(write_body([&ck](json::Writer& w) {
    w.StartObject();
    write_key_fields(w, ck.key);
    json::write_key(w, "it");
    w.Int64(ck.invisible_time);
    json::write_key(w, "bm");
    w.Uint(ck.acked_bits);
    json::write_key(w, "n");
    w.Int(ck.count());
    json::write_key(w, "d");
    w.StartArray();
    for (const std::int32_t d : ck.offset_diffs) w.Int(d);
    w.EndArray();
    write_string_field(w, "bn", ck.broker_name);
    json::write_key(w, "rp");
    w.Int(ck.reput_times);
    w.EndObject();
  }));
}

Result<PopCheckpoint> decode_checkpoint(std::string_view text) {
  auto doc = parse_body(as_bytes(text), "PopCheckPoint");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "PopCheckPoint", errors);
  PopCheckpoint ck;
  ck.key = read_key_fields(r);
  ck.invisible_time = r.int64("it");
  ck.acked_bits = static_cast<std::uint32_t>(r.int64_or("bm", 0));
  ck.broker_name = r.optional_string("bn").value_or("");
  ck.reput_times = r.int32_or("rp", 0);
  const std::int32_t n = r.int32("n");
  const rapidjson::Value* d = r.optional_array("d");
  if (errors.failed()) return Error(Errc::corrupt, errors.take().detail);
  if (d == nullptr) {
    // RocketMQ's older checkpoints: n consecutive offsets from so.
    for (std::int32_t i = 0; i < std::min(n, kPopBatchMax); ++i) ck.offset_diffs.push_back(i);
  } else {
    for (rapidjson::SizeType i = 0; i < d->Size(); ++i) {
      const auto v = json::as_int64((*d)[i]);
      if (!v || *v < 0 || *v > std::numeric_limits<std::int32_t>::max()) {
        return Error(Errc::corrupt, fmt::format("PopCheckPoint.d[{}]: not an offset difference", i));
      }
      ck.offset_diffs.push_back(static_cast<std::int32_t>(*v));
    }
  }
  if (ck.count() > kPopBatchMax || ck.count() != n) {
    return Error(Errc::corrupt, fmt::format("PopCheckPoint: n = {} with {} offsets (at most {})", n, ck.count(), kPopBatchMax));
  }
  return ck;
}

std::string encode_ack(const PopAckRecord& ack) {
  return as_text(write_body([&ack](json::Writer& w) {
    w.StartObject();
    if (!ack.offsets.empty()) {
      json::write_key(w, "ao");
      w.Int64(ack.offsets.front());
      json::write_key(w, "aol");
      w.StartArray();
      for (const std::int64_t o : ack.offsets) w.Int64(o);
      w.EndArray();
    }
    write_key_fields(w, ack.key);
    write_string_field(w, "bn", ack.broker_name);
    w.EndObject();
  }));
}

Result<PopAckRecord> decode_ack(std::string_view text) {
  auto doc = parse_body(as_bytes(text), "AckMsg");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "AckMsg", errors);
  PopAckRecord ack;
  ack.key = read_key_fields(r);
  ack.broker_name = r.optional_string("bn").value_or("");
  const rapidjson::Value* list = r.optional_array("aol");
  const std::int64_t single = r.int64_or("ao", -1);
  if (errors.failed()) return Error(Errc::corrupt, errors.take().detail);
  if (list != nullptr && !list->Empty()) {
    if (list->Size() > static_cast<rapidjson::SizeType>(remoting::body::BatchAckMessageRequestBody::kBitsMax)) {
      return Error(Errc::corrupt, fmt::format("AckMsg.aol: {} offsets", list->Size()));
    }
    for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
      const auto v = json::as_int64((*list)[i]);
      if (!v) return Error(Errc::corrupt, fmt::format("AckMsg.aol[{}]: not an offset", i));
      ack.offsets.push_back(*v);
    }
  } else if (single >= 0) {
    ack.offsets.push_back(single);
  }
  return ack;
}

}  // namespace ferry::broker
