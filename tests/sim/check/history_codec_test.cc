// History files: both encodings give back every field; a damaged, truncated or foreign file is
// refused with an error, never a crash (every truncation and every single-byte flip of a binary
// file; truncations and damage of a json file).
#include "sim/check/history_codec.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "sim/check/checkers.h"
#include "tests/sim/check/history_builder.h"

namespace ferry::sim::check {
namespace {

using testing::HistoryBuilder;
using testing::queue;

History sample() {
  HistoryBuilder b;
  b.send("producer-0", 0, queue(3, "broker-b"), 7, SendOutcome::ok, "key-é\"\n", true);
  b.send("producer-1", 5, queue(0), 0, SendOutcome::unknown);
  b.h.sends.back().detail = "timed_out: send";
  b.consume("consumer-0", "g", "producer-0", 0, queue(3, "broker-b"), 7, 1234);
  b.h.consumes.back().reconsume_times = 2;
  b.h.consumes.back().lock_at = MonoTime(std::chrono::milliseconds(1100));
  b.consume("consumer-0", "g", "", 0, queue(1), 9, 1300);
  b.h.consumes.back().intact = false;
  b.event(1250, EventKind::crash, "broker-a");
  b.h.consumes.back().pulled_from = 1;
  b.event(1260, EventKind::promote, "broker-a-s1");
  b.h.settings = CheckSettings{false, 12, true};
  b.h.settings.failover = FailoverBounds{"broker-a", 5000, 45000, 0};
  b.h.settings.route_staleness = RouteStalenessBounds{"broker-b", 130000, 30000};
  b.h.settings.latency_backoff = LatencyBackoffBounds{"broker-b", 1000};
  b.h.settings.offset_persistence = OffsetPersistenceBounds{5000, 250};
  b.h.settings.send_outcomes = SendOutcomesBounds{0, -1, 3, 1500, 2, "broker-a", 12000};
  b.h.next_seq = {{"producer-0", 1}, {"producer-1", 6}};
  b.h.subscriptions["g"] = {"Orders", "%RETRY%g"};
  b.h.latency_fault_producers = {"producer-0"};
  b.h.routes.push_back(RouteRecord{testing::at_ms(250), "namesrv-0", "Orders", {{"broker-a", RouteGroup{4, 4, true}}, {"broker-b", RouteGroup{8, 2, false}}}});
  b.h.routes.push_back(RouteRecord{testing::at_ms(500), "producer-0", "Orders", {}});
  b.h.registrations.push_back(RegistrationRecord{testing::at_ms(30001), "namesrv-1", "broker-b-s1"});
  return b.h;
}

void expect_same(const History& a, const History& b) {
  ASSERT_EQ(a.sends.size(), b.sends.size());
  ASSERT_EQ(a.consumes.size(), b.consumes.size());
  ASSERT_EQ(a.events.size(), b.events.size());
  for (std::size_t i = 0; i < a.sends.size(); ++i) {
    const SendRecord &x = a.sends[i], &y = b.sends[i];
    EXPECT_EQ(x.producer, y.producer);
    EXPECT_EQ(x.seq, y.seq);
    EXPECT_EQ(x.key, y.key);
    EXPECT_EQ(x.topic, y.topic);
    EXPECT_EQ(x.outcome, y.outcome);
    EXPECT_EQ(x.detail, y.detail);
    EXPECT_EQ(x.queue, y.queue);
    EXPECT_EQ(x.queue_offset, y.queue_offset);
    EXPECT_EQ(x.sent_at, y.sent_at);
    EXPECT_EQ(x.done_at, y.done_at);
    EXPECT_EQ(x.ordered, y.ordered);
  }
  for (std::size_t i = 0; i < a.consumes.size(); ++i) {
    const ConsumeRecord &x = a.consumes[i], &y = b.consumes[i];
    EXPECT_EQ(x.consumer, y.consumer);
    EXPECT_EQ(x.group, y.group);
    EXPECT_EQ(x.topic, y.topic);
    EXPECT_EQ(x.queue, y.queue);
    EXPECT_EQ(x.queue_offset, y.queue_offset);
    EXPECT_EQ(x.reconsume_times, y.reconsume_times);
    EXPECT_EQ(x.at, y.at);
    EXPECT_EQ(x.intact, y.intact);
    EXPECT_EQ(x.producer, y.producer);
    EXPECT_EQ(x.seq, y.seq);
    EXPECT_EQ(x.key, y.key);
    EXPECT_EQ(x.pulled_from, y.pulled_from);
    EXPECT_EQ(x.lock_at, y.lock_at);
  }
  for (std::size_t i = 0; i < a.events.size(); ++i) {
    EXPECT_EQ(a.events[i].at, b.events[i].at);
    EXPECT_EQ(a.events[i].kind, b.events[i].kind);
    EXPECT_EQ(a.events[i].target, b.events[i].target);
    EXPECT_EQ(a.events[i].detail, b.events[i].detail);
  }
  EXPECT_EQ(a.settings.lost_strict, b.settings.lost_strict);
  EXPECT_EQ(a.settings.duplicates_max, b.settings.duplicates_max);
  EXPECT_EQ(a.settings.offsets_dense, b.settings.offsets_dense);
  EXPECT_EQ(a.next_seq, b.next_seq);
  EXPECT_EQ(a.subscriptions, b.subscriptions);
  EXPECT_EQ(a.latency_fault_producers, b.latency_fault_producers);
  ASSERT_EQ(a.settings.failover.has_value(), b.settings.failover.has_value());
  if (a.settings.failover) {
    EXPECT_EQ(a.settings.failover->group, b.settings.failover->group);
    EXPECT_EQ(a.settings.failover->sends_resume_within_ms, b.settings.failover->sends_resume_within_ms);
    EXPECT_EQ(a.settings.failover->consume_from_slave_within_ms, b.settings.failover->consume_from_slave_within_ms);
  }
  ASSERT_EQ(a.settings.route_staleness.has_value(), b.settings.route_staleness.has_value());
  if (a.settings.route_staleness) {
    EXPECT_EQ(a.settings.route_staleness->client_route_within_ms, b.settings.route_staleness->client_route_within_ms);
  }
  ASSERT_EQ(a.settings.latency_backoff.has_value(), b.settings.latency_backoff.has_value());
  if (a.settings.latency_backoff) {
    EXPECT_EQ(a.settings.latency_backoff->group, b.settings.latency_backoff->group);
  }
  ASSERT_EQ(a.settings.offset_persistence.has_value(), b.settings.offset_persistence.has_value());
  if (a.settings.offset_persistence) {
    EXPECT_EQ(a.settings.offset_persistence->slack_ms, b.settings.offset_persistence->slack_ms);
  }
  ASSERT_EQ(a.settings.send_outcomes.has_value(), b.settings.send_outcomes.has_value());
  if (a.settings.send_outcomes) {
    EXPECT_EQ(a.settings.send_outcomes->failed_max, b.settings.send_outcomes->failed_max);
    EXPECT_EQ(a.settings.send_outcomes->unknown_max, b.settings.send_outcomes->unknown_max);
    EXPECT_EQ(a.settings.send_outcomes->not_durable_min, b.settings.send_outcomes->not_durable_min);
    EXPECT_EQ(a.settings.send_outcomes->slow_ms, b.settings.send_outcomes->slow_ms);
    EXPECT_EQ(a.settings.send_outcomes->slow_ok_min, b.settings.send_outcomes->slow_ok_min);
    EXPECT_EQ(a.settings.send_outcomes->group, b.settings.send_outcomes->group);
    EXPECT_EQ(a.settings.send_outcomes->writes_resume_within_ms, b.settings.send_outcomes->writes_resume_within_ms);
  }
  ASSERT_EQ(a.routes.size(), b.routes.size());
  for (std::size_t i = 0; i < a.routes.size(); ++i) {
    EXPECT_EQ(a.routes[i].at, b.routes[i].at);
    EXPECT_EQ(a.routes[i].observer, b.routes[i].observer);
    EXPECT_EQ(a.routes[i].topic, b.routes[i].topic);
    EXPECT_EQ(a.routes[i].groups, b.routes[i].groups);
  }
  ASSERT_EQ(a.registrations.size(), b.registrations.size());
  for (std::size_t i = 0; i < a.registrations.size(); ++i) {
    EXPECT_EQ(a.registrations[i].at, b.registrations[i].at);
    EXPECT_EQ(a.registrations[i].namesrv, b.registrations[i].namesrv);
    EXPECT_EQ(a.registrations[i].broker, b.registrations[i].broker);
  }
}

TEST(HistoryCodec, TheEncodingFollowsTheFileName) {
  EXPECT_EQ(encoding_for_path("run/history.json"), HistoryEncoding::json);
  EXPECT_EQ(encoding_for_path("history.bin"), HistoryEncoding::binary);
  EXPECT_EQ(encoding_for_path("json"), HistoryEncoding::binary);
  EXPECT_EQ(encoding_for_path("history.json.gz"), HistoryEncoding::binary);
}

TEST(HistoryCodec, BothEncodingsGiveBackEveryField) {
  const History h = sample();
  for (HistoryEncoding e : {HistoryEncoding::json, HistoryEncoding::binary}) {
    Result<History> back = decode_history(encode_history(h, e), e);
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    expect_same(h, *back);
  }
  const std::string json = encode_history(h, HistoryEncoding::json);
  EXPECT_NE(json.find("\"format\": \"ferry-history\""), std::string::npos) << json;
  EXPECT_NE(json.find(fmt::format("\"version\": {}", kHistoryVersion)), std::string::npos) << json;
  EXPECT_LT(encode_history(h, HistoryEncoding::binary).size(), json.size());
}

TEST(HistoryCodec, AnEmptyHistoryRoundTrips) {
  for (HistoryEncoding e : {HistoryEncoding::json, HistoryEncoding::binary}) {
    Result<History> back = decode_history(encode_history(History{}, e), e);
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    EXPECT_TRUE(back->sends.empty());
  }
}

TEST(HistoryCodec, EveryTruncationAndEveryByteFlipOfABinaryFileIsRefused) {
  const std::string bytes = encode_history(sample(), HistoryEncoding::binary);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    Result<History> r = decode_history(std::string_view(bytes).substr(0, n), HistoryEncoding::binary);
    ASSERT_FALSE(r.ok()) << "a binary history cut to " << n << " of " << bytes.size() << " bytes was accepted";
    EXPECT_TRUE(r.error().code == Errc::corrupt) << r.error().to_string();
  }
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    std::string damaged = bytes;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x20);
    Result<History> r = decode_history(damaged, HistoryEncoding::binary);
    EXPECT_FALSE(r.ok()) << "a flip of byte " << i << " was accepted";
  }
  // A damaged enum behind a valid checksum: the byte of the first send's outcome, set to 9.
  History h = sample();
  h.sends.front().outcome = static_cast<SendOutcome>(9);
  Result<History> out_of_range = decode_history(encode_history(h, HistoryEncoding::binary), HistoryEncoding::binary);
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_NE(out_of_range.error().detail.find("outcome = 9 is out of range"), std::string::npos) << out_of_range.error().to_string();
  Result<History> longer = decode_history(bytes + "x", HistoryEncoding::binary);
  ASSERT_FALSE(longer.ok());
  EXPECT_NE(longer.error().detail.find("promises"), std::string::npos) << longer.error().to_string();
}

