// The report page's fixed parts, written for Ferry (no library): its style sheet and the script
// that draws the timeline from the embedded JSON (timeline_json.h) as inline SVG. The script
// builds every element with createElementNS and sets text with textContent only (never as
// markup), so names and details from files cannot inject anything.
//
// What the script draws (the headless-browser test looks for these): <svg id="timeline-svg">;
// one <g class="lane lane-KIND" data-kind="KIND" data-name="NAME"> per lane, holding its label,
// its columns (<g class="col">, a <rect class="s-SERIES"> per non-zero count, a <title>) and its
// marks (<g class="mark mark-KIND">); one <g class="window"> per fault window (a shaded <rect>
// across every lane, its text above the lanes); the time axis (<g class="axis">).
#pragma once

#include <string_view>

namespace ferry::sim::report {

std::string_view page_style();
std::string_view page_script();

}  // namespace ferry::sim::report
