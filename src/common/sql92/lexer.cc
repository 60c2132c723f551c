#include "common/sql92/lexer.h"

#include <fmt/format.h>

#include <array>
#include <utility>

namespace ferry::sql92 {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_id_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$'; }
bool is_id_part(char c) { return is_id_start(c) || is_digit(c); }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

bool equals_ignore_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto up = [](char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - ('a' - 'A')) : c; };
    if (up(a[i]) != up(b[i])) return false;
  }
  return true;
}

constexpr std::array<std::pair<std::string_view, Tok>, 9> kKeywords{{
    {"NOT", Tok::kw_not},
    {"AND", Tok::kw_and},
    {"OR", Tok::kw_or},
    {"BETWEEN", Tok::kw_between},
    {"IN", Tok::kw_in},
    {"TRUE", Tok::kw_true},
    {"FALSE", Tok::kw_false},
    {"NULL", Tok::kw_null},
    {"IS", Tok::kw_is},
}};

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  Result<std::vector<Token>> run(std::size_t tokens_max) {
    std::vector<Token> out;
    while (true) {
      if (Status s = skip_ignored(); !s.ok()) return std::move(s).error();
      if (out.size() >= tokens_max) {
        return error_here(fmt::format("the expression has more than {} tokens", tokens_max));
      }
      if (pos_ >= text_.size()) {
        out.push_back(Token{Tok::end, {}, at_});
        return out;
      }
      auto t = next();
      if (!t.ok()) return std::move(t).error();
      out.push_back(*t);
    }
  }

 private:
  Error error_at(Position p, std::string_view what) const {
    return Error(Errc::invalid_argument, fmt::format("line {}, column {}: {}", p.line, p.column, what));
  }
  Error error_here(std::string_view what) const { return error_at(at_, what); }

  char peek(std::size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }

  void advance(std::size_t n) {
    for (std::size_t i = 0; i < n && pos_ < text_.size(); ++i, ++pos_) {
      if (text_[pos_] == '\n') {
        ++at_.line;
        at_.column = 1;
      } else {
        ++at_.column;
      }
    }
  }

  Status skip_ignored() {
    while (pos_ < text_.size()) {
      const char c = peek();
      if (is_space(c)) {
        advance(1);
      } else if (c == '-' && peek(1) == '-') {
        // A line comment ends at a line end; without one it is not a comment (two minus signs).
        const std::size_t nl = text_.find_first_of("\r\n", pos_);
        if (nl == std::string_view::npos) return {};
        advance(nl - pos_ + 1);
      } else if (c == '/' && peek(1) == '*') {
        const std::size_t close = text_.find("*/", pos_ + 2);
        if (close == std::string_view::npos) return error_here("a block comment (/*) is never closed");
        advance(close + 2 - pos_);
      } else {
        return {};
      }
    }
    return {};
  }

  Token take(Tok kind, std::size_t length) {
    Token t{kind, text_.substr(pos_, length), at_};
    advance(length);
    return t;
  }

  // The length of an exponent (e, optional sign, digits) at `p`, or 0 when there is none.
  std::size_t exponent_at(std::size_t p) const {
    if (p >= text_.size() || (text_[p] != 'e' && text_[p] != 'E')) return 0;
    std::size_t q = p + 1;
    if (q < text_.size() && (text_[q] == '+' || text_[q] == '-')) ++q;
    const std::size_t digits = q;
    while (q < text_.size() && is_digit(text_[q])) ++q;
    return q == digits ? 0 : q - p;
  }

  std::size_t digits_at(std::size_t p) const {
    std::size_t q = p;
    while (q < text_.size() && is_digit(text_[q])) ++q;
    return q - p;
  }

  Result<Token> number() {
    const std::size_t int_digits = digits_at(pos_);
    std::size_t p = pos_ + int_digits;
    if (p < text_.size() && text_[p] == '.' && (int_digits > 0 || digits_at(p + 1) > 0)) {
      p += 1 + digits_at(p + 1);
      p += exponent_at(p);
      return take(Tok::floating, p - pos_);
    }
    if (int_digits == 0) return error_here("'.' starts no number");
    if (const std::size_t e = exponent_at(p); e > 0) return take(Tok::floating, p + e - pos_);
    if (peek() == '0') return take(Tok::decimal, 1);
    if (p < text_.size() && (text_[p] == 'l' || text_[p] == 'L')) ++p;
    return take(Tok::decimal, p - pos_);
  }

  Result<Token> string() {
    std::size_t p = pos_ + 1;
    while (true) {
      const std::size_t quote = text_.find('\'', p);
      if (quote == std::string_view::npos) return error_here("a string (') is never closed");
      if (quote + 1 < text_.size() && text_[quote + 1] == '\'') {
        p = quote + 2;
        continue;
      }
      return take(Tok::string, quote + 1 - pos_);
    }
  }

  Result<Token> next() {
    const char c = peek();
    if (is_id_start(c)) {
      std::size_t n = 1;
      while (is_id_part(peek(n))) ++n;
      const std::string_view word = text_.substr(pos_, n);
      for (const auto& [name, kind] : kKeywords) {
        if (equals_ignore_case(word, name)) return take(kind, n);
      }
      return take(Tok::identifier, n);
    }
    if (is_digit(c) || c == '.') return number();
    if (c == '\'') return string();
    switch (c) {
      case '=': return take(Tok::eq, 1);
      case '<':
        if (peek(1) == '>') return take(Tok::ne, 2);
        if (peek(1) == '=') return take(Tok::le, 2);
        return take(Tok::lt, 1);
      case '>':
        if (peek(1) == '=') return take(Tok::ge, 2);
        return take(Tok::gt, 1);
      case '(': return take(Tok::lparen, 1);
      case ')': return take(Tok::rparen, 1);
      case ',': return take(Tok::comma, 1);
      case '+': return take(Tok::plus, 1);
      case '-': return take(Tok::minus, 1);
      default: break;
    }
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) return error_here(fmt::format("no token starts with '{}'", c));
    return error_here(fmt::format("no token starts with the byte 0x{:02x}", byte));
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  Position at_;
};

}  // namespace

