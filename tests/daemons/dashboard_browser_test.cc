// mqdashboard in a real browser against real daemons (docs/operations.md, "Dashboard"): a
// NameServer and a broker that speak TLS only and check ACL signatures, the dashboard signing with
// an admin's keys over TLS, and headless Chromium loading each screen (--dump-dom after the page's
// requests settle). The numbers on the screens must be mqadmin's; the lag chart must move while a
// consumer is paused; the test message, the offset reset and bad input go through the page's API.
//
// Chromium is the Debian package `chromium` (tools/bootstrap.sh installs it; CI runs that).
#include <gtest/gtest.h>

#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "tests/daemons/daemon_process.h"
#include "tests/daemons/mqadmin_output.h"
#include "tests/support/command_path.h"

namespace ferry::daemons_test {
namespace {

using namespace std::chrono_literals;

constexpr auto kReady = 20s;
constexpr auto kCommand = 60s;
constexpr const char* kTopic = "DashT";
constexpr const char* kGroup = "DashG";

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// The text of the element carrying data-k="key" in a dumped DOM (its tags stripped), or
// "<no data-k=key>" when there is none.
std::string cell(const std::string& dom, const std::string& key) {
  const std::string attr = "data-k=\"" + key + "\"";
  const std::size_t at = dom.find(attr);
  if (at == std::string::npos) return "<no data-k=" + key + ">";
  const std::size_t open = dom.rfind('<', at);
  const std::string tag = dom.substr(open + 1, dom.find_first_of(" >", open) - open - 1);
  const std::size_t start = dom.find('>', at) + 1;
  const std::size_t end = dom.find("</" + tag + ">", start);
  std::string inner = dom.substr(start, end - start);
  return std::regex_replace(inner, std::regex("<[^>]*>"), "");
}

// An attribute of the element carrying data-k="key".
std::string attribute(const std::string& dom, const std::string& key, const std::string& name) {
  const std::size_t at = dom.find("data-k=\"" + key + "\"");
  if (at == std::string::npos) return "";
  const std::size_t open = dom.rfind('<', at);
  const std::string element = dom.substr(open, dom.find('>', at) - open);
  std::smatch m;
  if (!std::regex_search(element, m, std::regex(" " + name + "=\"([^\"]*)\""))) return "";
  return m[1];
}

// "Diff Total: N" of mqadmin consumerProgress.
long long diff_total(const std::string& output) {
  std::smatch m;
  if (!std::regex_search(output, m, std::regex("Diff Total: (-?[0-9]+)"))) return -1;
  return std::stoll(m[1]);
}

class DashboardInBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = ferry::testing::command_path("chromium");
    ASSERT_FALSE(chromium_.empty()) << "chromium is not installed: run tools/bootstrap.sh (it installs the Debian "
                                       "package chromium; CI does)";
    const std::string script =
        "cd " + dir_.path() +
        " && openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=ferry-test-ca"
        " && openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj /CN=127.0.0.1"
        " && printf 'subjectAltName=IP:127.0.0.1\\n' > san.ext"
        " && openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile san.ext";
    const RunResult made = run_to_exit("/bin/sh", {"-c", script}, dir_ / "openssl.out", kCommand);
    ASSERT_EQ(made.status, 0) << made.output;
    // Every process here signs with the admin's keys (FERRY_ACCESS_KEY / FERRY_SECRET_KEY).
    write_file(dir_ / "plain_acl.yml",
               "accounts:\n  - accessKey: dashAdmin\n    secretKey: dash-secret-1\n    admin: true\n");
    ::setenv("FERRY_ACCESS_KEY", "dashAdmin", 1);
    ::setenv("FERRY_SECRET_KEY", "dash-secret-1", 1);
    tls_ = dir_ / "client.properties";
    write_file(tls_, "tls.enable=true\ntls.client.authServer=true\ntls.client.trustCertPath=" + (dir_ / "ca.pem") + "\n");
    const std::string tls_both = "tls.server.mode=enforcing\ntls.server.certPath=" + (dir_ / "server.pem") +
                                 "\ntls.server.keyPath=" + (dir_ / "server.key") +
                                 "\ntls.enable=true\ntls.client.authServer=true\ntls.client.trustCertPath=" +
                                 (dir_ / "ca.pem") + "\n";

