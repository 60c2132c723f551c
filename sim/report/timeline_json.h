// A Timeline as the JSON the report page's script reads (html_report.h embeds it, made safe with
// json_for_script). Deterministic: the same Timeline gives the same bytes. Times are integers
// (milliseconds), so no float formatting is involved.
//
//   {"spanMs": 120000, "columnMs": 250, "lanesDropped": 0, "windowsDropped": 0,
//    "windows": [{"from": 10000, "to": 30000, "text": "10s clog broker-b / producer-0 ..."}],
//    "lanes": [{"kind": "broker", "name": "broker-a", "note": "1100 stored, 0 failed/unknown",
//               "series": ["ok", "not durable", "failed", "unknown"],
//               "cols": [[0, 3, 0, 0, 0], [1, 2, 0, 0, 0], ...],   // [column index, counts...]
//               "marks": [[20000, "crash", "20s kill broker-a"]], "marksDropped": 0}]}
#pragma once

#include <string>

#include "sim/report/timeline.h"

namespace ferry::sim::report {

std::string timeline_json(const Timeline& t);

}  // namespace ferry::sim::report
