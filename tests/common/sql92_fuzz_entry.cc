// fuzz_sql92_one_input (sql92_fuzz_entry.h): parse, check, evaluate, check.
#include "tests/common/sql92_fuzz_entry.h"

#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/sql92/parser.h"
#include "runtime/assert.h"
#include "tests/common/sql92_oracle.h"

namespace ferry::sql92::testing {
namespace {

// Properties over the names the generator and the seed corpus use ("a", "b", "c", "TAGS",
// "$k_1"), with values of every kind the evaluator converts.
constexpr std::string_view kProperties[] = {
    "",
    "a\x01" "3",
    "a\x01" "3\x02" "b\x01" "x\x02" "c\x01" "true",
    "a\x01" " 3 \x02" "b\x01" "NaN\x02" "TAGS\x01" "TagA",
    "a\x01" "2147483648\x02" "a\x01" "-0\x02" "b\x01" "1e999",
    "b\x01" "it's\x02" "c\x01" "TRUE\x02" "$k_1\x01" "\x02" "junk",
    "a\x01" "0x1.8p1\x02" "b\x01" "2147483647\x02" "c\x01" "yes\x02" "TAGS\x01",
    "A\x01" "3\x02" "a\x01" "x\x01" "y\x02\x02" "b\x01" "3f\x02" "c\x01" "-7",
};
constexpr std::size_t kPropertiesCount = std::size(kProperties);

Expression reparse_composed(const std::string& text, std::string_view original) {
  auto e = parse(text, composed_limits());
  FERRY_ASSERT(e.ok(), "\"{}\" (from \"{}\") does not parse: {}", printable(text), printable(original),
               e.error().detail);
  return std::move(*e);
}

void check_on(const Expression& e, const Expression& again, const Expression& negated, const Expression& null_test,
              std::string_view properties, std::string_view text) {
  const bool selected = e.matches(properties);
  const Outcome by_hand = e.evaluate(slots_by_hand(e, properties));
  FERRY_ASSERT(selected == selects(by_hand), "\"{}\" on \"{}\": matches() says {}, evaluation by hand {}",
               printable(text), printable(properties), selected, selects(by_hand));
  FERRY_ASSERT(again.matches(properties) == selected, "\"{}\" on \"{}\": its canonical text \"{}\" selects {}",
               printable(text), printable(properties), printable(e.canonical()), !selected);
  if (e.constant()) {
    FERRY_ASSERT(selected == e.constant_match(), "constant \"{}\" on \"{}\" selects {}, its constant answer is {}",
                 printable(text), printable(properties), selected, e.constant_match());
  }
  const int chosen = static_cast<int>(selected) + static_cast<int>(negated.matches(properties)) +
                     static_cast<int>(null_test.matches(properties));
  FERRY_ASSERT(chosen == (by_hand.failed ? 0 : 1),
               "\"{}\" on \"{}\": {} of E, NOT (E) and (E) IS NULL select (evaluation {})", printable(text),
               printable(properties), chosen, by_hand.failed ? "fails" : "does not fail");
}

}  // namespace

int fuzz_sql92_one_input(const std::uint8_t* data, std::size_t size) {
  const std::uint8_t selector = size > 0 ? data[0] : 0;
  std::string_view text = size > 0 ? std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1) : "";
  std::string_view extra;
  bool has_extra = false;
  if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
    extra = text.substr(nul + 1);
    text = text.substr(0, nul);
    has_extra = true;
  }

  auto e = parse(text);
  if (!e.ok()) {
    FERRY_ASSERT(e.error().code == Errc::invalid_argument, "\"{}\" refused with code {}", printable(text),
                 static_cast<int>(e.error().code));
    const std::string problem = error_problem(e.error().detail, text);
    FERRY_ASSERT(problem.empty(), "\"{}\" refused badly: {}", printable(text), problem);
    return 0;
  }

  const std::string round_trip = round_trip_problem(*e);
  FERRY_ASSERT(round_trip.empty(), "\"{}\": {}", printable(text), round_trip);
  const std::string canonical = e->canonical();
  const Expression again = reparse_composed(canonical, text);
  const Expression negated = reparse_composed("NOT (" + canonical + ")", text);
  const Expression null_test = reparse_composed("(" + canonical + ") IS NULL", text);

  const std::string_view first = kProperties[selector % kPropertiesCount];
  const std::string_view second = kProperties[(selector / kPropertiesCount + 1) % kPropertiesCount];
  check_on(*e, again, negated, null_test, first, text);
  check_on(*e, again, negated, null_test, second, text);
  if (has_extra) check_on(*e, again, negated, null_test, extra, text);
  return 1;
}

}  // namespace ferry::sql92::testing
