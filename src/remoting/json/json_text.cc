#include "remoting/json/json_text.h"

#include <fmt/format.h>
#include <rapidjson/error/en.h>

#include <array>
#include <optional>

namespace ferry::remoting::json {
namespace {

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// If an unquoted integer key starts at `i`, returns the index one past its digits.
std::optional<std::size_t> bare_integer_key_end(std::string_view t, std::size_t i) {
  std::size_t j = i;
  if (j < t.size() && t[j] == '-') ++j;
  const std::size_t digits = j;
  while (j < t.size() && is_digit(t[j])) ++j;
  if (j == digits) return std::nullopt;
  std::size_t k = j;
  while (k < t.size() && is_ws(t[k])) ++k;
  if (k < t.size() && t[k] == ':') return j;
  return std::nullopt;
}

// If an object used as a key starts at `i` (t[i] == '{'), returns the index one past its closing
// brace. nullopt when the braces do not balance, nest deeper than kDepthMax, hold a NUL byte, or
// no ':' follows: the main scan (or the parser) reports those.
std::optional<std::size_t> object_key_end(std::string_view t, std::size_t i) {
  std::size_t depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (std::size_t j = i; j < t.size(); ++j) {
    const char c = t[j];
    if (c == '\0') return std::nullopt;
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
      if (++depth > kDepthMax) return std::nullopt;
    } else if (c == '}' || c == ']') {
      if (depth == 0) return std::nullopt;
      if (--depth == 0) {
        std::size_t k = j + 1;
        while (k < t.size() && is_ws(t[k])) ++k;
        if (k < t.size() && t[k] == ':') return j + 1;
        return std::nullopt;
      }
    }
  }
  return std::nullopt;
}

// Appends `s` as a JSON string literal.
void append_quoted(std::string& out, std::string_view s) {
  out.push_back('"');
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out.append(fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c))));
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
}

// One pass over the text, tracking strings and nesting. With `out`, copies the text there with
// bare keys quoted; returns whether it saw any bare key.
Result<bool> scan(std::string_view t, std::string* out) {
  std::array<bool, kDepthMax> in_object{};  // per open container: object (true) or array
  std::size_t depth = 0;
  bool in_string = false;
  bool escaped = false;
  bool expect_key = false;
  bool saw_bare_key = false;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '\0') return Error(Errc::corrupt, fmt::format("NUL byte at offset {}", i));
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      if (out) out->push_back(c);
      continue;
    }
    if (is_ws(c)) {
      if (out) out->push_back(c);
      continue;
    }
    if (expect_key) {
      expect_key = false;
      if (auto end = bare_integer_key_end(t, i)) {
        saw_bare_key = true;
        if (out) {
          out->push_back('"');
          out->append(t.substr(i, *end - i));
          out->push_back('"');
        }
        i = *end - 1;
        continue;
      }
      if (c == '{') {
        if (auto end = object_key_end(t, i)) {
          saw_bare_key = true;
          if (out) append_quoted(*out, t.substr(i, *end - i));
          i = *end - 1;
          continue;
        }
      }
    }
    switch (c) {
      case '"': in_string = true; break;
      case '{':
      case '[':
        if (depth == kDepthMax) {
          return Error(Errc::corrupt,
                       fmt::format("nesting deeper than {} at offset {}", kDepthMax, i));
        }
        in_object[depth++] = (c == '{');
        expect_key = (c == '{');
        break;
      case '}':
      case ']':
        if (depth > 0) --depth;  // a mismatch is the parser's to report
        break;
      case ',': expect_key = depth > 0 && in_object[depth - 1]; break;
      default: break;
    }
    if (out) out->push_back(c);
  }
  return saw_bare_key;
}

}  // namespace

Result<std::optional<std::string>> quote_bare_integer_keys(std::string_view text) {
  auto found = scan(text, nullptr);
  if (!found) return std::move(found).error();
  if (!*found) return std::optional<std::string>();
  std::string out;
  out.reserve(text.size() + 16);
  auto again = scan(text, &out);
  if (!again) return std::move(again).error();
  return std::optional<std::string>(std::move(out));
}

Result<rapidjson::Document> parse(std::string_view text, Numbers numbers, std::string_view what) {
  auto quoted = quote_bare_integer_keys(text);
  if (!quoted) return Error(Errc::corrupt, fmt::format("{}: {}", what, quoted.error().detail));
  const std::string_view src = quoted->has_value() ? std::string_view(**quoted) : text;

  rapidjson::Document doc;
  if (numbers == Numbers::as_text) {
    doc.Parse<rapidjson::kParseNumbersAsStringsFlag>(src.data(), src.size());
  } else {
    doc.Parse(src.data(), src.size());
  }
  if (doc.HasParseError()) {
    return Error(Errc::corrupt,
                 fmt::format("{}: malformed JSON: {} at offset {}", what,
                             rapidjson::GetParseError_En(doc.GetParseError()), doc.GetErrorOffset()));
  }
  return doc;
}

}  // namespace ferry::remoting::json
