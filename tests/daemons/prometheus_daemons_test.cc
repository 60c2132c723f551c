// A real Prometheus (Debian's `prometheus`) scraping real daemons: a NameServer and an
// ASYNC_MASTER / SLAVE pair, each with metricsExporterType=PROM, the example rules of
// conf/prometheus/ferry-alerts.yml loaded (their `for:` shortened to 1 s so the test need not wait
// minutes). Asked through its HTTP API (PromQL), as an operator's dashboard asks it:
//   * the produce rate while mqbench sends at a fixed --rate, and the total it counted, against
//     mqbench's own count;
//   * a consumer group's lag once its consumer stopped and more was sent, against `mqadmin
//     consumerProgress`'s Diff Total; the FerryConsumerLag alert fires;
//   * the replication lag of a paused (SIGSTOP) slave, against `mqadmin haStatus`'s #Diff, and
//     back to zero once the slave runs again.
// Skipped when no `prometheus` binary is installed (tools/bootstrap.sh installs it for CI).
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <signal.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <filesystem>
#include <functional>
#include <regex>
#include <thread>

#include "tests/daemons/daemon_process.h"
#include "tests/daemons/mqadmin_output.h"

namespace ferry::daemons_test {
namespace {

using namespace std::chrono_literals;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

constexpr auto kReady = 15s;
constexpr const char* kTopic = "PromT";
constexpr const char* kGroup = "PromCG";

std::string mqadmin_path() { return FERRY_MQADMIN_PATH; }
std::string mqbench_path() { return FERRY_MQBENCH_PATH; }
std::string source_dir() {
  const char* env = std::getenv("FERRY_SOURCE_DIR");
  return env != nullptr ? env : FERRY_SOURCE_DIR_PATH;
}
std::string prometheus_path() {
  for (const char* p : {"/usr/bin/prometheus", "/usr/local/bin/prometheus"}) {
    if (std::filesystem::exists(p)) return p;
  }
  return "";
}
std::string addr(std::uint16_t port) { return "127.0.0.1:" + std::to_string(port); }

// GET http://127.0.0.1:port{target}: the status and body ({-1, why} when it could not ask).
std::pair<int, std::string> http_get(std::uint16_t port, const std::string& target) {
  try {
    asio::io_context ioc;
    beast::tcp_stream stream(ioc);
    stream.expires_after(10s);
    stream.connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
    http::request<http::empty_body> req{http::verb::get, target, 11};
    req.set(http::field::host, "127.0.0.1");
    http::write(stream, req);
    beast::flat_buffer buffer;
    http::response<http::string_body> res;
    http::read(stream, buffer, res);
    return {static_cast<int>(res.result_int()), res.body()};
  } catch (const std::exception& e) {
    return {-1, e.what()};
  }
}

std::string url_encode(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

class PrometheusDaemonsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (prometheus_path().empty()) GTEST_SKIP() << "no prometheus binary (apt install prometheus; tools/bootstrap.sh does)";
  }

  // A daemon's metrics port, chosen apart from every port picked before.
  std::uint16_t metrics_port() {
    std::uint16_t p;
    do {
      p = free_port();
    } while (std::find(taken_.begin(), taken_.end(), p) != taken_.end() ||
             std::find(taken_.begin(), taken_.end(), static_cast<std::uint16_t>(p - 1)) != taken_.end());
    taken_.push_back(p);
    return p;
  }

  void start_namesrv() {
    ns_port_ = free_port();
    taken_.push_back(ns_port_);
    ns_metrics_ = metrics_port();
    const std::string conf = dir_ / "namesrv.conf";
    write_file(conf, "listenPort=" + std::to_string(ns_port_) + "\nlistenAddress=127.0.0.1\ndataDir=" + (dir_ / "ns") +
                         "\nmetricsExporterType=PROM\nmetricsPromExporterPort=" + std::to_string(ns_metrics_) + "\n");
    namesrv_ = std::make_unique<Child>(mqnamesrv_path(), std::vector<std::string>{"-c", conf}, dir_ / "namesrv.out");
    ASSERT_TRUE(wait_for_port(ns_port_, kReady)) << namesrv_->output();
    ASSERT_TRUE(wait_for_port(ns_metrics_, kReady)) << namesrv_->output();
  }

  std::unique_ptr<Child> start_broker(const std::string& example, const std::string& name, std::uint16_t port,
                                      std::uint16_t metrics) {
    const std::string conf = dir_ / (name + ".conf");
    write_file(conf, conf_from_example(source_dir() + "/conf/" + example,
                                       {{"namesrvAddr", addr(ns_port_)},
                                        {"brokerIP1", "127.0.0.1"},
                                        {"listenPort", std::to_string(port)},
                                        {"haListenPort", std::to_string(port + 1)},
                                        {"storePathRootDir", dir_ / name},
                                        {"mappedFileSizeCommitLog", "1048576"},
                                        {"maxMessageSize", "65536"},
                                        {"metricsExporterType", "PROM"},
                                        {"metricsPromExporterPort", std::to_string(metrics)}}));
    auto child = std::make_unique<Child>(mqbroker_path(), std::vector<std::string>{"-c", conf}, dir_ / (name + ".out"));
    EXPECT_TRUE(wait_for_port(port, kReady)) << child->output();
    EXPECT_TRUE(wait_for_port(metrics, kReady)) << child->output();
    return child;
  }

