// The request-reply checker: a request gets the reply that answers it or times out, never another
// request's reply, and resolves within its timeout unless its requester was faulted.
#include "sim/check/request_reply.h"

#include <gtest/gtest.h>

#include "tests/sim/check/history_builder.h"

namespace ferry::sim::check {
namespace {

using testing::HistoryBuilder;

TEST(RequestReply, OwnRepliesTimeoutsAndFailedSendsPass) {
  HistoryBuilder b;
  b.request("req-0", 0, 0, 3000, RequestOutcome::replied, 40)
      .request("req-0", 1, 100, 3000, RequestOutcome::timed_out, 3100)
      .request("req-1", 0, 200, 3000, RequestOutcome::failed, 1200)
      .request("req-1", 1, 300, 3000, RequestOutcome::replied, 3250);
  const Verdict v = check_request_reply(b.h);
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("requests"), 4);
  EXPECT_EQ(v.figures.at("replied"), 2);
  EXPECT_EQ(v.figures.at("timed_out"), 1);
  EXPECT_EQ(v.figures.at("failed"), 1);
  EXPECT_EQ(v.figures.at("resolve_max_ms"), 3000);
}

TEST(RequestReply, AnotherRequestsReplyFailsNamingBoth) {
  HistoryBuilder b;
  b.request("req-0", 0, 0, 3000, RequestOutcome::replied, 40).request("req-0", 1, 50, 3000, RequestOutcome::replied, 90, "req-1#7");
  const Verdict v = check_request_reply(b.h);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("wrong_replies"), 1);
  EXPECT_NE(v.first_violation.find("request req-0#1"), std::string::npos) << v.first_violation;
  EXPECT_NE(v.first_violation.find("the reply to req-1#7"), std::string::npos) << v.first_violation;
}

TEST(RequestReply, ACorruptReplyFailsOnlyWhenCorruptionDoes) {
  HistoryBuilder b;
  b.request("req-0", 0, 0, 3000, RequestOutcome::replied, 40, "corrupt");
  EXPECT_FALSE(check_request_reply(b.h).passed);
  b.h.settings.corrupt_fails = false;
  const Verdict v = check_request_reply(b.h);
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("corrupt_replies"), 1);
}

TEST(RequestReply, ARequestResolvedPastItsTimeoutFailsUnlessItsRequesterWasFaulted) {
  HistoryBuilder late;
  late.request("req-0", 0, 0, 3000, RequestOutcome::timed_out, 3000 + 501 + to_ms(kRequestSlack));
  EXPECT_FALSE(check_request_reply(late.h).passed);

  HistoryBuilder paused = late;
  paused.event(1000, EventKind::fault, "req-0");  // a pause stops the requester's timers
  EXPECT_TRUE(check_request_reply(paused.h).passed);

  HistoryBuilder other = late;
  other.event(1000, EventKind::fault, "req-1");  // someone else's fault explains nothing
  EXPECT_FALSE(check_request_reply(other.h).passed);
}

TEST(RequestReply, ARequestThatNeverResolvesFailsUnlessItsRequesterDiedOrTheRunEnded) {
  HistoryBuilder hung;
  hung.request("req-0", 0, 0, 3000, RequestOutcome::pending).request("req-0", 1, 9000, 3000, RequestOutcome::replied, 9010);
  const Verdict v = check_request_reply(hung.h);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("pending"), 1);
  EXPECT_NE(v.first_violation.find("never resolved"), std::string::npos) << v.first_violation;

  HistoryBuilder crashed = hung;
  crashed.event(500, EventKind::crash, "req-0");
  EXPECT_TRUE(check_request_reply(crashed.h).passed);

  HistoryBuilder run_ended;  // the run's records end before the request's timeout passed
  run_ended.request("req-0", 0, 0, 3000, RequestOutcome::replied, 40).request("req-0", 1, 1000, 3000, RequestOutcome::pending);
  EXPECT_TRUE(check_request_reply(run_ended.h).passed);
}

}  // namespace
}  // namespace ferry::sim::check
