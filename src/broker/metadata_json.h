// The JSON shapes the broker's metadata files share (DESIGN.md section 4). Written as standard
// JSON; read tolerating fastjson's unquoted integer keys. Decoders name what is wrong with a path
// ("topics.json.topicConfigTable[\"T\"].readQueueNums: missing") and stop at the first error.
//
// A versioned table (topics.json, subscriptionGroup.json):
//   {"dataVersion":{"counter":N,"timestamp":ms},"<table key>":{"<name>":{...Config...}}}
// `Config` writes itself (write(json::Writer&)), reads itself (static read(value, path, errors))
// and carries its own name, which must equal its key. A missing dataVersion reads as {0, 0}.
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
#include "remoting/json/json_reader.h"
#include "remoting/json/json_text.h"
#include "remoting/json/json_writer.h"
#include "runtime/result.h"

namespace ferry::broker {

// A state's JSON form, as a JsonStateFile (json_state_file.h) uses it. decode() fills a
// default-constructed State and may leave it partly filled when it fails.
template <typename State>
struct JsonCodec {
  std::function<std::string(const State& state)> encode;
  std::function<Status(std::string_view text, State& state)> decode;
};

// Configs by name (topics, subscription groups), ordered by name.
template <typename Config>
using NamedTable = std::map<std::string, Config, std::less<>>;

// The whole state of a versioned table (what its file holds).
template <typename Config>
struct VersionedTable {
  NamedTable<Config> table;
  remoting::body::DataVersion version;
};

// What names a versioned table in its file.
struct VersionedTableKeys {
  std::string_view file_name;  // "topics.json": the root of error paths
  std::string_view table_key;  // "topicConfigTable"
  std::string_view name_key;   // "topicName": the Config field holding its name
};

template <typename Config>
std::string encode_versioned_table(const NamedTable<Config>& table, const remoting::body::DataVersion& version,
                                   const VersionedTableKeys& keys) {
  namespace json = remoting::json;
  std::vector<std::uint8_t> bytes = remoting::body::write_body([&](json::Writer& w) {
    w.StartObject();
    json::write_key(w, "dataVersion");
    w.StartObject();
    w.Key("counter");
    w.Int64(version.counter);
    w.Key("timestamp");
    w.Int64(version.timestamp);
    w.EndObject();
    json::write_key(w, keys.table_key);
    w.StartObject();
    for (const auto& [name, c] : table) {
      json::write_key(w, name);
      c.write(w);
    }
    w.EndObject();
    w.EndObject();
  });
  return std::string(bytes.begin(), bytes.end());
}

// Adds the file's configs to `table` and sets `version`; `name` is the Config member that
// holds its name. On an error both may be partly filled (decode into temporaries).
template <typename Config>
Status decode_versioned_table(std::string_view text, const VersionedTableKeys& keys, std::string Config::*name,
                              NamedTable<Config>& table, remoting::body::DataVersion& version) {
  namespace json = remoting::json;
  auto doc = json::parse(text, json::Numbers::typed, keys.file_name);
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, std::string(keys.file_name), errors);
  if (const rapidjson::Value* dv = r.optional_object("dataVersion")) {
    json::ObjectReader d(*dv, r.path_of("dataVersion"), errors);
    version.counter = d.int64_or("counter", 0);
    version.timestamp = d.int64_or("timestamp", 0);
  }
  if (const rapidjson::Value* t = r.object(keys.table_key)) {
    const std::string path = r.path_of(keys.table_key);
    for (auto it = t->MemberBegin(); it != t->MemberEnd() && !errors.failed(); ++it) {
      std::string key(it->name.GetString(), it->name.GetStringLength());
      Config c = Config::read(it->value, fmt::format("{}[\"{}\"]", path, key), errors);
      if (!errors.failed() && c.*name != key) {
        errors.fail(fmt::format("{}[\"{}\"].{} is \"{}\"", path, key, keys.name_key, c.*name));
      }
      table.insert_or_assign(std::move(key), std::move(c));
    }
  }
  if (errors.failed()) return errors.take();
  return Status();
}

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
