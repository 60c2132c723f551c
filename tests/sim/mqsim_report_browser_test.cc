// The report page renders in a real browser: `mqsim run scenarios/latency-backoff.toml --report`
// writes the page, headless Chromium loads it (--dump-dom and --screenshot, as a user's browser
// would, from file://), and the test checks what a reader sees: a verdict row for every checker
// mqsim printed, the timeline the page's script drew (its <svg>, a lane per broker group and per
// consumer, the scenario's three fault windows, columns of sends), and a screenshot that is not
// blank (the colours of the ok sends and of the deliveries are painted). A second run of the
// same seed writes the same bytes.
//
// Chromium is the Debian package `chromium` (tools/bootstrap.sh installs it; CI runs that). When
// it is missing this test fails and says so: it does not skip. Runs as root in CI, hence
// --no-sandbox; the profile folder is a fresh one inside the build folder, removed when the test
// passes.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>


#include "tests/sim/png_pixels.h"
#include "tests/support/command_path.h"
#include "tests/support/temp_dir.h"

namespace ferry {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A fresh folder for this run's files, inside the build folder (REPORT_TEST_PARENT); removed when
// the binary exits unless a test kept it.
ferry::testing::TempDir& scratch() {
  static ferry::testing::TempDir dir("mqsim_report_test", REPORT_TEST_PARENT);
  return dir;
}
const std::string& scratch_dir() { return scratch().path(); }

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

class ReportInBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = ferry::testing::command_path("chromium");
    ASSERT_FALSE(chromium_.empty()) << "chromium is not installed, so the report page cannot be rendered: run "
                                       "tools/bootstrap.sh (it installs the Debian package chromium; CI does)";
    const char* source = std::getenv("FERRY_SOURCE_DIR");
    ASSERT_NE(source, nullptr) << "FERRY_SOURCE_DIR is not set (ctest sets it)";
    scenario_ = std::string(source) + "/scenarios/latency-backoff.toml";
  }

  // A passing run leaves nothing behind (the profile alone is a few MB); a failing one keeps its
  // folder (the page, the DOM, the screenshot, chromium's log) to look at.
  void TearDown() override {
    if (HasFailure()) {
      std::fprintf(stderr, "kept for inspection: %s\n", scratch_dir().c_str());
      scratch().keep();
    }
  }

  // Chromium on the page, headless, with `what` (--dump-dom or --screenshot=...); its own output
  // goes to `out`. Returns its exit code.
  int chromium(const std::string& what, const std::string& out, const std::string& page) {
    const std::string dir = scratch_dir();
    return shell("timeout 180 " + chromium_ + " --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir=" + dir +
                 "/chromium-profile --window-size=1400,1200 " + what + " file://" + page + " > " + out + " 2>> " + dir +
                 "/chromium.log");
  }

  std::string chromium_;
  std::string scenario_;
};

