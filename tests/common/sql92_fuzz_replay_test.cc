// Runs the SQL92 fuzz entry (sql92_fuzz_entry.h) in every build: over the seed corpus of the
// libFuzzer target (tests/common/sql92_corpus, each of which must parse) and a few thousand
// generated inputs (sql92_generator.h), valid expressions, mutated ones, token soup, random bytes
// and texts at the parser's bounds, some with properties of their own. Nothing may abort, every
// generated valid expression must parse, and so must a fair share of the rest (so the checks
// after parsing are reached).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/common/sql92_fuzz_entry.h"
#include "tests/common/sql92_generator.h"

namespace ferry::sql92::testing {
namespace {

int run(const std::string& input) {
  return fuzz_sql92_one_input(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

TEST(Sql92FuzzReplay, SeedCorpusParses) {
  const std::filesystem::path dir = FERRY_SQL92_CORPUS_DIR;
  int seeds = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string input((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(run(input), 1) << entry.path() << " does not parse";
    ++seeds;
  }
  EXPECT_GE(seeds, 10) << "the seed corpus " << dir << " is missing";
}

TEST(Sql92FuzzReplay, ThousandsOfInputsNeverCrash) {
  Sql92Generator g(20240917);
  int valid = 0;
  int valid_parsed = 0;
  int other = 0;
  int other_parsed = 0;
  for (int i = 0; i < 2000; ++i) {
    std::string input(1, static_cast<char>(g.below(256)));
    const bool grammar = i % 3 == 0;
    input += grammar ? g.expression(i % 6) : g.any_input();
    if (i % 5 == 0) {
      input.push_back('\0');
      input += g.properties();
    }
    const int parsed = run(input);
    if (grammar) {
      ++valid;
      valid_parsed += parsed;
      EXPECT_EQ(parsed, 1) << "a generated expression does not parse: " << input.substr(1);
    } else {
      ++other;
      other_parsed += parsed;
    }
  }
  EXPECT_EQ(valid_parsed, valid);
  EXPECT_GT(other_parsed * 100, other * 45) << "only " << other_parsed << " of " << other << " other inputs parse";
}

}  // namespace
}  // namespace ferry::sql92::testing