std::string_view token_name(Tok t) {
  switch (t) {
    case Tok::end: return "end of text";
    case Tok::identifier: return "a property name";
    case Tok::decimal: return "a number";
    case Tok::floating: return "a number";
    case Tok::string: return "a string";
    case Tok::kw_not: return "NOT";
    case Tok::kw_and: return "AND";
    case Tok::kw_or: return "OR";
    case Tok::kw_between: return "BETWEEN";
    case Tok::kw_in: return "IN";
    case Tok::kw_true: return "TRUE";
    case Tok::kw_false: return "FALSE";
    case Tok::kw_null: return "NULL";
    case Tok::kw_is: return "IS";
    case Tok::eq: return "'='";
    case Tok::ne: return "'<>'";
    case Tok::gt: return "'>'";
    case Tok::ge: return "'>='";
    case Tok::lt: return "'<'";
    case Tok::le: return "'<='";
    case Tok::lparen: return "'('";
    case Tok::rparen: return "')'";
    case Tok::comma: return "','";
    case Tok::plus: return "'+'";
    case Tok::minus: return "'-'";
  }
  return "?";
}

Result<std::vector<Token>> tokenize(std::string_view text, std::size_t tokens_max) {
  return Lexer(text).run(tokens_max);
}

std::string string_literal_value(std::string_view literal) {
  std::string out;
  if (literal.size() < 2) return out;
  out.reserve(literal.size() - 2);
  for (std::size_t i = 1; i + 1 < literal.size(); ++i) {
    out.push_back(literal[i]);
    if (literal[i] == '\'') ++i;  // the second quote of a doubled pair
  }
  return out;
}

}  // namespace ferry::sql92
