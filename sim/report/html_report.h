// One self-contained HTML page for one run (or one history): the header (name, story, source,
// seed, trace hash, simulated time, PASS/FAIL and the first failure), each checker's verdict with
// its figures and first violation, the fault schedule, and the timeline (lanes.h), which the
// page's inline script draws as SVG from the JSON embedded in the page (page_assets.h).
//
// Self-contained: inline style and script, no network, no external fonts. Every text from the
// model is escaped (html_text.h). Deterministic: the same model gives the same bytes (no clock,
// no paths beyond model.source). Bounded by the model (timeline.h): a one-hour run with a few
// lanes is well under a few MB. Pure: returns the page; the caller writes it.
#pragma once

#include <string>

#include "sim/report/report_model.h"

namespace ferry::sim::report {

std::string render_html_report(const ReportModel& m);

}  // namespace ferry::sim::report
