#include "sim/report/html_report.h"

#include <fmt/format.h>

#include <iterator>

#include "sim/report/html_text.h"
#include "sim/report/page_assets.h"
#include "sim/report/timeline_json.h"

namespace ferry::sim::report {

namespace {

void fact(std::string& out, std::string_view name, std::string_view value) {
  fmt::format_to(std::back_inserter(out), "<dt>{}</dt><dd>{}</dd>", html_escape(name), html_escape(value));
}

void header(std::string& out, const ReportModel& m) {
  const char* verdict = m.passed ? "pass" : "fail";
  fmt::format_to(std::back_inserter(out), "<header class=\"{}\"><h1>{}<span class=\"badge {}\" id=\"result\">{}</span></h1>\n", verdict,
                 html_escape(m.name), verdict, m.passed ? "PASS" : "FAIL");
  if (!m.story.empty()) fmt::format_to(std::back_inserter(out), "<p class=\"story\">{}</p>\n", html_escape(m.story));
  out += "<dl class=\"facts\">";
  fact(out, "file", m.source);
  if (m.seed) fact(out, "seed", fmt::format("{}", *m.seed));
  if (m.trace_hash && !m.real) fact(out, "trace hash", fmt::format("{:016x}", *m.trace_hash));
  if (m.simulated_ms) {
    fact(out, m.real ? "ran (real processes)" : "simulated", fmt::format("{:.1f} s", static_cast<double>(*m.simulated_ms) / 1000.0));
  }
  fact(out, "sends", fmt::format("{}", m.sends));
  fact(out, "deliveries", fmt::format("{}", m.deliveries));
  fact(out, "events", fmt::format("{}", m.events));
  if (!m.liveness.empty()) fact(out, "liveness", m.liveness);
  out += "</dl>\n";
  if (!m.failure.empty()) fmt::format_to(std::back_inserter(out), "<p class=\"failure\">{}</p>\n", html_escape(m.failure));
  out += "</header>\n";
}

void verdicts(std::string& out, const ReportModel& m) {
  out += "<h2>Checkers</h2>\n";
  if (m.verdicts.empty()) {
    out += "<p class=\"note\">No checker ran (the run was not carried out).</p>\n";
    return;
  }
  out += "<table class=\"verdicts\" id=\"verdicts\"><tr><th>checker</th><th>verdict</th><th>figures</th><th>violations</th>"
         "<th>first violation</th></tr>\n";
  for (const check::Verdict& v : m.verdicts) {
    std::string figures;
    for (const auto& [name, value] : v.figures) fmt::format_to(std::back_inserter(figures), "{}{}={}", figures.empty() ? "" : " ", name, value);
    fmt::format_to(std::back_inserter(out),
                   "<tr class=\"verdict {}\" data-checker=\"{}\"><td>{}</td><td class=\"result\">{}</td><td class=\"figures\">{}</td>"
                   "<td>{}</td><td class=\"first\">{}</td></tr>\n",
                   v.passed ? "pass" : "fail", html_escape(v.name), html_escape(v.name),
                   !v.not_judged.empty() ? "not judged" : v.passed ? "PASS" : "FAIL",
                   html_escape(v.not_judged.empty() ? figures : v.not_judged), v.violations, html_escape(bounded_text(v.first_violation)));
  }
  out += "</table>\n";
}

void schedule(std::string& out, const ReportModel& m) {
  if (m.schedule.empty()) return;
  out += "<h2>Fault schedule</h2>\n<ul class=\"schedule\">";
  for (const std::string& line : m.schedule) fmt::format_to(std::back_inserter(out), "<li>{}</li>", html_escape(line));
  if (m.schedule_dropped > 0) fmt::format_to(std::back_inserter(out), "<li>... and {} more steps</li>", m.schedule_dropped);
  out += "</ul>\n";
}

void legend(std::string& out) {
  out += "<p class=\"legend\">sends by outcome:"
         "<span class=\"sw s-ok\"></span>ok<span class=\"sw s-not-durable\"></span>not durable"
         "<span class=\"sw s-failed\"></span>failed<span class=\"sw s-unknown\"></span>unknown (red bar above: some failed or unknown)"
         " &nbsp; deliveries:<span class=\"sw s-first\"></span>first<span class=\"sw s-again\"></span>again"
         "<span class=\"sw s-corrupt\"></span>corrupt"
         " &nbsp; marks:<span class=\"sw m-crash\"></span>crash<span class=\"sw m-start\"></span>start"
         "<span class=\"sw m-rebalance\"></span>rebalance<span class=\"sw m-fault\"></span>fault<span class=\"sw m-heal\"></span>heal"
         "<span class=\"sw m-promote\"></span>promote<span class=\"sw m-route\"></span>route change"
         " &nbsp; shaded: fault windows</p>\n";
}

}  // namespace

std::string render_html_report(const ReportModel& m) {
  std::string out;
  out.reserve(64 * 1024);
  fmt::format_to(std::back_inserter(out),
                 "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                 "<meta name=\"generator\" content=\"mqsim\">\n<title>{}{} {}</title>\n<style>{}</style>\n</head>\n<body>\n",
                 html_escape(m.name), m.seed ? fmt::format(" seed {}", *m.seed) : std::string(), m.passed ? "PASS" : "FAIL", page_style());
  header(out, m);
  out += "<main>\n";
  verdicts(out, m);
  schedule(out, m);
  fmt::format_to(std::back_inserter(out),
                 "<h2>Timeline</h2>\n<p class=\"note\">x: {} in seconds since {}; each column is {} ms. Hover a column, "
                 "a mark or a window for its details.</p>\n",
                 m.real ? "real time" : "virtual time", html_escape(m.origin), m.timeline.column_ms());
  legend(out);
  out += m.real ? "<div id=\"timeline\" data-clock=\"real time\"><noscript>" : "<div id=\"timeline\"><noscript>";
  out += "<p class=\"note\">The timeline is drawn by the page's script.</p></noscript></div>\n";
  out += "</main>\n<script type=\"application/json\" id=\"timeline-data\">";
  out += json_for_script(timeline_json(m.timeline));
  out += "</script>\n<script>";
  out += page_script();
  out += "</script>\n</body>\n</html>\n";
  return out;
}

}  // namespace ferry::sim::report