  // Prometheus scraping the three daemons every second, with the example rules (`for:` 1 s).
  void start_prometheus() {
    std::string rules = read_file(source_dir() + "/conf/prometheus/ferry-alerts.yml");
    rules = std::regex_replace(rules, std::regex(R"(for: *\d+[smh])"), "for: 1s");
    write_file(dir_ / "ferry-alerts.yml", rules);
    write_file(dir_ / "prometheus.yml",
               "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
               "rule_files:\n  - " + (dir_ / "ferry-alerts.yml") + "\n"
               "scrape_configs:\n"
               "  - job_name: ferry-broker\n    static_configs:\n      - targets: [\"" + addr(master_metrics_) + "\", \"" +
                   addr(slave_metrics_) + "\"]\n"
               "  - job_name: ferry-namesrv\n    static_configs:\n      - targets: [\"" + addr(ns_metrics_) + "\"]\n");
    prom_port_ = metrics_port();
    prometheus_ = std::make_unique<Child>(
        prometheus_path(),
        std::vector<std::string>{"--config.file=" + (dir_ / "prometheus.yml"), "--storage.tsdb.path=" + (dir_ / "tsdb"),
                                 "--web.listen-address=" + addr(prom_port_), "--log.level=warn"},
        dir_ / "prometheus.out");
    ASSERT_TRUE(wait_for_port(prom_port_, 30s)) << prometheus_->output();
    // Every target up.
    ASSERT_TRUE(wait_until([&] { return instant("sum(up{job=~\"ferry-.*\"})") == 3; }, 30s))
        << "targets not up: " << query("up") << "\n" << prometheus_->output();
  }

  // The result of an instant PromQL query, as JSON text.
  std::string query(const std::string& promql) {
    auto [status, body] = http_get(prom_port_, "/api/v1/query?query=" + url_encode(promql));
    return status == 200 ? body : "HTTP " + std::to_string(status) + ": " + body;
  }
  // The value of a query whose result is one sample, or nullopt (none, several, an error).
  std::optional<double> instant(const std::string& promql) {
    rapidjson::Document d;
    const std::string body = query(promql);
    if (d.Parse(body.c_str()).HasParseError() || !d.IsObject() || !d.HasMember("data")) return std::nullopt;
    const auto& result = d["data"]["result"];
    if (!result.IsArray() || result.Size() != 1) return std::nullopt;
    return std::stod(result[0]["value"][1].GetString());
  }
  // Whether `alert` is firing with the label consumer_group=`group` (ALERTS series).
  bool firing(const std::string& alert, const std::string& group) {
    return instant("count(ALERTS{alertname=\"" + alert + "\",alertstate=\"firing\",consumer_group=\"" + group + "\"})") == 1;
  }
  static bool wait_until(const std::function<bool()>& ok, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (ok()) return true;
      std::this_thread::sleep_for(250ms);
    }
    return ok();
  }
  // Waits until Prometheus scraped the master after this call (a scrape newer than now).
  void wait_fresh_scrape() {
    const auto since = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    ASSERT_TRUE(wait_until(
        [&] {
          auto t = instant("timestamp(up{instance=\"" + addr(master_metrics_) + "\"})");
          return t && *t > since + 0.1;
        },
        20s));
  }

  RunResult admin(std::vector<std::string> args) {
    args.insert(args.end(), {"-n", addr(ns_port_)});
    return run_to_exit(mqadmin_path(), args, dir_ / ("mqadmin-" + std::to_string(++runs_) + ".out"), 30s);
  }
  RunResult bench(std::vector<std::string> args) {
    args.insert(args.end(), {"-n", addr(ns_port_)});
    return run_to_exit(mqbench_path(), args, dir_ / ("mqbench-" + std::to_string(++runs_) + ".out"), 120s);
  }

  TempDir dir_;
  std::vector<std::uint16_t> taken_;
  std::uint16_t ns_port_ = 0, ns_metrics_ = 0, master_port_ = 0, master_metrics_ = 0, slave_port_ = 0,
                slave_metrics_ = 0, prom_port_ = 0;
  std::unique_ptr<Child> namesrv_, master_, slave_, prometheus_;
  int runs_ = 0;
};

// The number after `label` in mqbench's or mqadmin's output, or -1.
long long number_after(const std::string& output, const std::string& label) {
  std::smatch m;
  if (!std::regex_search(output, m, std::regex(label + R"(\s+(\d+))"))) return -1;
  return std::stoll(m[1].str());
}

