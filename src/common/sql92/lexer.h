// The SQL92 filter's tokens, as RocketMQ's SelectorParser.jj defines them (4.9):
//   keywords, any case: NOT AND OR BETWEEN IN TRUE FALSE NULL IS
//   identifiers:        [A-Za-z_$][A-Za-z0-9_$]*   (a keyword is never an identifier)
//   decimals:           0 | [1-9][0-9]*[lL]?        ("007" is three decimals: 0, 0, 7)
//   floats:             1.5  1.  .5  1e5  1.5E-3    (no suffix)
//   strings:            'it''s'                     (a quote doubled inside)
//   operators:          = <> > >= < <= ( ) , + -
//   skipped:            space, \t, \n, \r, \f; "-- comment" up to a line end (one must follow);
//                       /* block comments */
// The longest match wins, as in JavaCC ("1.5" is a float, not 1 then .5).
//
// Positions are 1-based line and column, counted in bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/result.h"

namespace ferry::sql92 {

enum class Tok : std::uint8_t {
  end,
  identifier,
  decimal,
  floating,
  string,
  kw_not,
  kw_and,
  kw_or,
  kw_between,
  kw_in,
  kw_true,
  kw_false,
  kw_null,
  kw_is,
  eq,
  ne,
  gt,
  ge,
  lt,
  le,
  lparen,
  rparen,
  comma,
  plus,
  minus,
};

// How a token is named in an error message: "end of text", "'<>'", "identifier", ...
std::string_view token_name(Tok t);

struct Position {
  std::uint32_t line = 1;
  std::uint32_t column = 1;
};

struct Token {
  Tok kind = Tok::end;
  std::string_view text;  // as written (a string literal with its quotes)
  Position at;
};

// Splits `text` into tokens, ending with one Tok::end.
// Errors (invalid_argument): "line L, column C: ..." for a character no token starts with, an
// unterminated string or block comment, or more than `tokens_max` tokens.
Result<std::vector<Token>> tokenize(std::string_view text, std::size_t tokens_max);

// The value of a string literal token: quotes removed, doubled quotes undone.
std::string string_literal_value(std::string_view literal);

}  // namespace ferry::sql92
