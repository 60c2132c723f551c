// History files: both encodings give back every field; a damaged, truncated or foreign file is
// refused with an error, never a crash (every truncation and every single-byte flip of a binary
// file; truncations and damage of a json file); files an older build wrote (version 6, in
// fixtures/, and a version 5 one made from it) load, and are judged as that build judged them.
#include "sim/history/history_codec.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/crc.h"
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
  b.send("producer-1", 6, queue(2), -1, SendOutcome::ok);  // a transaction the check committed
  b.h.sends.back().fate = TxFate::commit;
  b.h.sends.back().by_check = true;
  b.send("producer-1", 7, queue(2), -1, SendOutcome::ok);  // rolled back by the producer's verdict
  b.h.sends.back().fate = TxFate::rollback;
  b.h.sends.back().verdict_at = testing::at_ms(1'500);
  b.consume("consumer-0", "g", "producer-0", 0, queue(3, "broker-b"), 7, 1234);
  b.h.consumes.back().reconsume_times = 2;
  b.h.consumes.back().lock_at = MonoTime(std::chrono::milliseconds(1100));
  b.consume("consumer-0", "g", "", 0, queue(1), 9, 1300);
  b.h.consumes.back().intact = false;
  b.event(1250, EventKind::crash, "broker-a");
  b.h.consumes.back().pulled_from = 1;
  b.event(1260, EventKind::promote, "broker-a-s1");
  b.h.settings = CheckSettings{false, 12, true};
  using std::chrono::milliseconds;
  b.h.settings.named["failover"] = {{"group", std::string("broker-a")},
                                    {"sends_resume_within", Duration(milliseconds(5000))},
                                    {"consume_from_slave_within", Duration(milliseconds(45000))},
                                    {"writes_after_promotion_within", Duration{}}};
  b.h.settings.named["route_staleness"] = {{"broker", std::string("broker-b")},
                                           {"namesrv_drop_within", Duration(milliseconds(130000))},
                                           {"client_route_within", Duration(milliseconds(30000))}};
  b.h.settings.named["latency_backoff"] = {{"broker", std::string("broker-b")}, {"slack", Duration(milliseconds(1000))}};
  b.h.settings.named["offset_persistence"] = {{"persist_interval", Duration(milliseconds(5000))},
                                              {"slack", Duration(milliseconds(250))}};
  b.h.settings.named["send_outcomes"] = {
      {"failed_max", std::int64_t{0}},  {"unknown_max", std::int64_t{-1}},  {"not_durable_min", std::int64_t{3}},
      {"slow", Duration(milliseconds(1500))}, {"slow_ok_min", std::int64_t{2}}, {"group", std::string("broker-a")},
      {"writes_resume_within", Duration(milliseconds(12000))}};
  b.h.settings.named["a-flag"] = {{"on", true}};  // a check of another build: the codec keeps what it does not know
  b.h.settings.figures_only = {"failover", "send_outcomes"};
  b.h.unobserved = {"store_restarts"};
  b.h.queue_floors.push_back(QueueFloorRecord{testing::at_ms(20'000), queue(1), QueueOffset(12)});
  b.h.next_seq = {{"producer-0", 1}, {"producer-1", 8}};
  b.h.subscriptions["g"] = {"Orders", "%RETRY%g"};
  b.h.latency_fault_producers = {"producer-0"};
  b.h.routes.push_back(RouteRecord{testing::at_ms(250), "namesrv-0", "Orders", {{"broker-a", RouteGroup{4, 4, true}}, {"broker-b", RouteGroup{8, 2, false}}}});
  b.h.routes.push_back(RouteRecord{testing::at_ms(500), "producer-0", "Orders", {}});
  b.h.registrations.push_back(RegistrationRecord{testing::at_ms(30001), "namesrv-1", "broker-b-s1"});
  StoreRestartRecord restart;
  restart.at = testing::at_ms(21'250);
  restart.broker = "broker-a-s1";
  restart.before_max = PhysicalOffset(40'960);
  restart.before_synced = PhysicalOffset(39'000);
  restart.recovered_end = PhysicalOffset(38'000);
  restart.records_compared = 190;
  restart.bytes_compared = 38'000;
  restart.first_mismatch = PhysicalOffset(1'200);
  restart.lives_missed = 1;
  restart.detail = "a record of 200 bytes seen, none recovered";
  b.h.store_restarts.push_back(restart);
  restart.first_mismatch.reset();
  restart.wiped = true;
  b.h.store_restarts.push_back(restart);
  b.h.controller_views.push_back(
      ControllerViewRecord{testing::at_ms(3'000), "controller-1", "broker-a", 2, "broker-a-s2", 5, {"broker-a-s1", "broker-a-s2"}});
  b.h.controller_views.push_back(ControllerViewRecord{testing::at_ms(4'000), "controller-0", "broker-b", 1, "", 1, {}});
  b.h.broker_epochs.push_back(BrokerEpochRecord{testing::at_ms(3'250), "broker-a-s2", "broker-a", 2, {{1, 17}, {2, 40}}});
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
    EXPECT_EQ(x.fate, y.fate);
    EXPECT_EQ(x.by_check, y.by_check);
    EXPECT_EQ(x.verdict_at, y.verdict_at);
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
  EXPECT_EQ(a.settings.named, b.settings.named) << "every named check with every option, typed";
  EXPECT_EQ(a.settings.figures_only, b.settings.figures_only);
  EXPECT_EQ(a.unobserved, b.unobserved);
  ASSERT_EQ(a.queue_floors.size(), b.queue_floors.size());
  for (std::size_t i = 0; i < a.queue_floors.size(); ++i) {
    EXPECT_EQ(a.queue_floors[i].at, b.queue_floors[i].at);
    EXPECT_EQ(a.queue_floors[i].queue, b.queue_floors[i].queue);
    EXPECT_EQ(a.queue_floors[i].min_offset, b.queue_floors[i].min_offset);
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
  ASSERT_EQ(a.controller_views.size(), b.controller_views.size());
  for (std::size_t i = 0; i < a.controller_views.size(); ++i) {
    const ControllerViewRecord &x = a.controller_views[i], &y = b.controller_views[i];
    EXPECT_EQ(x.at, y.at);
    EXPECT_EQ(x.controller, y.controller);
    EXPECT_EQ(x.group, y.group);
    EXPECT_EQ(x.master_epoch, y.master_epoch);
    EXPECT_EQ(x.master, y.master);
    EXPECT_EQ(x.sync_state_set_epoch, y.sync_state_set_epoch);
    EXPECT_EQ(x.sync_state_set, y.sync_state_set);
  }
  ASSERT_EQ(a.broker_epochs.size(), b.broker_epochs.size());
  for (std::size_t i = 0; i < a.broker_epochs.size(); ++i) {
    const BrokerEpochRecord &x = a.broker_epochs[i], &y = b.broker_epochs[i];
    EXPECT_EQ(x.at, y.at);
    EXPECT_EQ(x.broker, y.broker);
    EXPECT_EQ(x.group, y.group);
    EXPECT_EQ(x.epoch, y.epoch);
    EXPECT_EQ(x.acked, y.acked);
  }
  ASSERT_EQ(a.store_restarts.size(), b.store_restarts.size());
  for (std::size_t i = 0; i < a.store_restarts.size(); ++i) {
    const StoreRestartRecord &x = a.store_restarts[i], &y = b.store_restarts[i];
    EXPECT_EQ(x.at, y.at);
    EXPECT_EQ(x.broker, y.broker);
    EXPECT_EQ(x.before_max, y.before_max);
    EXPECT_EQ(x.before_synced, y.before_synced);
    EXPECT_EQ(x.recovered_end, y.recovered_end);
    EXPECT_EQ(x.records_compared, y.records_compared);
    EXPECT_EQ(x.bytes_compared, y.bytes_compared);
    EXPECT_EQ(x.first_mismatch, y.first_mismatch);
    EXPECT_EQ(x.lives_missed, y.lives_missed);
    EXPECT_EQ(x.wiped, y.wiped);
    EXPECT_EQ(x.detail, y.detail);
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

// Version 13: a consumer's SQL92 subscription comes back; one without keeps none.
TEST(HistoryCodec, ConsumersKeepTheirSql92Subscriptions) {
  History h = sample();
  ConsumerInfo selective;
  selective.group = "sel";
  selective.topic = "Orders";
  selective.kind = "lite-pull";
  selective.sql = "n < 3 AND KEYS IN ('key-0', 'it''s')";
  selective.first_start = testing::at_ms(700);
  h.consumers["consumer-1"] = selective;
  ConsumerInfo plain = selective;
  plain.sql.clear();
  h.consumers["consumer-2"] = plain;
  for (HistoryEncoding e : {HistoryEncoding::json, HistoryEncoding::binary}) {
    Result<History> back = decode_history(encode_history(h, e), e);
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    EXPECT_EQ(back->consumers.at("consumer-1").sql, selective.sql);
    EXPECT_EQ(back->consumers.at("consumer-1").kind, "lite-pull");
    EXPECT_EQ(back->consumers.at("consumer-2").sql, "");
  }
}

// Version 14: the requests of requesting producers come back, and a pending one stays pending.
TEST(HistoryCodec, RequestsComeBack) {
  History h = sample();
  RequestRecord replied;
  replied.requester = "producer-0";
  replied.seq = 7;
  replied.sent_at = testing::at_ms(100);
  replied.timeout = std::chrono::seconds(3);
  replied.outcome = RequestOutcome::replied;
  replied.done_at = testing::at_ms(140);
  replied.reply_of = "producer-0#7";
  RequestRecord pending = replied;
  pending.seq = 8;
  pending.outcome = RequestOutcome::pending;
  pending.done_at.reset();
  pending.reply_of.clear();
  RequestRecord timed_out = pending;
  timed_out.seq = 9;
  timed_out.outcome = RequestOutcome::timed_out;
  timed_out.done_at = testing::at_ms(3100);
  timed_out.detail = "timed_out: send request message to T OK, but wait reply message timeout, 3000 ms.";
  h.requests = {replied, pending, timed_out};
  for (HistoryEncoding e : {HistoryEncoding::json, HistoryEncoding::binary}) {
    Result<History> back = decode_history(encode_history(h, e), e);
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    ASSERT_EQ(back->requests.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
      const RequestRecord& a = h.requests[i];
      const RequestRecord& b = back->requests[i];
      EXPECT_EQ(b.id(), a.id());
      EXPECT_EQ(b.sent_at, a.sent_at);
      EXPECT_EQ(b.timeout, a.timeout);
      EXPECT_EQ(b.outcome, a.outcome);
      EXPECT_EQ(b.done_at, a.done_at);
      EXPECT_EQ(b.reply_of, a.reply_of);
      EXPECT_EQ(b.detail, a.detail);
    }
  }
  // A pending request with a resolution time is refused, naming it.
  const std::string json = encode_history(h, HistoryEncoding::json);
  std::string bad = json;
  const std::size_t at = bad.find("\"outcome\": \"pending\"");
  ASSERT_NE(at, std::string::npos) << json;
  bad.replace(at, std::string("\"outcome\": \"pending\"").size(), "\"outcome\": \"failed\"");
  Result<History> refused = decode_history(bad, HistoryEncoding::json);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().detail.find("producer-0#8"), std::string::npos) << refused.error().to_string();
}

// Version 15: the timer delays of timer sends come back on their sends; a timer naming a send the
// file does not hold is refused.
TEST(HistoryCodec, TimerDelaysComeBack) {
  History h = sample();
  ASSERT_GE(h.sends.size(), 2u);
  h.sends[1].timer_delay = std::chrono::milliseconds(45'000);
  for (HistoryEncoding e : {HistoryEncoding::json, HistoryEncoding::binary}) {
    Result<History> back = decode_history(encode_history(h, e), e);
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    EXPECT_FALSE(back->sends[0].timer_delay.has_value());
    EXPECT_EQ(back->sends[1].timer_delay, std::optional<Duration>(std::chrono::milliseconds(45'000)));
  }
  std::string json = encode_history(h, HistoryEncoding::json);
  const std::size_t at = json.find("\"timers\"");
  ASSERT_NE(at, std::string::npos) << json;
  const std::size_t key = json.find("\"key\": 1", at);
  ASSERT_NE(key, std::string::npos) << json.substr(at, 200);
  json.replace(key, std::string("\"key\": 1").size(), "\"key\": 99999");
  Result<History> refused = decode_history(json, HistoryEncoding::json);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().detail.find("timers: send 99999"), std::string::npos) << refused.error().to_string();
}

// Version 16: a POP delivery's request and invisible times and its acks come back; an ack naming a delivery
// that is not a POP one is refused. Version 17: its broker time too; a version 16 file has none.
TEST(HistoryCodec, PopDeliveriesAndAcksComeBack) {
  History h = sample();
  ASSERT_GE(h.consumes.size(), 2u);
  h.consumes[1].pop = PopDelivery{MonoTime(std::chrono::milliseconds(1'000)), MonoTime(std::chrono::milliseconds(61'000)), 1'700'000'001'004};
  h.pop_acks.push_back(PopAckRecord{1, MonoTime(std::chrono::milliseconds(2'000)), MonoTime(std::chrono::milliseconds(2'003)), true, ""});
  h.pop_acks.push_back(PopAckRecord{1, MonoTime(std::chrono::milliseconds(3'000)), MonoTime(std::chrono::milliseconds(6'000)), false,
                                    "timed_out: no answer"});
  for (HistoryEncoding e : {HistoryEncoding::json, HistoryEncoding::binary}) {
    Result<History> back = decode_history(encode_history(h, e), e);
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    EXPECT_FALSE(back->consumes[0].pop.has_value());
    ASSERT_TRUE(back->consumes[1].pop.has_value());
    EXPECT_EQ(back->consumes[1].pop->requested_at, MonoTime(std::chrono::milliseconds(1'000)));
    EXPECT_EQ(back->consumes[1].pop->invisible_until, MonoTime(std::chrono::milliseconds(61'000)));
    EXPECT_EQ(back->consumes[1].pop->pop_time_ms, 1'700'000'001'004);
    ASSERT_EQ(back->pop_acks.size(), 2u);
    EXPECT_EQ(back->pop_acks[0].consume, 1u);
    EXPECT_TRUE(back->pop_acks[0].ok);
    EXPECT_EQ(back->pop_acks[0].done_at, MonoTime(std::chrono::milliseconds(2'003)));
    EXPECT_FALSE(back->pop_acks[1].ok);
    EXPECT_EQ(back->pop_acks[1].detail, "timed_out: no answer");
  }
  std::string json = encode_history(h, HistoryEncoding::json);
  {
    std::string v16 = json;
    const std::size_t version = v16.find("\"version\": 17");
    ASSERT_NE(version, std::string::npos) << v16.substr(0, 200);
    v16.replace(version, std::string("\"version\": 17").size(), "\"version\": 16");
    Result<History> old = decode_history(v16, HistoryEncoding::json);
    ASSERT_TRUE(old.ok()) << old.error().to_string();
    ASSERT_TRUE(old->consumes[1].pop.has_value());
    EXPECT_EQ(old->consumes[1].pop->pop_time_ms, -1);
  }
  const std::size_t at = json.find("\"pop_acks\"");
  ASSERT_NE(at, std::string::npos) << json;
  const std::size_t consume = json.find("\"consume\": 1", at);
  ASSERT_NE(consume, std::string::npos) << json.substr(at, 200);
  json.replace(consume, std::string("\"consume\": 1").size(), "\"consume\": 0");
  Result<History> refused = decode_history(json, HistoryEncoding::json);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().detail.find("pop_acks names consume 0"), std::string::npos) << refused.error().to_string();
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
  bytes[8] = static_cast<char>(kHistoryVersion + 1);
  Result<History> r = decode_history(bytes, HistoryEncoding::binary);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::unsupported);
  EXPECT_NE(r.error().detail.find(fmt::format("version {}", kHistoryVersion + 1)), std::string::npos) << r.error().to_string();
  std::string json = encode_history(sample(), HistoryEncoding::json);
  const std::string version = fmt::format("\"version\": {}", kHistoryVersion);
  json.replace(json.find(version), version.size(), fmt::format("\"version\": {}", kHistoryVersion + 1));
  r = decode_history(json, HistoryEncoding::json);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::unsupported) << r.error().to_string();
}

std::string fixture(const std::string& name) {
  const char* src = std::getenv("FERRY_SOURCE_DIR");
  if (src == nullptr) return "";
  std::ifstream in(std::string(src) + "/tests/sim/history/fixtures/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The verdicts of `h`, one line each, as mqsim check prints them.
std::string verdict_lines(const History& h) {
  std::string out;
  for (const Verdict& v : run_all_checks(h)) out += v.to_line() + "\n";
  return out;
}

// Files of version 6 held the five named checks of the time as typed fields (milliseconds):
// they load as the same checks' options, and are judged as the build that wrote them judged them.
TEST(HistoryCodec, AVersion6FileLoadsItsNamedChecksAsOptions) {
  const std::string verdicts = fixture("v6-named-checks.verdicts");
  ASSERT_FALSE(verdicts.empty()) << "FERRY_SOURCE_DIR is set by ctest; the fixtures are in tests/sim/history/fixtures";
  for (const char* name : {"v6-named-checks.json", "v6-named-checks.bin"}) {
    const std::string bytes = fixture(name);
    ASSERT_FALSE(bytes.empty()) << name;
    Result<History> h = decode_history(bytes, encoding_for_path(name));
    ASSERT_TRUE(h.ok()) << name << ": " << h.error().to_string();
    ASSERT_EQ(h->settings.named.size(), 5u) << name;
    const OptionValues& failover = h->settings.named.at("failover");
    EXPECT_EQ(std::get<std::string>(failover.at("group")), "broker-a");
    EXPECT_EQ(std::get<Duration>(failover.at("sends_resume_within")), std::chrono::seconds(5));
    EXPECT_EQ(std::get<Duration>(failover.at("consume_from_slave_within")), std::chrono::seconds(45));
    EXPECT_EQ(std::get<Duration>(h->settings.named.at("route_staleness").at("client_route_within")), std::chrono::seconds(20));
    EXPECT_EQ(std::get<std::string>(h->settings.named.at("latency_backoff").at("broker")), "broker-a");
    EXPECT_EQ(std::get<Duration>(h->settings.named.at("offset_persistence").at("slack")), std::chrono::milliseconds(250));
    const OptionValues& outcomes = h->settings.named.at("send_outcomes");
    EXPECT_EQ(std::get<std::int64_t>(outcomes.at("failed_max")), 0);
    EXPECT_EQ(std::get<Duration>(outcomes.at("slow")), std::chrono::milliseconds(1500));
    EXPECT_EQ(std::get<Duration>(outcomes.at("writes_resume_within")), std::chrono::seconds(12));
    EXPECT_EQ(h->sends.size(), 4u);
    EXPECT_EQ(verdict_lines(*h), verdicts) << name;
    // Saved again, it is a file of this version with the same meaning.
    Result<History> again = decode_history(encode_history(*h, HistoryEncoding::json), HistoryEncoding::json);
    ASSERT_TRUE(again.ok()) << again.error().to_string();
    expect_same(*h, *again);
  }
}

// A version 5 file is a version 6 one without its last field, store_restarts: it loads with none.
TEST(HistoryCodec, AVersion5FileLoadsWithNoStoreRestarts) {
  const std::string v6 = fixture("v6-named-checks.bin");
  ASSERT_GT(v6.size(), kHistoryBinaryHeaderBytes + 8) << "FERRY_SOURCE_DIR is set by ctest";
  // The payload ends with store_restarts' element count, 8 bytes of zero (cereal's size_type).
  ASSERT_EQ(v6.substr(v6.size() - 8), std::string(8, '\0'));
  std::string payload = v6.substr(kHistoryBinaryHeaderBytes, v6.size() - kHistoryBinaryHeaderBytes - 8);
  std::string v5(kHistoryBinaryMagic);
  auto put_le = [&v5](std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) v5.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  put_le(5, 4);
  put_le(payload.size(), 8);
  put_le(crc32_update(0, as_bytes(payload)), 4);
  v5 += payload;
  Result<History> back = decode_history(v5, HistoryEncoding::binary);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  Result<History> six = decode_history(v6, HistoryEncoding::binary);
  ASSERT_TRUE(six.ok()) << six.error().to_string();
  expect_same(*six, *back);

  std::string json = fixture("v6-named-checks.json");
  json.replace(json.find("\"version\": 6"), 12, "\"version\": 5");
  const std::string field = ",\n        \"store_restarts\": []";
  const std::size_t at = json.find(field);
  ASSERT_NE(at, std::string::npos) << json;
  json.erase(at, field.size());
  back = decode_history(json, HistoryEncoding::json);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  expect_same(*six, *back);

  std::string v4 = v6;
  v4[8] = 4;
  Result<History> refused = decode_history(v4, HistoryEncoding::binary);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, Errc::unsupported);
  EXPECT_NE(refused.error().detail.find(fmt::format("reads versions 5 to {}", kHistoryVersion)), std::string::npos)
      << refused.error().to_string();
}

// A named check this build does not have (a history another build recorded) is a failing
// verdict saying so, not a crash or a silent pass.
TEST(HistoryCodec, ANamedCheckThisBuildLacksIsAFailingVerdict) {
  History h = sample();
  h.settings.named.clear();
  h.settings.named["no-such-check"] = {{"bound", std::int64_t{3}}};
  const std::vector<Verdict> verdicts = run_all_checks(h);
  ASSERT_FALSE(verdicts.empty());
  EXPECT_EQ(verdicts.back().name, "no-such-check");
  EXPECT_FALSE(verdicts.back().passed);
  EXPECT_NE(verdicts.back().first_violation.find("this build does not have"), std::string::npos) << verdicts.back().to_line();
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
