#include "sim/check/unexpected.h"

#include <gtest/gtest.h>

#include "tests/sim/check/history_builder.h"

namespace ferry::sim::check {
namespace {

using testing::HistoryBuilder;
using testing::queue;

TEST(Unexpected, PassesWhenEveryDeliveryIsIntactAndWasSent) {
  HistoryBuilder b;
  b.send("producer-0", 0, queue(0), 0).send("producer-0", 1, queue(0), 1, SendOutcome::unknown);
  b.consume("c-0", "g", "producer-0", 0, queue(0), 0, 100).consume("c-0", "g", "producer-0", 1, queue(0), 1, 100);
  const Verdict v = check_unexpected(b.h);
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("deliveries"), 2);
}

TEST(Unexpected, ReportsAPlantedNeverSentMessage) {
  HistoryBuilder b;
  b.send("producer-0", 0, queue(0), 0);
  b.consume("c-0", "g", "producer-0", 0, queue(0), 0, 100).consume("c-0", "g", "producer-7", 3, queue(2), 5, 100);
  const Verdict v = check_unexpected(b.h);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("unexpected"), 1);
  EXPECT_NE(v.first_violation.find("producer-7#3 was never sent"), std::string::npos) << v.first_violation;
  EXPECT_NE(v.first_violation.find("queueId=2"), std::string::npos) << v.first_violation;
  EXPECT_NE(v.first_violation.find("offset 5"), std::string::npos) << v.first_violation;
}

TEST(Unexpected, ReportsAPlantedCorruptBodyAndAKeyThatDiffersFromTheSend) {
  HistoryBuilder b;
  b.send("producer-0", 0, queue(0), 0, SendOutcome::ok, "key-1");
  b.consume("c-0", "g", "producer-0", 0, queue(0), 0, 100);
  b.h.consumes.back().intact = false;
  b.consume("c-0", "g", "producer-0", 0, queue(0), 0, 200);
  b.h.consumes.back().key = "key-2";
  const Verdict v = check_unexpected(b.h);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("corrupt"), 2);
  EXPECT_EQ(v.violations, 2);
  EXPECT_NE(v.first_violation.find("corrupt body"), std::string::npos) << v.first_violation;
  EXPECT_NE(v.first_violation.find("offset 0 consumed by c-0"), std::string::npos) << v.first_violation;
}

}  // namespace
}  // namespace ferry::sim::check
