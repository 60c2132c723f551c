// mqadmin's flag parser and table printer.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/flags.h"
#include "cli/table.h"
#include "cli/time_arg.h"

namespace ferry::cli {
namespace {

const std::vector<FlagSpec> kSpecs = {
    {'t', "topic", "TOPIC", "topic name", true},
    {'c', "count", "N", "how many"},
    {0, "timeout", "MS", "wait"},
    {'h', "help", "", "help"},
};

Result<ParsedFlags> parse(std::vector<std::string> args) { return parse_flags(kSpecs, args); }

TEST(MqadminFlags, ShortLongAndInlineForms) {
  Result<ParsedFlags> f = parse({"-t", "T1", "--count", "3", "--timeout=250"});
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  EXPECT_EQ(f->get("topic"), std::optional<std::string>("T1"));
  EXPECT_EQ(*f->int_in("count", 1, 10, 1), 3);
  EXPECT_EQ(*f->int_in("timeout", 0, 1000, 5), 250);
  Result<ParsedFlags> g = parse({"-tT2", "--topic", "T3"});  // the last one wins
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->get("topic"), std::optional<std::string>("T3"));
  EXPECT_EQ(*g->int_in("count", 1, 10, 7), 7);  // absent: the fallback
  EXPECT_FALSE(g->has("help"));
  EXPECT_EQ(g->get_or("timeout", "x"), "x");
}

TEST(MqadminFlags, ErrorsNameTheFlag) {
  auto detail = [](Result<ParsedFlags> r) { return r.ok() ? std::string("(ok)") : r.error().detail; };
  EXPECT_EQ(detail(parse({})), "missing required flag -t (--topic) TOPIC");
  EXPECT_EQ(detail(parse({"-t", "T", "-x", "1"})), "unknown flag -x");
  EXPECT_EQ(detail(parse({"-t", "T", "--nope=1"})), "unknown flag --nope");
  EXPECT_EQ(detail(parse({"-t"})), "-t (--topic) needs a value (TOPIC)");
  EXPECT_EQ(detail(parse({"-t", "T", "stray"})), "unexpected argument 'stray'");
  EXPECT_EQ(detail(parse({"-t", "T", "--help=1"})), "-h (--help) takes no value");
  Result<ParsedFlags> f = parse({"-t", "T", "-c", "abc"});
  ASSERT_TRUE(f.ok());
  Result<std::int64_t> n = f->int_in("count", 1, 10, 1);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.error().detail, "--count: 'abc' is not a number");
  Result<ParsedFlags> big = parse({"-t", "T", "-c", "11"});
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->int_in("count", 1, 10, 1).error().detail, "--count: 11 is not within 1..10");
}

TEST(MqadminFlags, Booleans) {
  Result<ParsedFlags> f = parse({"-t", "T", "-c", "TRUE", "--timeout", "yes"});
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(*f->bool_of("count"), std::optional<bool>(true));
  EXPECT_EQ(f->bool_of("topic").error().detail, "--topic: 'T' is not true or false");
  EXPECT_EQ(f->bool_of("timeout").error().detail, "--timeout: 'yes' is not true or false");
  EXPECT_EQ(*f->bool_of("help"), std::optional<bool>());  // absent
  Result<ParsedFlags> g = parse({"-t", "T", "-c", "false"});
  EXPECT_EQ(*g->bool_of("count"), std::optional<bool>(false));
}

TEST(MqadminFlags, HelpSkipsRequiredFlagsAndRendersAligned) {
  Result<ParsedFlags> f = parse({"--help"});
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  EXPECT_TRUE(f->has("help"));
  EXPECT_EQ(flags_help(kSpecs),
            "  -t, --topic TOPIC  topic name (required)\n"
            "  -c, --count N      how many\n"
            "      --timeout MS   wait\n"
            "  -h, --help         help\n");
}

TEST(MqadminTimeArg, EpochMillisNowIsoAndRocketMqForms) {
  const std::int64_t now = 1'767'225'600'123;  // 2026-01-01T00:00:00.123Z
  auto ms = [&](const std::string& text) {
    Result<std::int64_t> r = parse_time_arg(text, now);
    return r.ok() ? *r : -1;
  };
  EXPECT_EQ(ms("now"), now);
  EXPECT_EQ(ms("0"), 0);
  EXPECT_EQ(ms("1767225600000"), 1'767'225'600'000);
  EXPECT_EQ(ms("2026-01-01T00:00:00Z"), 1'767'225'600'000);
  EXPECT_EQ(ms("2026-01-01 00:00:00.250Z"), 1'767'225'600'250);
  EXPECT_EQ(ms("2026-01-01T08:30:00+08:30"), 1'767'225'600'000);
  EXPECT_EQ(ms("2025-12-31T19:00:00-0500"), 1'767'225'600'000);
  EXPECT_EQ(ms("2024-02-29T12:00:00Z"), 1'709'208'000'000);  // a leap day
  EXPECT_EQ(ms("1970-01-01T00:00:00Z"), 0);
  // Without a zone: local time, so the two forms agree with each other.
  EXPECT_EQ(ms("2026-01-01T08:30:00.007"), ms("2026-01-01#08:30:00:007"));
  EXPECT_GT(ms("2026-01-01T08:30:00"), 0);
  for (const char* bad : {"", "yesterday", "2026-13-01T00:00:00Z", "2026-01-01", "2026-01-01T00:00Z",
                          "2026-01-01T00:00:00+25:00", "2026-01-01T00:00:00Zjunk", "12ms"}) {
    Result<std::int64_t> r = parse_time_arg(bad, now);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.error().detail.find("is not a point in time"), std::string::npos) << r.error().detail;
    }
  }
  EXPECT_EQ(format_utc_ms(1'767'225'600'250), "2026-01-01T00:00:00.250Z");
  EXPECT_EQ(format_utc_ms(0), "1970-01-01T00:00:00.000Z");
}

TEST(MqadminTable, AlignsColumnsAndRightAlignsNumbers) {
  Table t({"#Broker", "Queue", "Body"});
  t.add_row({"broker-a", "0", "hello"});
  t.add_row({"b", "12", ""});
  EXPECT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.render(),
            "#Broker   Queue  Body\n"
            "broker-a      0  hello\n"
            "b            12\n");
  Table empty({"A", "B"});
  EXPECT_EQ(empty.render(), "A  B\n");
}

}  // namespace
}  // namespace ferry::cli
