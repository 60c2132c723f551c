// Text made safe for the report page. Node names, details and violations come from scenario and
// history files, so every piece of text goes through one of these before it reaches the page.
//
//   html_escape        for element content and quoted attribute values: & < > " ' as entities.
//   json_for_script    JSON text made safe inside <script type="application/json">: every <, >
//                      and & (which can only occur inside JSON strings) as \u003c, \u003e, \u0026,
//                      so no "</script>" or "<!--" can end or change the element. JSON.parse gives
//                      the same strings back.
#pragma once

#include <string>
#include <string_view>

namespace ferry::sim::report {

std::string html_escape(std::string_view text);
std::string json_for_script(std::string_view json);

}  // namespace ferry::sim::report