TEST_F(ReportInBrowser, LatencyBackoffPageShowsVerdictsLanesAndWindows) {
  const std::string dir = scratch_dir();
  const std::string page = dir + "/latency-backoff.html";
  const int ran = shell(std::string(MQSIM_PATH) + " run " + scenario_ + " --report " + page + " > " + dir + "/mqsim.out 2>&1");
  const std::string printed = read_file(dir + "/mqsim.out");
  ASSERT_EQ(ran, 0) << printed;
  ASSERT_NE(printed.find("report: " + page), std::string::npos) << "mqsim did not say where the page went:\n" << printed;
  // The same run gives the same page, byte for byte.
  const std::string again = dir + "/latency-backoff-again.html";
  ASSERT_EQ(shell(std::string(MQSIM_PATH) + " run " + scenario_ + " --report " + again + " > /dev/null 2>&1"), 0);
  EXPECT_EQ(read_file(page), read_file(again)) << "two runs of one seed wrote different pages";

  // The checkers mqsim printed ("  lost-acked: PASS acked=..."): each must have its row.
  std::set<std::string> checkers;
  const std::regex verdict_line(R"(^  ([a-z_-]+): (PASS|FAIL))");
  std::istringstream lines(printed);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, verdict_line) && m[1] != "liveness" && m[1] != "trace-hash") checkers.insert(m[1]);
  }
  ASSERT_GE(checkers.size(), 5u) << printed;

  const std::string dom_path = dir + "/latency-backoff.dom.html";
  ASSERT_EQ(chromium("--dump-dom", dom_path, page), 0) << read_file(dir + "/chromium.log");
  const std::string dom = read_file(dom_path);
  ASSERT_FALSE(dom.empty()) << "chromium dumped no DOM; its log:\n" << read_file(dir + "/chromium.log");

  EXPECT_EQ(count(dom, "<tr class=\"verdict "), checkers.size()) << dom.substr(0, 4000);
  for (const std::string& c : checkers) {
    EXPECT_NE(dom.find("<tr class=\"verdict pass\" data-checker=\"" + c + "\">"), std::string::npos) << "no passing row for " << c;
  }
  EXPECT_NE(dom.find(">PASS</span>"), std::string::npos) << "the header's badge";

  // Drawn by the page's script (the page as written has none of these).
  EXPECT_EQ(count(read_file(page), "id=\"timeline-svg\""), 0u);
  ASSERT_NE(dom.find("<svg id=\"timeline-svg\""), std::string::npos) << "the script did not draw the timeline:\n"
                                                                      << read_file(dir + "/chromium.log");
  EXPECT_EQ(count(dom, "data-kind=\"broker\""), 2u) << "one lane per broker group";
  EXPECT_NE(dom.find("data-kind=\"broker\" data-name=\"broker-a\""), std::string::npos);
  EXPECT_NE(dom.find("data-kind=\"broker\" data-name=\"broker-b\""), std::string::npos);
  EXPECT_EQ(count(dom, "data-kind=\"consumer\""), 1u) << "one lane per consumer";
  EXPECT_NE(dom.find("data-kind=\"consumer\" data-name=\"consumer-0\""), std::string::npos);
  EXPECT_EQ(count(dom, "<g class=\"window\">"), 3u) << "the three scheduled faults of broker-b";
  EXPECT_NE(dom.find("10s clog broker-b / producer-0"), std::string::npos);
  EXPECT_GT(count(dom, "<g class=\"col\">"), 100u) << "columns of sends and deliveries";

  const std::string png_path = dir + "/latency-backoff.png";
  ASSERT_EQ(chromium("--screenshot=" + png_path, dir + "/screenshot.out", page), 0) << read_file(dir + "/chromium.log");
  Result<testing::RgbImage> img = testing::decode_png(read_file(png_path));
  ASSERT_TRUE(img.ok()) << png_path << ": " << img.error().to_string();
  EXPECT_EQ(img->width, 1400u);
  EXPECT_EQ(img->height, 1200u);  // tall enough for the verdict table (one row per checker) and the lanes
  std::set<std::uint32_t> colours(img->pixels.begin(), img->pixels.end());
  std::size_t ok_green = 0, first_blue = 0;
  for (std::uint32_t p : img->pixels) {
    ok_green += p == 0x2e7d32 ? 1 : 0;    // .s-ok: sends stored with SEND_OK (and the PASS badge)
    first_blue += p == 0x1565c0 ? 1 : 0;  // .s-first: first deliveries
  }
  EXPECT_GT(colours.size(), 32u) << "a blank or nearly blank screenshot";
  // (A 14-minute run at 1400 px: columns of 750 ms, each a thin bar; an unpainted lane has none.)
  EXPECT_GT(ok_green, 800u) << "the broker lanes' ok columns are not painted";
  EXPECT_GT(first_blue, 800u) << "the consumer lane's columns are not painted";
}

}  // namespace
}  // namespace ferry
