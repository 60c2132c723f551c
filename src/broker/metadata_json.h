// The JSON shapes the broker's metadata files share (docs/broker.md, "Metadata files"). Written as standard
// JSON; read tolerating fastjson's unquoted integer keys. Decoders name what is wrong with a path
// ("topics.json.topicConfigTable[\"T\"].readQueueNums: missing") and stop at the first error.
//
// A versioned table (topics.json, subscriptionGroup.json): remoting/body/versioned_table.h (the
// same shape travels in admin bodies).
//
// An offset map (consumerOffset.json's per-queue offsets, delayOffset.json's per-level ones):
//   {"<integer key>":<offset>, ...}
// with keys in a stated range and non-negative offsets.
#pragma once

#include <fmt/format.h>
#include <rapidjson/document.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "remoting/body/body_json.h"
#include "remoting/body/register_broker_body.h"
#include "remoting/body/versioned_table.h"
#include "remoting/json/json_reader.h"
#include "remoting/json/json_text.h"
#include "remoting/json/json_writer.h"
#include "runtime/result.h"

namespace ferry::broker {

using remoting::body::NamedTable;
using remoting::body::VersionedTable;
using remoting::body::VersionedTableKeys;
using remoting::body::decode_versioned_table;
using remoting::body::encode_versioned_table;

// A state's JSON form, as a JsonStateFile (json_state_file.h) uses it. decode() fills a
// default-constructed State and may leave it partly filled when it fails.
template <typename State>
struct JsonCodec {
  std::function<std::string(const State& state)> encode;
  std::function<Status(std::string_view text, State& state)> decode;
};

// The JSON form of a whole versioned table; `name` is the Config member that holds its name.
template <typename Config>
JsonCodec<VersionedTable<Config>> versioned_table_codec(VersionedTableKeys keys, std::string Config::*name) {
  JsonCodec<VersionedTable<Config>> codec;
  codec.encode = [keys](const VersionedTable<Config>& s) { return encode_versioned_table(s.table, s.version, keys); };
  codec.decode = [keys, name](std::string_view text, VersionedTable<Config>& s) {
    return decode_versioned_table(text, keys, name, s.table, s.version);
  };
  return codec;
}

// Offsets by an integer key (a queue id, a delay level).
using OffsetMap = std::map<std::int32_t, std::int64_t>;

// What the keys of an offset map are, for its errors:
// `<path>: <name> "<key>" is not <rule>`.
struct OffsetMapKeys {
  std::string_view name;  // "queue id"
  std::string_view rule;  // "a non-negative int32"
  std::int32_t min = 0;
  std::int32_t max = 0;
};

// Writes `offsets` as one JSON object.
void write_offset_map(remoting::json::Writer& w, const OffsetMap& offsets);
// Adds the members of `object` (at `path`, for errors) to `out`. An offset that is not a
// non-negative integer fails as `<path>["<key>"]: not a non-negative offset`.
void read_offset_map(const rapidjson::Value& object, const std::string& path, const OffsetMapKeys& keys, OffsetMap& out,
                     remoting::json::JsonErrors& errors);

}  // namespace ferry::broker