    ns_port_ = free_port();
    write_file(dir_ / "namesrv.conf", "listenPort=" + std::to_string(ns_port_) + "\ndataDir=" + (dir_ / "ns") + "\n" + tls_both);
    namesrv_ = std::make_unique<Child>(FERRY_MQNAMESRV_PATH, std::vector<std::string>{"-c", dir_ / "namesrv.conf"},
                                       dir_ / "namesrv.out");
    ASSERT_TRUE(wait_for_port(ns_port_, kReady)) << namesrv_->output();
    broker_port_ = free_broker_port();
    write_file(dir_ / "broker.conf", "brokerClusterName=DashCluster\nbrokerName=broker-a\nbrokerId=0\nlistenPort=" +
                                         std::to_string(broker_port_) + "\nstorePathRootDir=" + (dir_ / "store") +
                                         "\nmappedFileSizeCommitLog=1048576\nmaxMessageSize=65536\nnamesrvAddr=" + ns_addr() +
                                         "\naclEnable=true\nlistenAddress=127.0.0.1\n" + tls_both);
    broker_ = std::make_unique<Child>(FERRY_MQBROKER_PATH, std::vector<std::string>{"-c", dir_ / "broker.conf"},
                                      dir_ / "broker.out");
    ASSERT_TRUE(wait_for_port(broker_port_, kReady)) << broker_->output();
    RunResult r;
    for (int attempt = 0; attempt < 60 && !contains(r.output, "broker-a"); ++attempt) {
      if (attempt > 0) std::this_thread::sleep_for(500ms);
      r = admin({"clusterList"});
    }
    ASSERT_TRUE(contains(r.output, "broker-a")) << r.output << broker_->output();

  }

  // mqdashboard on a free port, signing with the admin's keys, TLS to the cluster, lag sampled
  // every second; `extra` flags appended.
  void start_dashboard(std::vector<std::string> extra = {}) {
    http_port_ = free_port();
    std::vector<std::string> args{"-n", ns_addr(), "--listen", "127.0.0.1:" + std::to_string(http_port_), "--tls-config", tls_,
                                  "--lag-interval", "1"};
    args.insert(args.end(), extra.begin(), extra.end());
    dashboard_ = std::make_unique<Child>(FERRY_MQDASHBOARD_PATH, args, dir_ / "dashboard.out");
    ASSERT_TRUE(wait_for_port(http_port_, kReady)) << dashboard_->output();
  }

  void TearDown() override {
    ::unsetenv("FERRY_ACCESS_KEY");
    ::unsetenv("FERRY_SECRET_KEY");
    if (consumer_) consumer_->signal(SIGCONT);
    // SIGTERM stops the dashboard cleanly (its session's temporary folder goes with it).
    if (dashboard_ && dashboard_->running()) {
      dashboard_->signal(SIGTERM);
      const std::optional<int> status = dashboard_->wait(10s);
      EXPECT_EQ(status, std::optional<int>(0)) << dashboard_->output();
    }
  }

  std::string ns_addr() const { return "127.0.0.1:" + std::to_string(ns_port_); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(http_port_); }

  RunResult admin(std::vector<std::string> args) {
    args.insert(args.end(), {"-n", ns_addr(), "--tls-config", tls_});
    RunResult r = run_to_exit(FERRY_MQADMIN_PATH, args, dir_ / ("mqadmin-" + std::to_string(++runs_) + ".out"), kCommand);
    std::string line;
    for (const auto& a : args) line += " " + a;
    r.output = "$ mqadmin" + line + "\n" + r.output;
    return r;
  }

