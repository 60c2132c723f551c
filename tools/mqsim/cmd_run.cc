// mqsim run FILE [--seed N | --seeds A..B] [--swarm] [--check-determinism] [--history FILE]
//                [--report FILE.html] [--log-level LEVEL] [--real [--keep]] [--length D]
// Runs a scenario file (docs/scenarios.md) on each seed: one line per checker with its figures,
// the trace hash, simulated and real time; on a failure the first violation, the nodes' log lines
// around it (log_window.h), the history saved (always) and the one command that replays the seed;
// with --report, one HTML page a seed (sim/report/html_report.h) and where it went; with a seed
// range on a terminal, a progress line on stderr. Exit 0 only when every seed passes.
// With --real, each seed runs on real processes in network namespaces (sim/real/real_runner.h),
// in real time, judged by the same checkers.
#include <fmt/format.h>

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "runtime/log.h"
#include "sim/io/history_file.h"
#include "sim/io/scenario_file.h"
#include "sim/real/real_runner.h"
#include "sim/report/html_report.h"
#include "sim/scenario/duration_text.h"
#include "sim/scenario/runner.h"
#include "sim/swarm.h"
#include "tools/mqsim/command.h"
#include "tools/mqsim/log_window.h"
#include "tools/mqsim/report_file.h"

