// The store-prefix checker on hand-built restart records: a clean restart passes and is counted,
// a planted mismatch and a planted loss of synced data fail naming the broker, the time and the
// offsets; a wiped restart is not judged.
#include "sim/check/store_prefix.h"

#include <gtest/gtest.h>

#include "sim/check/checkers.h"
#include "tests/sim/check/history_builder.h"

namespace ferry::sim::check {
namespace {

using testing::at_ms;

StoreRestartRecord restart(std::int64_t ms, std::int64_t before_max, std::int64_t before_synced, std::int64_t recovered_end,
                           std::int64_t bytes_compared) {
  StoreRestartRecord r;
  r.at = at_ms(ms);
  r.broker = "broker-a";
  r.before_max = PhysicalOffset(before_max);
  r.before_synced = PhysicalOffset(before_synced);
  r.recovered_end = PhysicalOffset(recovered_end);
  r.bytes_compared = bytes_compared;
  r.records_compared = bytes_compared / 200;
  return r;
}

TEST(StorePrefix, ARestartThatKeptItsSyncedPrefixPasses) {
  History h;
  h.store_restarts.push_back(restart(20'000, 40'000, 36'000, 38'000, 38'000));  // lost only unsynced bytes
  h.store_restarts.push_back(restart(50'000, 90'000, 90'000, 90'000, 52'000));  // kept everything
  const Verdict v = check_store_prefix(h);
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("restarts"), 2);
  EXPECT_EQ(v.figures.at("bytes_compared"), 90'000);
  EXPECT_EQ(v.figures.at("records_compared"), 450);
  EXPECT_EQ(v.figures.at("mismatches"), 0);
  EXPECT_EQ(v.figures.at("synced_lost"), 0);
}

TEST(StorePrefix, APlantedMismatchBelowTheRecoveredEndFails) {
  History h;
  StoreRestartRecord r = restart(20'000, 40'000, 36'000, 40'000, 12'000);
  r.broker = "broker-b-s1";
  r.first_mismatch = PhysicalOffset(12'000);
  r.detail = "a record of 200 bytes was seen there, the recovered log holds one of 180 bytes";
  h.store_restarts.push_back(r);
  const Verdict v = check_store_prefix(h);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("mismatches"), 1);
  EXPECT_EQ(v.violations, 1);
  EXPECT_NE(v.first_violation.find("broker-b-s1 restarted (seen at 20000 ms) with a CommitLog that is not a prefix of what it "
                                   "held: at offset 12000 (below the recovered end 40000) a record of 200 bytes"),
            std::string::npos)
      << v.first_violation;
  ASSERT_TRUE(v.first_violation_at.has_value());
  EXPECT_EQ(*v.first_violation_at, at_ms(20'000));
}

TEST(StorePrefix, APlantedLossOfSyncedDataFails) {
  History h;
  h.store_restarts.push_back(restart(20'000, 40'000, 36'000, 38'000, 38'000));
  h.store_restarts.push_back(restart(30'000, 60'000, 58'000, 41'000, 41'000));
  const Verdict v = check_store_prefix(h);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("synced_lost"), 1);
  EXPECT_EQ(v.figures.at("restarts"), 2);
  EXPECT_NE(v.first_violation.find("broker-a restarted (seen at 30000 ms) and lost synced data: recovery ended its CommitLog at "
                                   "41000, below the 58000 flushed before the crash (17000 synced bytes lost"),
            std::string::npos)
      << v.first_violation;
}

TEST(StorePrefix, AWipedRestartIsANewLifeNotJudged) {
  History h;
  StoreRestartRecord r = restart(20'000, 40'000, 40'000, 0, 0);
  r.wiped = true;
  r.detail = "the disk was wiped";
  h.store_restarts.push_back(r);
  const Verdict v = check_store_prefix(h);
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("restarts"), 0);
  EXPECT_EQ(v.figures.at("wiped"), 1);
}

TEST(StorePrefix, EveryRunJudgesIt) {
  History h;
  h.store_restarts.push_back(restart(30'000, 60'000, 58'000, 41'000, 41'000));
  bool found = false;
  for (const Verdict& v : run_all_checks(h)) {
    if (v.name != "store-prefix") continue;
    found = true;
    EXPECT_FALSE(v.passed);
  }
  EXPECT_TRUE(found) << "run_all_checks has no store-prefix verdict";
}

}  // namespace
}  // namespace ferry::sim::check