  // The screen at `hash` once its requests settled: the DOM Chromium dumps. Its <body> says
  // data-ready="1" when the screen loaded ("error" when it showed an error).
  std::string screen(const std::string& hash) {
    const RunResult r = run_to_exit(
        "/usr/bin/timeout",
        {"120", chromium_, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + (dir_ / "chromium-profile"),
         "--virtual-time-budget=15000", "--dump-dom", url() + "/#/" + hash},
        dir_ / ("dom-" + std::to_string(++doms_) + ".html"), 150s);
    return r.output;
  }

  // POST `json` to the dashboard's API path: the reply's body.
  std::string post(const std::string& path, const std::string& json) {
    return curl({"-s", "-X", "POST", "-H", "Content-Type: application/json", "-d", json, url() + path}).output;
  }
  RunResult curl(std::vector<std::string> args) {
    return run_to_exit("/usr/bin/curl", args, dir_ / ("curl-" + std::to_string(++runs_) + ".out"), kCommand);
  }

  TempDir dir_;
  std::string chromium_;
  std::string tls_;
  std::uint16_t ns_port_ = 0;
  std::uint16_t broker_port_ = 0;
  std::uint16_t http_port_ = 0;
  std::unique_ptr<Child> namesrv_;
  std::unique_ptr<Child> broker_;
  std::unique_ptr<Child> dashboard_;
  std::unique_ptr<Child> consumer_;
  int runs_ = 0;
  int doms_ = 0;
};

