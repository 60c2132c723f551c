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

}  // namespace ferry::remoting::body
