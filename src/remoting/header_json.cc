#include "remoting/header_json.h"

#include <fmt/format.h>

#include <optional>

#include "remoting/decimal_text.h"
#include "remoting/header_binary.h"
#include "remoting/json/json_text.h"
#include "remoting/json/json_writer.h"

namespace ferry::remoting {
namespace {

Error corrupt(std::string what) { return Error(Errc::corrupt, "JSON header: " + std::move(what)); }

std::string_view text_of(const rapidjson::Value& v) {
  return std::string_view(v.GetString(), v.GetStringLength());
}

// With Numbers::as_text, numbers arrive as strings; quoted numbers are accepted too.
Result<std::int32_t> read_int32(const rapidjson::Value& v, std::string_view name) {
  std::optional<std::int32_t> n;
  if (v.IsString()) n = parse_int32(text_of(v));
  if (!n) return corrupt(fmt::format("{} is not an int32", name));
  return *n;
}

Result<LanguageCode> read_language(const rapidjson::Value& v) {
  if (v.IsString()) {
    if (auto by_name = language_from_name(text_of(v))) return *by_name;
    if (auto number = parse_int32(text_of(v))) {
      if (auto by_code = language_from_code(*number)) return *by_code;
    }
    return corrupt(fmt::format("unknown language \"{}\"", text_of(v)));
  }
  return corrupt("language is not a string");
}

Result<ExtFields> read_ext_fields(const rapidjson::Value& v) {
  if (v.IsNull()) return ExtFields();
  if (!v.IsObject()) return corrupt("extFields is not an object");
  OrderedStringMapBuilder fields;
  for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
    if (fields.size() >= kExtFieldsMax) return corrupt(fmt::format("more than {} extFields", kExtFieldsMax));
    const std::string_view key = text_of(it->name);
    const rapidjson::Value& value = it->value;
    if (value.IsString()) {
      fields.set(key, text_of(value));  // strings and raw numbers
    } else if (value.IsBool()) {
      fields.set(key, value.GetBool() ? "true" : "false");
    } else if (!value.IsNull()) {
      return corrupt(fmt::format("extFields value of \"{}\" is an object or array", key));
    }
  }
  return std::move(fields).take();
}

}  // namespace

void write_json_header(const RemotingCommand& cmd, std::vector<std::uint8_t>& out) {
  json::ByteStream stream(out);
  json::Writer w(stream);
  w.StartObject();
  w.Key("code");
  w.Int(cmd.code);
  w.Key("language");
  json::write_string(w, language_name(cmd.language));
  w.Key("version");
  w.Int(cmd.version);
  w.Key("opaque");
  w.Int(cmd.opaque);
  w.Key("flag");
  w.Int(cmd.flag);
  w.Key("remark");
  if (cmd.remark) {
    json::write_string(w, *cmd.remark);
  } else {
    w.Null();
  }
  w.Key("extFields");
  w.StartObject();
  // Raw fields (a typed header encoded straight to the binary form, or kept from a binary frame,
  // which read_binary_header checked) are read into a map first: the rare path.
  std::optional<ExtFields> from_raw;
  if (!cmd.raw_ext_fields.empty()) {
    assert_one_ext_fields_form(cmd);
    from_raw = read_binary_ext_fields(Bytes(cmd.raw_ext_fields.data(), cmd.raw_ext_fields.size())).value();
  }
  for (const auto& [k, v] : from_raw ? *from_raw : cmd.ext_fields) {
    json::write_key(w, k);
    json::write_string(w, v);
  }
  w.EndObject();
  w.EndObject();
}

Result<RemotingCommand> read_json_header(std::string_view text) {
  auto doc = json::parse(text, json::Numbers::as_text, "JSON header");
  if (!doc) return std::move(doc).error();
  const rapidjson::Value& root = *doc;  // const iterators (rapidjson's are C++20-ambiguous)
  if (!root.IsObject()) return corrupt("the root is not an object");

  RemotingCommand cmd;
  cmd.serialize_type = SerializeType::json;
  cmd.version = 0;  // a peer that leaves it out sent none
  bool saw_code = false;
  for (auto it = root.MemberBegin(); it != root.MemberEnd(); ++it) {
    const std::string_view name = text_of(it->name);
    const rapidjson::Value& v = it->value;
    if (name == "code") {
      auto n = read_int32(v, name);
      if (!n) return std::move(n).error();
      cmd.code = *n;
      saw_code = true;
    } else if (name == "language") {
      auto lang = read_language(v);
      if (!lang) return std::move(lang).error();
      cmd.language = *lang;
    } else if (name == "version" || name == "opaque" || name == "flag") {
      auto n = read_int32(v, name);
      if (!n) return std::move(n).error();
      (name == "version" ? cmd.version : name == "opaque" ? cmd.opaque : cmd.flag) = *n;
    } else if (name == "remark") {
      if (v.IsString()) {
        cmd.remark = std::string(text_of(v));
      } else if (v.IsNull()) {
        cmd.remark.reset();
      } else {
        return corrupt("remark is not a string");
      }
    } else if (name == "extFields") {
      auto fields = read_ext_fields(v);
      if (!fields) return std::move(fields).error();
      cmd.ext_fields = std::move(*fields);
    }
    // Unknown keys (serializeTypeCurrentRPC, ...) are ignored.
  }
  if (!saw_code) return corrupt("missing code");
  return cmd;
}

}  // namespace ferry::remoting
