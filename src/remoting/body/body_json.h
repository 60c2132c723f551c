// What every JSON body type shares: parse a body (tolerating fastjson's unquoted integer keys and
// object keys, json/json_text.h), build one, and read/write arrays and string lists. One place,
// so each body file only lists its fields.
#pragma once

#include <fmt/format.h>
#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "remoting/json/json_reader.h"
#include "remoting/json/json_text.h"
#include "remoting/json/json_writer.h"
#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting::body {

// Parses a body as JSON. Errors (Errc::corrupt): "<type_name> body: malformed JSON: ...".
Result<rapidjson::Document> parse_body(Bytes bytes, std::string_view type_name);

// Runs `write(json::Writer&)` on a fresh writer and returns the bytes written.
template <typename WriteFn>
std::vector<std::uint8_t> write_body(WriteFn&& write) {
  std::vector<std::uint8_t> out;
  json::ByteStream stream(out);
  json::Writer w(stream);
  write(w);
  return out;
}

// How a body element type is read and written: by default its own T::read(value, path, errors)
// and item.write(w). A type that lives below remoting (common's MessageQueue) gets a
// specialization beside its codec instead (body/message_queue.h).
template <typename T>
struct JsonCodec {
  static T read(const rapidjson::Value& v, std::string path, json::JsonErrors& errors) {
    return T::read(v, std::move(path), errors);
  }
  static void write(json::Writer& w, const T& item) { item.write(w); }
};

// Reads member `name` as an array of T (JsonCodec<T>::read). A missing or null member is an
// empty vector unless `required`, then an error.
template <typename T>
std::vector<T> read_array(json::ObjectReader& r, std::string_view name, bool required) {
  std::vector<T> out;
  const rapidjson::Value* a = required ? r.array(name) : r.optional_array(name);
  if (a == nullptr) return out;
  out.reserve(a->Size());
  for (rapidjson::SizeType i = 0; i < a->Size() && !r.errors().failed(); ++i) {
    out.push_back(JsonCodec<T>::read((*a)[i], fmt::format("{}[{}]", r.path_of(name), i), r.errors()));
  }
  return out;
}

// Writes `"name":[...]` with each element's JsonCodec<T>::write.
template <typename T>
void write_array(json::Writer& w, std::string_view name, const std::vector<T>& items) {
  json::write_key(w, name);
  w.StartArray();
  for (const T& item : items) JsonCodec<T>::write(w, item);
  w.EndArray();
}

void write_string_array(json::Writer& w, std::string_view name,
                        const std::vector<std::string>& items);
void write_string_field(json::Writer& w, std::string_view name, std::string_view value);

// A body that is one list of strings, {"FIELD":["a","b"]} (RocketMQ's GroupList, ConsumerIdList):
// reads the required `field` (errors name `type_name`), and writes it.
Result<std::vector<std::string>> read_string_list_body(Bytes body, std::string_view type_name, std::string_view field);
std::vector<std::uint8_t> write_string_list_body(std::string_view field, const std::vector<std::string>& items);

// Reads the required string member `field` as an enum with `parse` (a name to std::optional<E>);
// an unknown name is recorded in r.errors(), naming the field and the value, and `fallback` is
// returned (as it is after any earlier error).
template <typename E, typename Parse>
E read_enum(json::ObjectReader& r, std::string_view field, Parse parse, E fallback) {
  const std::string s = r.string(field);
  if (r.errors().failed()) return fallback;
  const std::optional<E> v = parse(s);
  if (!v) {
    r.errors().fail(fmt::format("{}: unknown value \"{}\"", r.path_of(field), s));
    return fallback;
  }
  return *v;
}

}  // namespace ferry::remoting::body