TEST(HistoryCodec, AnotherVersionIsRefusedAsUnsupported) {
  std::string bytes = encode_history(sample(), HistoryEncoding::binary);
  bytes[8] = 7;
  Result<History> r = decode_history(bytes, HistoryEncoding::binary);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::unsupported);
  EXPECT_NE(r.error().detail.find("version 7"), std::string::npos) << r.error().to_string();
  std::string json = encode_history(sample(), HistoryEncoding::json);
  const std::string version = fmt::format("\"version\": {}", kHistoryVersion);
  json.replace(json.find(version), version.size(), "\"version\": 9");
  r = decode_history(json, HistoryEncoding::json);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::unsupported) << r.error().to_string();
}

TEST(HistoryCodec, TruncatedDamagedOrForeignJsonIsRefused) {
  const std::string json = encode_history(sample(), HistoryEncoding::json);
  // Every cut short of the closing brace (a step of 7 bytes keeps the test quick).
  for (std::size_t n = 0; n + 2 < json.size(); n += 7) {
    Result<History> r = decode_history(std::string_view(json).substr(0, n), HistoryEncoding::json);
    EXPECT_FALSE(r.ok()) << "a json history cut to " << n << " bytes was accepted";
  }
  for (const char* bad : {"", "[]", "{}", "{\"format\": \"other\", \"version\": 1}", "not json at all",
                          "{\"format\": \"ferry-history\", \"version\": 1, \"history\": 5}"}) {
    Result<History> r = decode_history(bad, HistoryEncoding::json);
    EXPECT_FALSE(r.ok()) << "accepted: " << bad;
  }
  std::string wrong_type = json;
  wrong_type.replace(wrong_type.find("\"seq\": 0"), 8, "\"seq\": \"zero\"");
  EXPECT_FALSE(decode_history(wrong_type, HistoryEncoding::json).ok());
  std::string bad_enum = json;
  bad_enum.replace(bad_enum.find("\"outcome\": \"ok\""), 15, "\"outcome\": \"okay\"");
  Result<History> r = decode_history(bad_enum, HistoryEncoding::json);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().detail.find("outcome = \"okay\" is not one of its names"), std::string::npos) << r.error().to_string();
  EXPECT_FALSE(decode_history(encode_history(sample(), HistoryEncoding::binary), HistoryEncoding::json).ok());
  EXPECT_FALSE(decode_history(json, HistoryEncoding::binary).ok());
}

TEST(HistoryCodec, ADecodedHistoryIsJudgedAsTheOriginal) {
  const History h = sample();
  Result<History> back = decode_history(encode_history(h, HistoryEncoding::binary), HistoryEncoding::binary);
  ASSERT_TRUE(back.ok());
  const auto a = run_all_checks(h), b = run_all_checks(*back);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].to_line(), b[i].to_line());
}

}  // namespace
}  // namespace ferry::sim::check
