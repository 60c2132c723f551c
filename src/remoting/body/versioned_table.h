// A versioned table of named configs, as RocketMQ writes topics.json / subscriptionGroup.json and
// the admin bodies that carry the same shape (TopicConfigSerializeWrapper, SubscriptionGroupWrapper:
// GET_ALL_TOPIC_CONFIG 21, GET_ALL_SUBSCRIPTIONGROUP_CONFIG 201):
//   {"dataVersion":{"counter":N,"timestamp":ms},"<table key>":{"<name>":{...Config...}}}
// `Config` writes itself (write(json::Writer&)), reads itself (static read(value, path, errors))
// and carries its own name, which must equal its key. A missing dataVersion reads as {0, 0}.
// Decoders name what is wrong with a path rooted at keys.file_name and stop at the first error.
#pragma once

#include <fmt/format.h>
#include <rapidjson/document.h>

#include <cstdint>
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

namespace ferry::remoting::body {

// Configs by name (topics, subscription groups), ordered by name.
template <typename Config>
using NamedTable = std::map<std::string, Config, std::less<>>;

// The whole state of a versioned table (what its file holds).
template <typename Config>
struct VersionedTable {
  NamedTable<Config> table;
  DataVersion version;
};

// What names a versioned table in its file.
struct VersionedTableKeys {
  std::string_view file_name;  // "topics.json": the root of error paths
  std::string_view table_key;  // "topicConfigTable"
  std::string_view name_key;   // "topicName": the Config field holding its name
};

template <typename Config>
std::string encode_versioned_table(const NamedTable<Config>& table, const DataVersion& version,
                                   const VersionedTableKeys& keys) {
  std::vector<std::uint8_t> bytes = write_body([&](json::Writer& w) {
    w.StartObject();
    json::write_key(w, "dataVersion");
    version.write(w);
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
                              NamedTable<Config>& table, DataVersion& version) {
  auto doc = json::parse(text, json::Numbers::typed, keys.file_name);
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, std::string(keys.file_name), errors);
  if (const rapidjson::Value* dv = r.optional_object("dataVersion")) {
    json::ObjectReader d(*dv, r.path_of("dataVersion"), errors);
    version = DataVersion::read(d);
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

}  // namespace ferry::remoting::body
