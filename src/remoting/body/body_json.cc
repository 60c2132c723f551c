#include "remoting/body/body_json.h"

namespace ferry::remoting::body {

Result<rapidjson::Document> parse_body(Bytes bytes, std::string_view type_name) {
  return json::parse(as_text(bytes), json::Numbers::typed, fmt::format("{} body", type_name));
}

void write_string_array(json::Writer& w, std::string_view name,
                        const std::vector<std::string>& items) {
  json::write_key(w, name);
  w.StartArray();
  for (const std::string& s : items) json::write_string(w, s);
  w.EndArray();
}

void write_string_field(json::Writer& w, std::string_view name, std::string_view value) {
  json::write_key(w, name);
  json::write_string(w, value);
}

Result<std::vector<std::string>> read_string_list_body(Bytes body, std::string_view type_name, std::string_view field) {
  auto doc = parse_body(body, type_name);
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, std::string(type_name), errors);
  std::vector<std::string> items = r.string_array(field);
  if (errors.failed()) return errors.take();
  return items;
}

std::vector<std::uint8_t> write_string_list_body(std::string_view field, const std::vector<std::string>& items) {
  return write_body([&](json::Writer& w) {
    w.StartObject();
    write_string_array(w, field, items);
    w.EndObject();
  });
}

}  // namespace ferry::remoting::body