namespace ferry::mqsim {

namespace {

constexpr const char* kRunUsage =
    "usage: mqsim run FILE [--seed N | --seeds A..B] [--swarm] [--check-determinism] [--history FILE]\n"
    "                      [--report FILE.html] [--log-level trace|debug|info|warn|error|off] [--real [--keep]]\n"
    "                      [--length D]\n"
    "Runs a scenario file on each seed (default: seed 1) and judges it with every checker.\n"
    "  --seed N              one seed\n"
    "  --seeds A..B          every seed from A to B\n"
    "  --swarm               draw the world's fault probabilities from each seed (sim/swarm.h),\n"
    "                        whatever the file's run.swarm says\n"
    "  --check-determinism   run each seed twice; a different trace hash fails the seed\n"
    "  --history FILE        save each seed's history (FILE.json: json, else binary; with several\n"
    "                        seeds the seed goes before the extension); a failed seed's history is\n"
    "                        always saved, as mqsim-NAME-seedN.json\n"
    "  --report FILE.html    write each seed's report: one self-contained HTML page (verdicts and a\n"
    "                        timeline of sends, deliveries, faults); with several seeds the seed goes\n"
    "                        before the extension (FILE-seedN.html)\n"
    "  --log-level LEVEL     the nodes' printed log level (default warn); a failed seed also shows\n"
    "                        its nodes' lines at info and above around the first violation\n"
    "  --real                run on real processes, in real time: mqnamesrv and mqbroker (beside this\n"
    "                        mqsim) each in a network namespace of its own, faults done by the kernel\n"
    "                        (root only; `mqsim list --real` says which files can)\n"
    "  --keep                with --real: keep the run's folder (configs, stores, daemon logs) even\n"
    "                        when it passes or is interrupted (a failed run's is always kept)\n"
    "  --length D            cut the story at D (e.g. 4m): the run ends there, producers send what\n"
    "                        they would have sent by then, later faults are dropped; the checks stay\n"
    "Exit 0 when every seed passes, 1 when one fails, 2 on bad usage.\n";

std::optional<std::uint64_t> number(std::string_view text) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

int usage(const std::string& why) {
  std::fputs(fmt::format("mqsim run: {}\n{}", why, kRunUsage).c_str(), stderr);
  return kExitUsage;
}

// FILE for one seed of several: "h.json" -> "h.seed7.json".
std::string per_seed(const std::string& file, std::uint64_t seed, bool several) {
  if (!several) return file;
  const auto slash = file.rfind('/');
  const auto dot = file.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return fmt::format("{}.seed{}", file, seed);
  return fmt::format("{}.seed{}{}", file.substr(0, dot), seed, file.substr(dot));
}

// What the command line asked for.
struct RunFlags {
  std::string file;
  std::optional<std::string> history, report;
  std::uint64_t first = 1, last = 1;
  bool swarm = false, determinism = false;
  bool real = false, keep = false;
  std::optional<Duration> length;  // --length: the story cut there (scenario.h cut_to_length)
  std::string length_text;
};

// The flags of `args`, or the exit code (usage printed, or --help answered).
std::variant<RunFlags, int> parse_run_flags(const std::vector<std::string>& args) {
  RunFlags f;
  std::optional<std::string> file;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= args.size()) return std::nullopt;
      return args[++i];
    };
    if (a == "--help" || a == "-h") {
      std::fputs(kRunUsage, stdout);
      return kExitOk;
    } else if (a == "--seed") {
      auto v = value();
      auto n = v ? number(*v) : std::nullopt;
      if (!n) return usage("--seed needs a number");
      f.first = f.last = *n;
    } else if (a == "--seeds") {
      auto v = value();
      const auto dots = v ? v->find("..") : std::string::npos;
      auto a0 = dots != std::string::npos ? number(std::string_view(*v).substr(0, dots)) : std::nullopt;
      auto b0 = dots != std::string::npos ? number(std::string_view(*v).substr(dots + 2)) : std::nullopt;
      if (!a0 || !b0 || *a0 > *b0 || *b0 - *a0 >= 100'000) return usage("--seeds needs A..B with A <= B (at most 100000 seeds)");
      f.first = *a0;
      f.last = *b0;
    } else if (a == "--swarm") {
      f.swarm = true;
    } else if (a == "--check-determinism") {
      f.determinism = true;
    } else if (a == "--real") {
      f.real = true;
    } else if (a == "--keep") {
      f.keep = true;
    } else if (a == "--length") {
      auto v = value();
      if (!v) return usage("--length needs a duration (4m, 90s)");
      Result<Duration> d = sim::scenario::parse_duration(*v);
      if (!d.ok() || *d <= Duration{}) return usage(fmt::format("--length {}: {}", *v, d.ok() ? "must be more than 0s" : d.error().detail));
      f.length = *d;
      f.length_text = *v;
    } else if (a == "--history") {
      f.history = value();
      if (!f.history || f.history->empty()) return usage("--history needs a file name");
    } else if (a == "--report") {
      f.report = value();
      if (!f.report || f.report->empty()) return usage("--report needs a file name");
    } else if (a == "--log-level") {
      auto v = value();
      if (!v) return usage("--log-level needs a level");
      const auto level = spdlog::level::from_str(*v);
      if (level == spdlog::level::off && *v != "off") return usage("unknown log level '" + *v + "'");
      set_default_log_level(level);
    } else if (!a.empty() && a[0] == '-') {
      return usage("unknown flag " + a);
    } else if (file) {
      return usage("one scenario file at a time");
    } else {
      file = a;
    }
  }
  if (!file) return usage("which scenario file?");
  if (f.real && (f.swarm || f.determinism)) return usage("--real runs the machine's own world: no --swarm, no --check-determinism");
  if (f.keep && !f.real) return usage("--keep goes with --real");
  if (std::find(args.begin(), args.end(), "--log-level") == args.end()) set_default_log_level(spdlog::level::warn);
  f.file = *file;
  return f;
}

// One seed of `s`, run and judged: its lines for stdout, and whether it passed.
struct SeedResult {
  std::string out;
  bool passed = false;
  std::vector<std::string> failed_checks;  // checker names, "liveness", "determinism", "run", "report"
  std::string replay;                      // the command that replays the seed
};

// Set by SIGINT / SIGTERM during a --real run: the run stops everything it started and says so.
std::atomic<bool> g_interrupted{false};

extern "C" void on_interrupt(int) { g_interrupted.store(true); }

// The folder this mqsim was started from (mqnamesrv and mqbroker are built beside it).
std::string own_folder() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : self.parent_path().string();
}

sim::scenario::RunOutcome run_for_real(const sim::scenario::Scenario& s, std::uint64_t seed, const RunFlags& f, std::string& notes,
                                       bool& keep_folder, std::string& folder) {
  sim::real::RealRunOptions o;
  o.bin_dir = own_folder();
  o.work_dir = fmt::format("/tmp/mqsim-real-{}-{}-seed{}", s.name, getpid(), seed);
  LogSettings log = default_log_settings();
  o.client_log = log;
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  struct sigaction old_int {}, old_term {};
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  sim::real::RealRunReport report;
  sim::scenario::RunOutcome run = sim::real::run_real(s, seed, o, &g_interrupted, &report);
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  folder = report.work_dir;
  keep_folder = f.keep;
  if (!report.network.empty()) notes += fmt::format("  real: {}\n", report.network);
  return run;
}

