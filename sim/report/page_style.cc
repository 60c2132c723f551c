#include "sim/report/page_assets.h"

namespace ferry::sim::report {

std::string_view page_style() {
  return R"css(
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; color: #1d1d1f; background: #fafafa; }
header { padding: 14px 24px 10px; border-bottom: 4px solid #2e7d32; background: #fff; }
header.fail { border-bottom-color: #c62828; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 18px 0 6px; }
.badge { display: inline-block; padding: 2px 10px; border-radius: 4px; color: #fff; font-size: 16px; vertical-align: 3px; margin-left: 8px; }
.badge.pass { background: #2e7d32; } .badge.fail { background: #c62828; }
.story { margin: 2px 0 8px; font-style: italic; color: #444; }
dl.facts { display: grid; grid-template-columns: max-content auto max-content auto max-content auto; gap: 2px 12px; margin: 0; font-size: 13px; }
dl.facts dt { color: #666; } dl.facts dd { margin: 0; font-family: ui-monospace, Menlo, Consolas, monospace; }
.failure { color: #c62828; font-weight: 600; margin: 8px 0 0; font-size: 14px; }
main { padding: 0 24px 24px; }
table.verdicts { border-collapse: collapse; font-size: 13px; background: #fff; }
table.verdicts th, table.verdicts td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
table.verdicts th { background: #f0f0f0; }
tr.verdict.pass td.result { color: #2e7d32; font-weight: 700; }
tr.verdict.fail td.result { color: #c62828; font-weight: 700; }
tr.verdict.fail { background: #fdecea; }
td.figures, td.first { font-family: ui-monospace, Menlo, Consolas, monospace; }
td.first { max-width: 560px; word-break: break-word; }
ul.schedule { font-size: 13px; margin: 0; padding-left: 20px; columns: 2; font-family: ui-monospace, Menlo, Consolas, monospace; }
.legend { font-size: 12px; color: #444; margin: 4px 0; }
.legend span.sw { display: inline-block; width: 10px; height: 10px; margin: 0 3px 0 10px; vertical-align: -1px; }
#timeline { background: #fff; border: 1px solid #ddd; overflow-x: auto; }
p.dropped, p.note { font-size: 12px; color: #666; margin: 4px 0; }
svg.timeline text { font-size: 11px; fill: #333; }
svg.timeline text.lane-name { font-size: 12px; font-weight: 600; }
svg.timeline text.lane-note { fill: #777; }
svg.timeline .axis line { stroke: #e4e4e4; }
svg.timeline .axis text { fill: #555; }
svg.timeline rect.lane-bg { fill: #fff; } svg.timeline rect.lane-bg.odd { fill: #f6f7f9; }
svg.timeline .window rect { fill: rgba(229, 57, 53, 0.10); stroke: rgba(229, 57, 53, 0.45); stroke-dasharray: 3 2; }
svg.timeline .window text { fill: #b71c1c; }
.s-ok { fill: #2e7d32; background: #2e7d32; }
.s-not-durable { fill: #f9a825; background: #f9a825; }
.s-failed { fill: #c62828; background: #c62828; }
.s-unknown { fill: #6a1b9a; background: #6a1b9a; }
.s-first { fill: #1565c0; background: #1565c0; }
.s-again { fill: #ef6c00; background: #ef6c00; }
.s-corrupt { fill: #c62828; background: #c62828; }
.s-produced, .s-pulled { fill: #546e7a; background: #546e7a; }
.s-refused { fill: #c62828; background: #c62828; }
.s-lag, .s-replication-lag, .s-flush-behind { fill: #8e24aa; background: #8e24aa; }
svg.timeline .lost-flag { fill: #c62828; }
svg.timeline .mark line { stroke-width: 1.5; }
.mark line, .mark path { stroke: #555; fill: #555; }
.mark-crash line, .mark-crash path { stroke: #c62828; fill: #c62828; } .m-crash { background: #c62828; }
.mark-start line, .mark-start path { stroke: #2e7d32; fill: #2e7d32; } .m-start { background: #2e7d32; }
.mark-rebalance line, .mark-rebalance path { stroke: #1565c0; fill: #1565c0; } .m-rebalance { background: #1565c0; }
.mark-fault line, .mark-fault path { stroke: #ef6c00; fill: #ef6c00; } .m-fault { background: #ef6c00; }
.mark-heal line, .mark-heal path { stroke: #00897b; fill: #00897b; } .m-heal { background: #00897b; }
.mark-promote line, .mark-promote path { stroke: #6a1b9a; fill: #6a1b9a; } .m-promote { background: #6a1b9a; }
.mark-route line, .mark-route path { stroke: #546e7a; fill: #546e7a; } .m-route { background: #546e7a; }
)css";
}

}  // namespace ferry::sim::report