TEST_F(DashboardInBrowser, ScreensShowWhatMqadminShowsAndTheLagChartMovesWhileAConsumerIsPaused) {
  ASSERT_NO_FATAL_FAILURE(start_dashboard());
  ASSERT_EQ(admin({"updateTopic", "-c", "DashCluster", "-t", kTopic, "-r", "4", "-w", "4"}).status, 0);
  RunResult sent = admin({"sendMessage", "-t", kTopic, "-p", "order {i}", "-k", "order-7", "-g", "TagA", "-c", "10"});
  ASSERT_EQ(sent.status, 0) << sent.output;

  // A test message from the page's API; its offset msgId opens the message screen.
  const std::string reply = post("/topic/sendTopicMessage.do",
                                 std::string("{\"topic\":\"") + kTopic + "\",\"key\":\"dash-key\",\"tag\":\"T\",\"messageBody\":\"from the dashboard\"}");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(reply, m, std::regex("\"offsetMsgId\":\"([0-9A-F]+)\""))) << reply;
  const std::string offset_msg_id = m[1];
  EXPECT_TRUE(contains(reply, "\"sendStatus\":\"SEND_OK\"")) << reply;
  std::string dom = screen("message?msgId=" + offset_msg_id);
  EXPECT_TRUE(contains(dom, "data-ready=\"1\"")) << dom;
  EXPECT_EQ(cell(dom, "msg/body"), "from the dashboard");
  EXPECT_EQ(cell(dom, "prop.KEYS/v"), "dash-key");
  EXPECT_EQ(cell(dom, "msg.topic/v"), kTopic);

  // Cluster: the broker's role and message count, as mqadmin brokerStatus prints them.
  dom = screen("cluster");
  ASSERT_TRUE(contains(dom, "data-ready=\"1\"")) << dom;
  RunResult status = admin({"brokerStatus"});
  auto rows = table_rows(status.output, "#Broker");
  ASSERT_EQ(rows.size(), 1u) << status.output;
  EXPECT_EQ(cell(dom, "broker-a:0/msgPutTotal"), rows[0][5]) << status.output;
  EXPECT_EQ(cell(dom, "broker-a:0/role"), "ASYNC_MASTER");
  EXPECT_EQ(cell(dom, "broker-a:0/addr"), "127.0.0.1:" + std::to_string(broker_port_));
  EXPECT_EQ(cell(dom, "broker-a:0/writable"), "yes");

  // Topic: each queue's max offset as mqadmin topicStatus prints it, and the messages stored.
  dom = screen(std::string("topic/") + kTopic);
  ASSERT_TRUE(contains(dom, "data-ready=\"1\"")) << dom;
  RunResult topic_status = admin({"topicStatus", "-t", kTopic});
  rows = table_rows(topic_status.output, "#Broker");
  ASSERT_EQ(rows.size(), 4u) << topic_status.output;
  long long stored = 0;
  for (const auto& row : rows) {
    EXPECT_EQ(cell(dom, row[0] + ":" + row[1] + "/maxOffset"), row[3]) << topic_status.output;
    stored += std::stoll(row[3]) - std::stoll(row[2]);
  }
  EXPECT_EQ(stored, 11);
  EXPECT_EQ(cell(dom, "card/stored"), "11");
  EXPECT_EQ(cell(dom, "broker-a/readQueueNums"), "4");

  // Messages by key: the ten mqadmin queryMsgByKey finds.
  dom = screen(std::string("messages?topic=") + kTopic + "&key=order-7");
  ASSERT_TRUE(contains(dom, "data-ready=\"1\"")) << dom;
  RunResult by_key = admin({"queryMsgByKey", "-t", kTopic, "-k", "order-7"});
  rows = table_rows(by_key.output, "#MsgId");
  ASSERT_EQ(rows.size(), 10u) << by_key.output;
  for (const auto& row : rows) EXPECT_EQ(cell(dom, row[0] + "/msgId"), row[0]) << by_key.output;
  // By queue offset: the message mqadmin queryMsgByOffset shows there.
  dom = screen(std::string("message?topic=") + kTopic + "&brokerName=broker-a&queueId=1&offset=0");
  ASSERT_TRUE(contains(dom, "data-ready=\"1\"")) << dom;
  RunResult by_offset = admin({"queryMsgByOffset", "-t", kTopic, "-b", "broker-a", "-i", "1", "-o", "0"});
  ASSERT_EQ(by_offset.status, 0) << by_offset.output;
  EXPECT_TRUE(contains(by_offset.output, cell(dom, "msg.offsetMsgId/v"))) << by_offset.output << dom;
  EXPECT_TRUE(contains(by_offset.output, cell(dom, "msg/body"))) << by_offset.output;
  EXPECT_EQ(cell(dom, "msg.queueId/v"), "1");

  // A consumer takes everything and commits, then is paused (SIGSTOP): what is sent next is lag.
  consumer_ = std::make_unique<Child>(FERRY_MQBENCH_PATH,
                                      std::vector<std::string>{"consume", "-n", ns_addr(), "--tls-config", tls_, "-t", kTopic,
                                                               "-g", kGroup, "-f", "first", "-d", "300"},
                                      dir_ / "consumer.out");
  RunResult progress;
  for (int attempt = 0; attempt < 60; ++attempt) {
    std::this_thread::sleep_for(1s);
    progress = admin({"consumerProgress", "-g", kGroup});
    if (progress.status == 0 && diff_total(progress.output) == 0) break;
  }
  ASSERT_EQ(diff_total(progress.output), 0) << progress.output << consumer_->output();
  consumer_->signal(SIGSTOP);
  ASSERT_EQ(admin({"sendMessage", "-t", kTopic, "-p", "late {i}", "-c", "25"}).status, 0);
  std::this_thread::sleep_for(2500ms);  // a lag sample or two (--lag-interval 1)
  dom = screen(std::string("consumer/") + kGroup);
  ASSERT_TRUE(contains(dom, "data-ready=\"1\"")) << dom;
  progress = admin({"consumerProgress", "-g", kGroup});
  EXPECT_EQ(diff_total(progress.output), 25) << progress.output;
  EXPECT_EQ(cell(dom, "card/lag"), "25") << progress.output;
  EXPECT_EQ(cell(dom, "card/members"), "1");
  EXPECT_EQ(cell(dom, "card/model"), "CONSUME_PASSIVELY / CLUSTERING");
  EXPECT_EQ(attribute(dom, "lag/chart", "data-last"), "25");
  const int points_before = std::stoi(attribute(dom, "lag/chart", "data-points"));
  EXPECT_GE(points_before, 2);
  std::string groups = screen("consumers");
  EXPECT_EQ(cell(groups, std::string(kGroup) + "/diffTotal"), "25") << groups;
  EXPECT_EQ(cell(groups, std::string(kGroup) + "/count"), "1") << groups;
  // The chart moves: more sent while paused, more behind on the next look.
  ASSERT_EQ(admin({"sendMessage", "-t", kTopic, "-p", "later {i}", "-c", "15"}).status, 0);
  std::this_thread::sleep_for(2500ms);
  dom = screen(std::string("consumer/") + kGroup);
  EXPECT_EQ(attribute(dom, "lag/chart", "data-last"), "40") << dom;
  EXPECT_GT(std::stoi(attribute(dom, "lag/chart", "data-points")), points_before);
  progress = admin({"consumerProgress", "-g", kGroup});
  rows = table_rows(progress.output, "#Topic");
  for (const auto& row : rows) {
    if (row.size() < 6 || row[0] != kTopic) continue;
    EXPECT_EQ(cell(dom, std::string(kTopic) + "|" + row[1] + ":" + row[2] + "/diff"), row[5]) << progress.output;
  }

  // The consumer gone, a reset to "now" through the API leaves nothing behind.
  consumer_->signal(SIGKILL);
  consumer_->wait(10s);
  consumer_.reset();
  std::string reset;
  for (int attempt = 0; attempt < 20; ++attempt) {  // until the broker has closed the consumer's connection
    reset = post("/consumer/resetOffset.do", std::string("{\"consumerGroup\":\"") + kGroup + "\",\"topic\":\"" + kTopic +
                                                 "\",\"resetTime\":\"now\",\"force\":true}");
    if (contains(reset, "\"status\":0")) break;
    std::this_thread::sleep_for(500ms);
  }
  EXPECT_TRUE(contains(reset, "\"status\":0")) << reset;
  progress = admin({"consumerProgress", "-g", kGroup});
  EXPECT_EQ(diff_total(progress.output), 0) << progress.output;

  // HA: the broker is a master without slaves (mqadmin haStatus says the same).
  dom = screen("ha");
  ASSERT_TRUE(contains(dom, "data-ready=\"1\"")) << dom;
  EXPECT_EQ(cell(dom, "broker-a:0/role"), "ASYNC_MASTER");
  EXPECT_EQ(cell(dom, "broker-a:0/peers"), "no slave connected");

  // Bad input: the page says what is wrong.
  dom = screen("topic/NoSuchTopic");
  EXPECT_TRUE(contains(dom, "data-ready=\"error\"")) << dom;
  EXPECT_TRUE(contains(cell(dom, "page/error"), "NoSuchTopic")) << dom;
  const std::string bad = post("/consumer/resetOffset.do", std::string("{\"consumerGroup\":\"") + kGroup +
                                                               "\",\"topic\":\"" + kTopic + "\",\"resetTime\":\"yesterday\"}");
  EXPECT_TRUE(contains(bad, "\"status\":-1") && contains(bad, "resetTime")) << bad;
  EXPECT_TRUE(contains(post("/topic/sendTopicMessage.do", "not json"), "not a JSON object"));
}