TEST_F(PrometheusDaemonsTest, RatesLagAndReplicationLagMatchMqbenchAndMqadminAndTheLagAlertFires) {
  start_namesrv();
  if (HasFailure()) return;
  do {
    master_port_ = free_broker_port();
    slave_port_ = free_broker_port();
  } while (slave_port_ + 1 >= master_port_ && slave_port_ <= master_port_ + 1);
  taken_.insert(taken_.end(), {master_port_, static_cast<std::uint16_t>(master_port_ + 1), slave_port_,
                               static_cast<std::uint16_t>(slave_port_ + 1)});
  master_metrics_ = metrics_port();
  slave_metrics_ = metrics_port();
  master_ = start_broker("2m-2s-async-master.conf", "master", master_port_, master_metrics_);
  RunResult r = admin({"updateTopic", "-t", kTopic, "-c", "DefaultCluster", "-r", "4", "-w", "4"});
  ASSERT_EQ(r.status, 0) << r.output;
  slave_ = start_broker("2m-2s-async-slave.conf", "slave", slave_port_, slave_metrics_);
  start_prometheus();
  if (HasFailure()) return;
  const std::string master = "instance=\"" + addr(master_metrics_) + "\"";

  // 1. The produce rate while mqbench sends 300 messages a second for 8 s, with a consumer.
  std::optional<double> rate_seen;
  std::thread watcher([&] {
    std::this_thread::sleep_for(6s);  // a 4 s window inside the run, well past its start
    rate_seen = instant("sum(rate(rocketmq_messages_in_total{" + master + ",topic=\"" + kTopic + "\"}[4s]))");
  });
  r = bench({"e2e", "-t", kTopic, "--rate", "300", "-d", "8", "--consumer-group", kGroup, "--from", "first"});
  watcher.join();
  ASSERT_EQ(r.status, 0) << r.output;
  const long long sent = number_after(r.output, "sent ok");
  ASSERT_GT(sent, 0) << r.output;
  ASSERT_TRUE(rate_seen.has_value()) << query("rocketmq_messages_in_total");
  EXPECT_GT(*rate_seen, 300 * 0.6) << "Prometheus' rate during a run at 300 msg/s";
  EXPECT_LT(*rate_seen, 300 * 1.4) << "Prometheus' rate during a run at 300 msg/s";
  wait_fresh_scrape();
  EXPECT_EQ(instant("sum(rocketmq_messages_in_total{" + master + ",topic=\"" + kTopic + "\"})"), static_cast<double>(sent))
      << "the broker counted every message mqbench sent, no more";
  EXPECT_EQ(instant("sum(rocketmq_messages_out_total{" + master + ",topic=\"" + kTopic + "\",consumer_group=\"" + kGroup + "\"})"),
            static_cast<double>(sent))
      << "the consumer got every message once";

  // 2. The consumer is gone; 1,500 more messages make its lag, which consumerProgress shows too.
  r = bench({"produce", "-t", kTopic, "--messages", "1500", "-m", "sync"});
  ASSERT_EQ(r.status, 0) << r.output;
  r = admin({"consumerProgress", "-g", kGroup, "-t", kTopic});
  ASSERT_EQ(r.status, 0) << r.output;
  const long long diff_total = number_after(r.output, "Diff Total:");
  EXPECT_GE(diff_total, 1500) << r.output;
  wait_fresh_scrape();
  EXPECT_EQ(instant("sum(rocketmq_consumer_lag_messages{" + master + ",consumer_group=\"" + kGroup + "\",topic=\"" + kTopic + "\"})"),
            static_cast<double>(diff_total))
      << query("rocketmq_consumer_lag_messages");
  EXPECT_TRUE(wait_until([&] { return firing("FerryConsumerLag", kGroup); }, 30s))
      << "FerryConsumerLag did not fire: " << query("ALERTS") << "\n" << prometheus_->output();

  // 3. A paused slave falls behind by what is sent meanwhile; haStatus (asked of the master only:
  // the slave cannot answer) shows the same bytes.
  slave_->signal(SIGSTOP);
  r = bench({"produce", "-t", kTopic, "--messages", "300", "-m", "sync"});
  ASSERT_EQ(r.status, 0) << r.output;
  r = admin({"haStatus", "-b", addr(master_port_)});
  ASSERT_EQ(r.status, 0) << r.output;
  std::vector<std::vector<std::string>> links;  // the connection table's rows (not the counters line after it)
  for (auto& row : table_rows(r.output, "#SlaveAddr")) {
    if (row.size() == 6 && row[0].rfind("127.0.0.1:", 0) == 0) links.push_back(std::move(row));
  }
  ASSERT_EQ(links.size(), 1u) << r.output;
  const long long diff = std::stoll(links[0][2]);
  EXPECT_GT(diff, 0) << r.output;
  wait_fresh_scrape();
  EXPECT_EQ(instant("sum(ferry_ha_slave_lag_bytes{" + master + "})"), static_cast<double>(diff))
      << query("ferry_ha_slave_lag_bytes") << "\n" << r.output;
  slave_->signal(SIGCONT);
  EXPECT_TRUE(wait_until([&] { return instant("sum(ferry_ha_slave_lag_bytes{" + master + "})") == 0.0; }, 30s))
      << "the slave caught up: " << query("ferry_ha_slave_lag_bytes");

  // The NameServer's own series: it knows both brokers.
  EXPECT_EQ(instant("ferry_namesrv_brokers_live"), 2) << query("ferry_namesrv_brokers_live");
}

}  // namespace
}  // namespace ferry::daemons_test