SeedResult run_seed(const sim::scenario::Scenario& s, const RunFlags& f, std::uint64_t seed) {
  const bool several = f.last > f.first;
  const auto t0 = std::chrono::steady_clock::now();
  std::string notes, folder;
  bool keep_folder = false;
  sim::scenario::RunOutcome run =
      f.real ? run_for_real(s, seed, f, notes, keep_folder, folder) : sim::scenario::run_scenario(s, seed);
  const double real_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string failure = run.first_failure();
  std::vector<std::string> failed_checks;
  if (run.error) failed_checks.emplace_back("run");
  if (!run.error && (!run.live.missing.empty() || (!run.live.converged && run.live.took != Duration{}))) {
    failed_checks.emplace_back("liveness");
  }
  for (const sim::check::Verdict& v : run.verdicts) {
    if (!v.passed) failed_checks.push_back(v.name);
  }
  std::string out = fmt::format("== {} seed {}{}\n", s.name, seed, f.real ? " (real processes)" : s.run.swarm ? " (swarm)" : "");
  if (s.run.swarm && !f.real) out += fmt::format("  world: {}\n", sim::describe_world(sim::scenario::world_options(s, seed)));
  out += notes;
  for (const sim::check::Verdict& v : run.verdicts) out += "  " + v.to_line() + "\n";
  if (f.real) {
    if (!run.error) out += fmt::format("  liveness: {}\n", run.live.to_string());
    out += fmt::format("  ran {:.1f} s of real time\n", real_s);
  } else if (!run.error) {
    out += fmt::format("  liveness: {}\n", run.live.to_string());
    out += fmt::format("  trace-hash: {:016x}\n  simulated {:.1f} s in {:.2f} s real\n", run.trace_hash,
                       static_cast<double>(to_ms(run.simulated)) / 1000.0, real_s);
  }
  if (f.determinism && !run.error) {
    const sim::scenario::RunOutcome again = sim::scenario::run_scenario(s, seed);
    if (again.trace_hash != run.trace_hash) {
      failed_checks.emplace_back("determinism");
      if (failure.empty()) {
        failure = fmt::format("not deterministic: trace hashes {:016x} and {:016x}", run.trace_hash, again.trace_hash);
      }
    }
    out += fmt::format("  determinism: {}\n", again.trace_hash == run.trace_hash ? "same trace hash twice" : "DIFFERENT");
  }
  std::optional<std::string> saved;
  if (f.history) saved = per_seed(*f.history, seed, several);
  if (!failure.empty() && !saved) saved = fmt::format("mqsim-{}-seed{}.json", s.name, seed);
  if (saved && run.history) {
    if (Status st = sim::io::save_history_file(*saved, *run.history); st.ok()) {
      out += fmt::format("  history: {} (mqsim check {})\n", *saved, *saved);
    } else {
      out += fmt::format("  history not saved: {}\n", st.error().to_string());
    }
  }
  if (f.report) {
    const std::string page = report_path(*f.report, seed, several);
    sim::report::ReportModel model = sim::report::model_from_run(s, run, f.file);
    model.real = f.real;
    if (Status st = save_report(page, sim::report::render_html_report(model)); st.ok()) {
      out += fmt::format("  report: {}\n", page);
    } else {
      out += fmt::format("  report not written: {}\n", st.error().to_string());
      failed_checks.emplace_back("report");
      if (failure.empty()) failure = "report not written";
    }
  }
  if (!folder.empty()) {
    // An interrupted run (Ctrl-C, or the test script that started it stopping) found nothing: its
    // folder, whose stores are hundreds of MiB, goes as a passed run's does.
    const bool interrupted = f.real && g_interrupted.load();
    if ((failure.empty() || interrupted) && !keep_folder) {
      std::error_code ec;
      std::filesystem::remove_all(folder, ec);
      if (interrupted) out += fmt::format("  run folder removed (interrupted; --keep keeps it): {}\n", folder);
    } else {
      out += fmt::format("  run folder (configs, stores, daemon logs): {}\n", folder);
    }
  }
  if (failure.empty()) {
    out += "  PASSED\n";
    return SeedResult{std::move(out), true, {}, {}};
  }
  out += fmt::format("  FAILED: {}\n", failure);
  // What the nodes said around the first violation, whatever --log-level printed.
  if (const std::optional<MonoTime> at = first_violation_time(run)) out += format_log_window(run.recent_logs, *at);
  std::string replay = fmt::format("build/bin/mqsim run {} --seed {}{}{}", f.file, seed, f.real ? " --real" : f.swarm ? " --swarm" : "",
                                   f.length ? " --length " + f.length_text : std::string());
  out += fmt::format("  replay: {}\n", replay);
  return SeedResult{std::move(out), false, std::move(failed_checks), std::move(replay)};
}

