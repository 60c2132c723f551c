#include "remoting/json/object_keys.h"

#include <fmt/format.h>

#include <array>

#include "remoting/json/json_text.h"

namespace ferry::remoting::json {
namespace {

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The index one past the object that opens at t[i] == '{' (strings and nesting respected), or
// an error when it does not close.
Result<std::size_t> object_end(std::string_view t, std::size_t i) {
  std::size_t depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (std::size_t j = i; j < t.size(); ++j) {
    const char c = t[j];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kDepthMax) return Error(Errc::corrupt, fmt::format("nesting deeper than {} at offset {}", kDepthMax, j));
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return j + 1;
    }
  }
  return Error(Errc::corrupt, fmt::format("the object key at offset {} never closes", i));
}

void append_quoted(std::string& out, std::string_view raw) {
  out.push_back('"');
  for (char c : raw) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out.append(fmt::format("\\u{:04x}", static_cast<unsigned char>(c)));
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
}

}  // namespace

Result<std::string> quote_object_keys(std::string_view t) {
  std::string out;
  out.reserve(t.size() + t.size() / 4);
  std::array<bool, kDepthMax> in_object{};  // per open container: object (true) or array
  std::size_t depth = 0;
  bool in_string = false;
  bool escaped = false;
  bool expect_key = false;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      out.push_back(c);
      continue;
    }
    if (is_ws(c)) {
      out.push_back(c);
      continue;
    }
    if (expect_key) {
      expect_key = false;
      if (c == '{') {
        Result<std::size_t> end = object_end(t, i);
        if (!end.ok()) return std::move(end).error();
        append_quoted(out, t.substr(i, *end - i));
        i = *end - 1;
        continue;
      }
    }
    switch (c) {
      case '"': in_string = true; break;
      case '{':
      case '[':
        if (depth == kDepthMax) return Error(Errc::corrupt, fmt::format("nesting deeper than {} at offset {}", kDepthMax, i));
        in_object[depth++] = (c == '{');
        expect_key = (c == '{');
        break;
      case '}':
      case ']':
        if (depth > 0) --depth;
        break;
      case ',': expect_key = depth > 0 && in_object[depth - 1]; break;
      default: break;
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace ferry::remoting::json
