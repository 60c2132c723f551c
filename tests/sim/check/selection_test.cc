// The selection checker and what an SQL92 subscription does to lost-acked: a consumer with a
// selector is owed only what it selects (n = seq % 10, KEYS) and must get nothing else.
#include "sim/check/selection.h"

#include <gtest/gtest.h>

#include "sim/check/lost_acked.h"
#include "sim/check/queue_offsets.h"
#include "sim/history/selection.h"
#include "tests/sim/check/history_builder.h"

namespace ferry::sim::check {
namespace {

using testing::HistoryBuilder;
using testing::queue;

// Twelve sends of producer-0 (key-0 for even seq, key-1 for odd); group "sel" selects
// n < 3 AND KEYS = 'key-0' (seq 0, 2, 10), and consumed exactly those.
HistoryBuilder selective() {
  HistoryBuilder b;
  b.h.subscriptions["sel"] = {"Orders"};
  ConsumerInfo info;
  info.group = "sel";
  info.topic = "Orders";
  info.kind = "push-concurrently";
  info.sql = "n < 3 AND KEYS = 'key-0'";
  b.h.consumers["c-0"] = info;
  for (std::uint64_t seq = 0; seq < 12; ++seq) {
    b.send("producer-0", seq, queue(1), static_cast<std::int64_t>(seq), SendOutcome::ok, seq % 2 == 0 ? "key-0" : "key-1");
  }
  std::int64_t t = 100;
  for (std::uint64_t seq : {0, 2, 10}) b.consume("c-0", "sel", "producer-0", seq, queue(1), static_cast<std::int64_t>(seq), t += 10);
  return b;
}

TEST(Selection, ASelectiveGroupIsOwedOnlyWhatItSelects) {
  HistoryBuilder b = selective();
  const Verdict v = check_selection(b.h);
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("selective_consumers"), 1);
  EXPECT_EQ(v.figures.at("selected_deliveries"), 3);
  const Verdict lost = check_lost_acked(b.h);
  EXPECT_TRUE(lost.passed) << lost.to_line();
  b.h.settings.offsets_dense = true;
  EXPECT_TRUE(check_queue_offsets(b.h).passed) << "a selective group's holes are by design";
}

TEST(Selection, AMessageTheSelectorRejectsFailsNamingIt) {
  HistoryBuilder b = selective();
  b.consume("c-0", "sel", "producer-0", 3, queue(1), 3, 500);  // n = 3, key-1: not selected
  const Verdict v = check_selection(b.h);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.violations, 1);
  EXPECT_NE(v.first_violation.find("producer-0#3 (n = 3, KEYS = key-1) delivered to c-0 (group sel)"), std::string::npos)
      << v.first_violation;
}

TEST(Selection, ASelectedMessageNeverDeliveredIsLostAcked) {
  HistoryBuilder b = selective();
  b.h.consumes.pop_back();  // seq 10 (n = 0, key-0) never arrives
  const Verdict lost = check_lost_acked(b.h);
  EXPECT_FALSE(lost.passed);
  EXPECT_NE(lost.first_violation.find("producer-0#10"), std::string::npos) << lost.first_violation;
}

TEST(Selection, SelectorsReadOnlyTheWorkloadsProperties) {
  EXPECT_TRUE(compile_selector("n BETWEEN 1 AND 3 OR KEYS = 'key-2'").ok());
  auto bad = compile_selector("region = 'eu'");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().detail.find("property \"region\""), std::string::npos) << bad.error().detail;
  EXPECT_FALSE(compile_selector("n >").ok());
  EXPECT_EQ(workload_properties(23, "key-1"), std::string("n\x01" "3\x02KEYS\x01key-1"));
}

}  // namespace
}  // namespace ferry::sim::check