// The browser side's own protection: a login from a users file (viewers look, admins also act)
// over HTTPS with the test CA's certificate.
TEST_F(DashboardInBrowser, LoginAndHttpsKeepViewersFromActing) {
  write_file(dir_ / "users.properties", "# name=password[,1]\nboss=boss-pass-1,1\nwatcher=watch-pass-2\n");
  ASSERT_NO_FATAL_FAILURE(start_dashboard({"--users", dir_ / "users.properties", "--https-cert", dir_ / "server.pem",
                                           "--https-key", dir_ / "server.key"}));
  ASSERT_EQ(admin({"updateTopic", "-c", "DashCluster", "-t", kTopic}).status, 0);
  const std::string https = "https://127.0.0.1:" + std::to_string(http_port_);
  const std::string ca = dir_ / "ca.pem";
  RunResult r = curl({"-s", "-i", "--cacert", ca, https + "/cluster/list.query"});
  EXPECT_TRUE(contains(r.output, "HTTP/1.1 401")) << r.output;
  EXPECT_TRUE(contains(r.output, "WWW-Authenticate: Basic realm=\"Ferry dashboard\"")) << r.output;
  r = curl({"-s", "-i", "--cacert", ca, "-u", "watcher:not-it", https + "/"});
  EXPECT_TRUE(contains(r.output, "HTTP/1.1 401")) << r.output;
  r = curl({"-s", "--cacert", ca, "-u", "watcher:watch-pass-2", https + "/cluster/list.query"});
  EXPECT_TRUE(contains(r.output, "\"status\":0") && contains(r.output, "broker-a")) << r.output;
  const std::string send = std::string("{\"topic\":\"") + kTopic + "\",\"messageBody\":\"hi\"}";
  const std::string json = "Content-Type: application/json";
  r = curl({"-s", "-i", "--cacert", ca, "-u", "watcher:watch-pass-2", "-X", "POST", "-H", json, "-d", send,
            https + "/topic/sendTopicMessage.do"});
  EXPECT_TRUE(contains(r.output, "HTTP/1.1 403") && contains(r.output, "user watcher may look but not send")) << r.output;
  // A form post (what another site's page could make a logged-in browser send) is refused.
  r = curl({"-s", "-i", "--cacert", ca, "-u", "boss:boss-pass-1", "-X", "POST", "-H", "Content-Type: text/plain", "-d", send,
            https + "/topic/sendTopicMessage.do"});
  EXPECT_TRUE(contains(r.output, "HTTP/1.1 415") && contains(r.output, "application/json")) << r.output;
  r = curl({"-s", "--cacert", ca, "-u", "boss:boss-pass-1", "-X", "POST", "-H", json, "-d", send,
            https + "/topic/sendTopicMessage.do"});
  EXPECT_TRUE(contains(r.output, "SEND_OK")) << r.output;
  // A producer group's members, as mqadmin producerConnection lists them.
  Child producer(FERRY_MQBENCH_PATH,
                 {"produce", "-n", ns_addr(), "--tls-config", tls_, "-t", kTopic, "-g", "DashProducers", "--rate", "5", "-d", "60"},
                 dir_ / "producer.out");
  RunResult members;
  for (int attempt = 0; attempt < 40; ++attempt) {
    members = admin({"producerConnection", "-g", "DashProducers", "-t", kTopic});
    if (members.status == 0 && contains(members.output, "@")) break;
    std::this_thread::sleep_for(500ms);
  }
  std::smatch id;
  ASSERT_TRUE(std::regex_search(members.output, id, std::regex("[0-9.]+@[A-Za-z0-9_.-]+"))) << members.output;
  r = curl({"-s", "--cacert", ca, "-u", "watcher:watch-pass-2",
            https + "/producer/producerConnection.query?topic=" + kTopic + "&producerGroup=DashProducers"});
  EXPECT_TRUE(contains(r.output, "\"clientId\":\"" + id.str() + "\"")) << r.output << members.output;
  r = curl({"-s", "--cacert", ca, "-u", "watcher:watch-pass-2", https + "/producer/producerConnection.query?topic=" + kTopic});
  EXPECT_TRUE(contains(r.output, "missing parameter 'producerGroup'")) << r.output;

  // Plain HTTP on the HTTPS port gets no page.
  r = curl({"-s", "-u", "boss:boss-pass-1", "http://127.0.0.1:" + std::to_string(http_port_) + "/cluster/list.query"});
  EXPECT_FALSE(contains(r.output, "broker-a")) << r.output;

  // A bad users file stops the dashboard at start, naming the file and line.
  write_file(dir_ / "bad-users.properties", "boss=boss-pass-1,1\nwatcher=,1\n");
  r = run_to_exit(FERRY_MQDASHBOARD_PATH, {"-n", ns_addr(), "--users", dir_ / "bad-users.properties"}, dir_ / "bad.out", kCommand);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "bad-users.properties:2: user watcher: empty password")) << r.output;
}

}  // namespace
}  // namespace ferry::daemons_test
