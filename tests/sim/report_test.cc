// The report page's generator (sim/report/) on hand-built histories: every text from a file is
// escaped (a node named like markup stays text, and the embedded JSON gives it back unchanged);
// sends, deliveries and events land on the lanes a reader expects; fault windows pair with their
// heals; an hour of traffic stays a bounded page; the same input gives the same bytes.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>

#include "sim/report/html_report.h"
#include "sim/report/html_text.h"
#include "sim/report/lanes.h"
#include "sim/report/report_model.h"

namespace ferry::sim::report {
namespace {

using sim::EventKind;
using sim::History;
using sim::SendOutcome;

MonoTime at_ms(std::int64_t ms) { return MonoTime{} + std::chrono::milliseconds(ms); }

sim::SendRecord send(std::string producer, std::uint64_t seq, SendOutcome o, std::string broker, std::int64_t ms,
                       std::string detail = "") {
  sim::SendRecord s;
  s.producer = std::move(producer);
  s.seq = seq;
  s.topic = "T";
  s.outcome = o;
  s.detail = std::move(detail);
  s.queue.topic = "T";
  s.queue.broker_name = std::move(broker);
  s.sent_at = at_ms(ms);
  s.done_at = at_ms(ms + 2);
  return s;
}

sim::ConsumeRecord consume(std::string consumer, std::string producer, std::uint64_t seq, std::int64_t ms) {
  sim::ConsumeRecord c;
  c.consumer = std::move(consumer);
  c.group = "g";
  c.topic = "T";
  c.queue.broker_name = "broker-a";
  c.at = at_ms(ms);
  c.intact = true;
  c.producer = std::move(producer);
  c.seq = seq;
  return c;
}

// The JSON the page embeds, parsed back as the page's script would.
rapidjson::Document embedded_json(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"timeline-data\">";
  const auto from = page.find(open);
  EXPECT_NE(from, std::string::npos);
  const auto to = page.find("</script>", from);
  rapidjson::Document d;
  d.Parse(page.substr(from + open.size(), to - from - open.size()).c_str());
  EXPECT_FALSE(d.HasParseError());
  return d;
}

const Lane* lane(const ReportModel& m, const std::string& kind, const std::string& name) {
  const int i = m.timeline.find(kind, name);
  return i < 0 ? nullptr : &m.timeline.lanes()[static_cast<std::size_t>(i)];
}

std::int64_t total(const Lane& l, std::size_t series) {
  std::int64_t n = 0;
  for (const auto& [index, counts] : l.columns) n += counts.at(series);
  return n;
}

TEST(HtmlText, EscapesMarkupAndQuotes) {
  EXPECT_EQ(html_escape("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
  EXPECT_EQ(json_for_script(R"({"a":"</script><!--&"})"), R"({"a":"\u003c/script\u003e\u003c!--\u0026"})");
}

TEST(Report, NamesFromFilesStayText) {
  const std::string evil = "c</script><img src=x onerror=alert(1)>\"'&";
  History h;
  h.sends.push_back(send("p", 0, SendOutcome::ok, "broker-a", 100));
  h.consumes.push_back(consume(evil, "p", 0, 200));
  h.record_event(at_ms(150), EventKind::fault, evil, "<b>partition</b>");
  check::Verdict v;
  v.name = "lost-acked";
  v.violation("p#0 <i>lost</i>");
  v.passed = false;
  const std::string page = render_html_report(model_from_history(h, "runs/<x>.json", {v}));

  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<b>partition"), std::string::npos);
  EXPECT_EQ(page.find("<i>lost"), std::string::npos);
  EXPECT_NE(page.find("p#0 &lt;i&gt;lost&lt;/i&gt;"), std::string::npos);
  EXPECT_NE(page.find("runs/&lt;x&gt;.json"), std::string::npos);
  // Two scripts (the data and the code), each closed once.
  EXPECT_EQ(page.find("</script>", page.find("</script>") + 1), page.rfind("</script>"));
  rapidjson::Document d = embedded_json(page);
  bool found = false;
  for (const auto& l : d["lanes"].GetArray()) found = found || std::string(l["name"].GetString()) == evil;
  EXPECT_TRUE(found) << "the consumer's name does not come back unchanged from the embedded JSON";
}

TEST(Report, ARealRunSaysItsTimesAreRealAndHasNoTraceHash) {
  History h;
  h.sends.push_back(send("p", 0, SendOutcome::ok, "broker-a", 100));
  ReportModel m = model_from_history(h, "real.json", {});
  m.trace_hash = 0x1234;
  m.simulated_ms = 92'100;
  EXPECT_NE(render_html_report(m).find("x: virtual time in seconds"), std::string::npos);
  EXPECT_NE(render_html_report(m).find("1234"), std::string::npos);
  m.real = true;
  const std::string page = render_html_report(m);
  EXPECT_NE(page.find("x: real time in seconds"), std::string::npos);
  EXPECT_NE(page.find("ran (real processes)"), std::string::npos);
  EXPECT_NE(page.find("data-clock=\"real time\""), std::string::npos);
  EXPECT_EQ(page.find("trace hash"), std::string::npos);
  EXPECT_EQ(page.find(">simulated<"), std::string::npos);
}

TEST(Report, SendsDeliveriesAndEventsLandOnTheirLanes) {
  History h;
  h.sends.push_back(send("p", 0, SendOutcome::ok, "broker-a", 1000));
  h.sends.push_back(send("p", 1, SendOutcome::stored_not_durable, "broker-b", 1100));
  h.sends.push_back(send("p", 2, SendOutcome::unknown, "", 1200, "timeout waiting for broker-b (127.0.0.12:10911)"));
  h.sends.push_back(send("p", 3, SendOutcome::failed, "", 1300, "no route for topic T"));
  h.sends.push_back(send("p", 4, SendOutcome::unknown, "", 1400, "failed after 2 attempts (brokers tried: broker-b, broker-a)"));
  h.consumes.push_back(consume("consumer-0", "p", 0, 2000));
  h.consumes.push_back(consume("consumer-1", "p", 0, 2500));  // the same message again: a redelivery
  h.record_event(at_ms(3000), EventKind::crash, "broker-a-s1", "3s kill broker-a-s1");
  h.record_event(at_ms(3500), EventKind::rebalance, "consumer-1", "took queue 1 again");
  h.record_event(at_ms(4000), EventKind::fault, "broker-b", "4s partition broker-b / namesrv-0");
  h.record_event(at_ms(4000), EventKind::fault, "namesrv-0", "4s partition broker-b / namesrv-0");
  h.record_event(at_ms(9000), EventKind::heal, "namesrv-0", "9s end of partition broker-b / namesrv-0");
  const ReportModel m = model_from_history(h, "h.json", {});

  const Lane* a = lane(m, kLaneBroker, "broker-a");
  const Lane* b = lane(m, kLaneBroker, "broker-b");
  const Lane* unplaced = lane(m, kLaneUnplaced, "unplaced");
  ASSERT_TRUE(a && b && unplaced);
  EXPECT_EQ(total(*a, 0), 1);         // ok
  EXPECT_EQ(total(*b, 1), 1);         // not durable
  EXPECT_EQ(total(*b, 3), 1);         // unknown, its error names broker-b
  EXPECT_EQ(total(*unplaced, 2), 1);  // failed, naming no group
  EXPECT_EQ(total(*a, 3), 1);         // unknown, broker-a tried last
  const Lane* c0 = lane(m, kLaneConsumer, "consumer-0");
  const Lane* c1 = lane(m, kLaneConsumer, "consumer-1");
  ASSERT_TRUE(c0 && c1);
  EXPECT_EQ(total(*c0, 0), 1);
  EXPECT_EQ(total(*c1, 1), 1) << "the group's second delivery of p#0 counts as again";
  ASSERT_EQ(a->marks.size(), 1u) << "a slave's crash marks its group's lane";
  EXPECT_EQ(a->marks[0].kind, "crash");
  ASSERT_EQ(c1->marks.size(), 1u);
  EXPECT_EQ(c1->marks[0].kind, "rebalance");
  // One window for the partition step (two events), closed by its heal; the crash has no start.
  ASSERT_EQ(m.timeline.windows().size(), 1u);
  EXPECT_EQ(m.timeline.windows()[0].from_ms, 3000);  // x = 0 is the first record (1000 ms)
  EXPECT_EQ(m.timeline.windows()[0].to_ms, 8000);
}

TEST(Report, AnHourOfTrafficStaysABoundedPageAndTheSameBytes) {
  History h;
  std::uint64_t seq = 0;
  for (std::int64_t ms = 0; ms < 3'600'000; ms += 20) {  // 50 sends and deliveries a second
    h.sends.push_back(send("p", seq, seq % 97 == 0 ? SendOutcome::unknown : SendOutcome::ok, seq % 2 ? "broker-a" : "broker-b", ms));
    h.consumes.push_back(consume(seq % 2 ? "consumer-0" : "consumer-1", "p", seq, ms + 5));
    ++seq;
  }
  for (int i = 0; i < 5000; ++i) h.record_event(at_ms(i * 700), EventKind::rebalance, "consumer-0", "took a queue again");
  const ReportModel m = model_from_history(h, "hour.json", {});
  EXPECT_EQ(m.timeline.column_ms(), 2500);
  for (const Lane& l : m.timeline.lanes()) EXPECT_LE(l.columns.size(), static_cast<std::size_t>(kColumnsMax)) << l.name;
  const Lane* c0 = lane(m, kLaneConsumer, "consumer-0");
  ASSERT_NE(c0, nullptr);
  EXPECT_EQ(c0->marks.size(), kMarksPerLaneMax);
  EXPECT_EQ(c0->marks_dropped, 5000 - static_cast<std::int64_t>(kMarksPerLaneMax));
  const std::string page = render_html_report(m);
  EXPECT_LT(page.size(), 3u << 20) << "an hour of 180000 sends makes a page of " << page.size() << " bytes";
  EXPECT_EQ(page, render_html_report(model_from_history(h, "hour.json", {})));
}

}  // namespace
}  // namespace ferry::sim::report
