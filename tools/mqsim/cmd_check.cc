// mqsim check HISTORY_FILE [--report FILE.html]: loads a history (json when the name ends in
// .json, else binary), runs every checker with the settings the history carries, prints one line
// per checker with its figures (and the first violation of a failed one), then "N passed, M
// failed". With --report, also one HTML page (sim/report/html_report.h) laid out from the
// history alone: a lane per broker group and consumer it mentions, fault windows from its events.
#include <fmt/format.h>

#include <cstdio>
#include <optional>

#include "sim/check/checkers.h"
#include "sim/io/history_file.h"
#include "sim/report/html_report.h"
#include "tools/mqsim/command.h"
#include "tools/mqsim/report_file.h"

namespace ferry::mqsim {

namespace {

constexpr const char* kCheckUsage =
    "usage: mqsim check HISTORY_FILE [--report FILE.html]\n"
    "Runs every checker on a recorded history (HISTORY_FILE.json: json; any other name: binary)\n"
    "and prints one line per checker with its figures. --report FILE.html also writes an HTML page\n"
    "with the verdicts and a timeline laid out from the history. Exit 0 when all pass, 1 when one\n"
    "fails or a file cannot be read or written, 2 on bad usage.\n";

}  // namespace

int run_check(const std::vector<std::string>& args) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::fputs(kCheckUsage, stdout);
    return kExitOk;
  }
  std::optional<std::string> file, report;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--report" && i + 1 < args.size() && !args[i + 1].empty()) {
      report = args[++i];
    } else if (args[i].empty() || args[i][0] == '-' || file) {
      std::fputs(kCheckUsage, stderr);
      return kExitUsage;
    } else {
      file = args[i];
    }
  }
  if (!file) {
    std::fputs(kCheckUsage, stderr);
    return kExitUsage;
  }
  Result<sim::History> h = sim::io::load_history_file(*file);
  if (!h.ok()) {
    std::fputs(fmt::format("mqsim check: {}\n", h.error().to_string()).c_str(), stderr);
    return kExitFailed;
  }
  const std::vector<sim::check::Verdict> verdicts = sim::check::run_all_checks(*h);
  std::size_t failed = 0;
  for (const sim::check::Verdict& v : verdicts) {
    std::fputs((v.to_line() + "\n").c_str(), stdout);
    failed += v.passed ? 0 : 1;
  }
  std::fputs(fmt::format("{} passed, {} failed ({} sends, {} deliveries, {} events)\n", verdicts.size() - failed, failed, h->sends.size(),
                         h->consumes.size(), h->events.size())
                 .c_str(),
             stdout);
  if (report) {
    const sim::report::ReportModel model = sim::report::model_from_history(*h, *file, verdicts);
    if (Status st = save_report(*report, sim::report::render_html_report(model)); !st.ok()) {
      std::fputs(fmt::format("mqsim check: report not written: {}\n", st.error().to_string()).c_str(), stderr);
      return kExitFailed;
    }
    std::fputs(fmt::format("report: {}\n", *report).c_str(), stdout);
  }
  return failed == 0 ? kExitOk : kExitFailed;
}

}  // namespace ferry::mqsim
