#include "sim/check/duplicates.h"

#include <gtest/gtest.h>

#include "tests/sim/check/history_builder.h"

namespace ferry::sim::check {
namespace {

using testing::HistoryBuilder;
using testing::queue;

HistoryBuilder redelivered() {
  HistoryBuilder b;
  b.send("producer-0", 0, queue(0), 0).send("producer-0", 1, queue(0), 1);
  b.consume("c-0", "g", "producer-0", 0, queue(0), 0, 100).consume("c-0", "g", "producer-0", 1, queue(0), 1, 100);
  b.consume("c-1", "g", "producer-0", 1, queue(0), 1, 300);  // redelivered after a rebalance
  b.consume("c-9", "other", "producer-0", 1, queue(0), 1, 300);  // another group: not a duplicate
  return b;
}

TEST(Duplicates, CountsRedeliveriesPerGroupAndPassesWithoutABound) {
  const Verdict v = check_duplicates(redelivered().h);
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("duplicates"), 1);
  EXPECT_EQ(v.figures.at("messages_duplicated"), 1);
  EXPECT_EQ(v.figures.at("stored_twice"), 0);
}

TEST(Duplicates, PassesAtTheBound) {
  HistoryBuilder b = redelivered();
  b.h.settings.duplicates_max = 1;
  EXPECT_TRUE(check_duplicates(b.h).passed);
}

TEST(Duplicates, FailsPastThePlantedBoundAndNamesTheFirstDuplicate) {
  HistoryBuilder b = redelivered();
  b.h.settings.duplicates_max = 0;
  const Verdict v = check_duplicates(b.h);
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.first_violation.find("producer-0#1 again from"), std::string::npos) << v.first_violation;
  EXPECT_NE(v.first_violation.find("offset 1 to c-1"), std::string::npos) << v.first_violation;
}

TEST(Duplicates, AMessageStoredTwiceIsCountedAsSuch) {
  HistoryBuilder b;
  b.send("producer-0", 0, queue(0), 0);
  b.consume("c-0", "g", "producer-0", 0, queue(0), 0, 100).consume("c-0", "g", "producer-0", 0, queue(1), 4, 100);
  EXPECT_EQ(check_duplicates(b.h).figures.at("stored_twice"), 1);
}

}  // namespace
}  // namespace ferry::sim::check