// After several seeds: for each check that failed, on how many seeds, and the replay of the first
// (issue 41: a sweep under --swarm says which checks a file's bounds do not survive).
struct CheckFailures {
  std::size_t seeds = 0;
  std::string first_replay;
};

std::string failures_by_check(const std::map<std::string, CheckFailures>& by_check) {
  std::string out = "failed checks:\n";
  for (const auto& [check, fails] : by_check) {
    out += fmt::format("  {}: {} seed{} (first: {})\n", check, fails.seeds, fails.seeds == 1 ? "" : "s", fails.first_replay);
  }
  return out;
}

}  // namespace

int run_run(const std::vector<std::string>& args) {
  std::variant<RunFlags, int> parsed = parse_run_flags(args);
  if (const int* code = std::get_if<int>(&parsed)) return *code;
  const RunFlags& f = std::get<RunFlags>(parsed);
  auto loaded = sim::io::load_scenario(f.file);
  if (!loaded.ok()) {
    std::fputs(fmt::format("mqsim run: {}\n", loaded.error().detail).c_str(), stderr);
    return kExitFailed;
  }
  sim::scenario::Scenario s = std::move(*loaded);
  if (f.swarm) s.run.swarm = true;
  if (f.length) {
    const Duration whole = s.run.length;
    const std::size_t dropped = sim::scenario::cut_to_length(s, *f.length);
    if (*f.length < whole) {
      std::fputs(fmt::format("{}: cut at {} of {} (--length): producers send until then, {} fault{} dropped\n", s.name,
                             sim::scenario::format_duration(*f.length), sim::scenario::format_duration(whole), dropped,
                             dropped == 1 ? "" : "s")
                     .c_str(),
                 stdout);
    }
  }
  // On a terminal, a long seed range shows where it is on one line of stderr, rewritten per seed.
  const bool progress = f.last > f.first && isatty(fileno(stderr)) != 0;
  const auto started = std::chrono::steady_clock::now();
  std::size_t passed = 0, failed = 0;
  std::map<std::string, CheckFailures> by_check;
  for (std::uint64_t seed = f.first; seed <= f.last; ++seed) {
    if (progress) {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      std::fputs(fmt::format("\r\033[K  seed {} ({} of {}): {} passed, {} failed, {:.0f} s", seed, seed - f.first + 1,
                             f.last - f.first + 1, passed, failed, elapsed)
                     .c_str(),
                 stderr);
      std::fflush(stderr);
    }
    const SeedResult r = run_seed(s, f, seed);
    (r.passed ? passed : failed) += 1;
    for (const std::string& check : r.failed_checks) {
      CheckFailures& c = by_check[check];
      if (c.seeds++ == 0) c.first_replay = r.replay;
    }
    if (progress) std::fputs("\r\033[K", stderr);  // the seed's lines replace the progress line
    std::fputs(r.out.c_str(), stdout);
    std::fflush(stdout);
  }
  if (f.last > f.first && !by_check.empty()) std::fputs(failures_by_check(by_check).c_str(), stdout);
  std::fputs(fmt::format("{} passed, {} failed\n", passed, failed).c_str(), stdout);
  return failed == 0 ? kExitOk : kExitFailed;
}

}  // namespace ferry::mqsim
