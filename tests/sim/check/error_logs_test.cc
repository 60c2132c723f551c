// The error-logs checker on hand-built histories: a run with no error line passes; an error line
// the scenario did not expect fails, naming node, time and text; an expected one (a substring of
// expected_errors) passes and is counted; the kept bound counts the rest; the lines and the
// expected substrings survive a history file in both encodings.
#include "sim/check/error_logs.h"

#include <gtest/gtest.h>

#include "sim/check/checkers.h"
#include "sim/history/history_codec.h"
#include "tests/sim/check/history_builder.h"

namespace ferry::sim::check {
namespace {

using testing::at_ms;

LogLine error_line(std::int64_t ms, std::string node, std::string text, std::string level = "error") {
  return LogLine{at_ms(ms), std::move(node), std::move(level), std::move(text)};
}

TEST(ErrorLogs, PassesWithNoErrorLine) {
  History h;
  const Verdict v = check_error_logs(h);
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("error_lines"), 0);
  EXPECT_EQ(v.figures.at("unexpected"), 0);
  EXPECT_FALSE(v.first_violation_at.has_value());
}

TEST(ErrorLogs, APlantedUnexpectedLineFailsNamingNodeTimeAndText) {
  History h;
  h.settings.expected_errors = {"CommitLog sync failed"};
  h.record_error_log(error_line(1'500, "broker-a", "store: CommitLog sync failed, writes refused until restart"));
  h.record_error_log(error_line(2'250, "broker-b", "HA: slave offset 7 is ahead of the master's 5", "critical"));
  h.record_error_log(error_line(3'000, "broker-c", "HA: another surprise"));
  const Verdict v = check_error_logs(h);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("error_lines"), 3);
  EXPECT_EQ(v.figures.at("expected"), 1);
  EXPECT_EQ(v.figures.at("unexpected"), 2);
  EXPECT_EQ(v.violations, 2);
  EXPECT_NE(v.first_violation.find("broker-b logged at 2250 ms (critical)"), std::string::npos) << v.first_violation;
  EXPECT_NE(v.first_violation.find("slave offset 7 is ahead of the master's 5"), std::string::npos) << v.first_violation;
  ASSERT_TRUE(v.first_violation_at.has_value());
  EXPECT_EQ(*v.first_violation_at, at_ms(2'250));
}

TEST(ErrorLogs, EveryLineExpectedPasses) {
  History h;
  h.settings.expected_errors = {"sync failed", "promotion"};
  h.record_error_log(error_line(10, "broker-a", "store: CommitLog sync failed"));
  h.record_error_log(error_line(20, "broker-a-s1", "HA: promotion refused"));
  const Verdict v = check_error_logs(h);
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("expected"), 2);
}

TEST(ErrorLogs, AnEmptySubstringExpectsNothing) {
  History h;
  h.settings.expected_errors = {""};
  h.record_error_log(error_line(10, "broker-a", "anything"));
  EXPECT_FALSE(check_error_logs(h).passed);
}

TEST(ErrorLogs, KeepsTheFirstThousandLinesAndCountsTheRest) {
  History h;
  h.settings.expected_errors = {"expected"};
  for (std::size_t i = 0; i < kErrorLogsKeptMax + 5; ++i) {
    h.record_error_log(error_line(static_cast<std::int64_t>(i), "broker-a", i == 0 ? "surprise" : "expected noise"));
  }
  EXPECT_EQ(h.error_logs.size(), kErrorLogsKeptMax);
  EXPECT_EQ(h.error_logs_not_kept, 5);
  const Verdict v = check_error_logs(h);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("error_lines"), static_cast<std::int64_t>(kErrorLogsKeptMax) + 5);
  EXPECT_EQ(v.figures.at("not_kept"), 5);
  EXPECT_EQ(v.figures.at("unexpected"), 1);
}

TEST(ErrorLogs, RunAllChecksJudgesThemAndAHistoryFileKeepsThem) {
  History h;
  h.settings.expected_errors = {"known"};
  h.record_error_log(error_line(1'000, "broker-a", "a known failure"));
  h.record_error_log(error_line(4'000, "namesrv-0", "a surprise"));
  for (HistoryEncoding e : {HistoryEncoding::json, HistoryEncoding::binary}) {
    Result<History> back = decode_history(encode_history(h, e), e);
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    EXPECT_EQ(back->settings.expected_errors, h.settings.expected_errors);
    ASSERT_EQ(back->error_logs.size(), 2u);
    EXPECT_EQ(back->error_logs[1].node, "namesrv-0");
    EXPECT_EQ(back->error_logs[1].level, "error");
    EXPECT_EQ(back->error_logs[1].text, "a surprise");
    EXPECT_EQ(back->error_logs[1].at, at_ms(4'000));
    const std::vector<Verdict> verdicts = run_all_checks(*back);
    ASSERT_FALSE(verdicts.empty());
    EXPECT_EQ(verdicts.back().name, "error-logs");
    EXPECT_FALSE(verdicts.back().passed);
    EXPECT_NE(verdicts.back().first_violation.find("namesrv-0 logged at 4000 ms"), std::string::npos) << verdicts.back().first_violation;
  }
}

TEST(ErrorLogs, AHistoryFileWithMoreLinesThanARunKeepsIsRefused) {
  History h;
  h.error_logs.resize(kErrorLogsKeptMax + 1, error_line(1, "broker-a", "x"));
  for (HistoryEncoding e : {HistoryEncoding::json, HistoryEncoding::binary}) {
    Result<History> back = decode_history(encode_history(h, e), e);
    ASSERT_FALSE(back.ok());
    EXPECT_EQ(back.error().code, Errc::corrupt);
    EXPECT_NE(back.error().detail.find("error_logs holds 1001 lines"), std::string::npos) << back.error().to_string();
  }
}

}  // namespace
}  // namespace ferry::sim::check
