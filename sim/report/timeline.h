// Timeline: what the report's timeline shows, as plain data. x is milliseconds of virtual time
// since the run's origin (the workload's start, or a history's first record). Each Lane is one
// row: counts per column (column_ms wide, one count a series: "ok", "failed", ...) and point
// marks (a crash, a start, a rebalance). Windows are shaded across every lane (a fault from its
// start to its heal).
//
// Lanes are added by the lane functions of lanes.h, one function a lane kind, so that a new kind
// (route changes, offset commits) is one more function; timeline_json.h turns a Timeline into
// the JSON the page's script draws.
//
// Bounded: a Timeline holds at most kLanesMax lanes; a lane at most kColumnsMax columns (the
// column width grows with the span: column_ms_for) and kMarksPerLaneMax marks (more are counted
// in marks_dropped, and the page says so); at most kWindowsMax windows (windows_dropped). Texts
// are cut to kTextBytesMax bytes. So the page stays a few MB whatever the run's length.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ferry::sim::report {

inline constexpr std::int64_t kColumnMsMin = 250;
inline constexpr std::int64_t kColumnsMax = 1500;
inline constexpr std::size_t kLanesMax = 128;
inline constexpr std::size_t kSeriesMax = 8;
inline constexpr std::size_t kMarksPerLaneMax = 400;
inline constexpr std::size_t kWindowsMax = 200;
inline constexpr std::size_t kTextBytesMax = 240;

// The narrowest multiple of kColumnMsMin that fits span_ms into kColumnsMax columns.
std::int64_t column_ms_for(std::int64_t span_ms);

// `text` cut to max_bytes (at least 16), never inside a UTF-8 sequence ("..." appended when cut).
std::string bounded_text(std::string_view text, std::size_t max_bytes = kTextBytesMax);

struct Mark {
  std::int64_t at_ms = 0;
  std::string kind;  // "crash", "start", "rebalance", "fault", "heal", "promote", "route" (a CSS class)
  std::string text;
};

struct Lane {
  std::string kind;                 // "broker", "consumer", "events", ... (a CSS class on the page)
  std::string name;                 // shown at the left of the row
  std::string note;                 // one short line under the name ("1200 sends")
  std::vector<std::string> series;  // the names of the counts of each column
  std::map<std::int64_t, std::vector<std::int64_t>> columns;  // column index -> count a series
  std::vector<Mark> marks;
  std::int64_t marks_dropped = 0;
};

struct Window {
  std::int64_t from_ms = 0;
  std::int64_t to_ms = 0;  // >= from_ms
  std::string text;        // "10s clog broker-b / producer-0"
};

class Timeline {
 public:
  // span_ms: the x range [0, span_ms] (negative is taken as 0).
  explicit Timeline(std::int64_t span_ms);

  std::int64_t span_ms() const { return span_ms_; }
  std::int64_t column_ms() const { return column_ms_; }
  const std::vector<Lane>& lanes() const { return lanes_; }
  const std::vector<Window>& windows() const { return windows_; }
  std::int64_t lanes_dropped() const { return lanes_dropped_; }
  std::int64_t windows_dropped() const { return windows_dropped_; }

  // The lane of (kind, name), added with `series` (at most kSeriesMax) when it is new. Returns
  // its index, or -1 when kLanesMax lanes exist already (counted in lanes_dropped).
  int lane(std::string_view kind, std::string_view name, const std::vector<std::string>& series = {});
  // The index of an existing lane, -1 when there is none.
  int find(std::string_view kind, std::string_view name) const;
  // One more in `series` of the column holding at_ms (clamped into [0, span_ms]).
  void count(int lane, std::int64_t at_ms, std::size_t series);
  // `n` (>= 0) more in `series` of that column (a counter's increase).
  void add(int lane, std::int64_t at_ms, std::size_t series, std::int64_t n);
  // Raises `series` of every column holding [from_ms, to_ms] to at least `value` (a gauge that
  // held `value` over that time: a column shows the largest value it saw).
  void hold(int lane, std::int64_t from_ms, std::int64_t to_ms, std::size_t series, std::int64_t value);
  // A mark on the lane (clamped into [0, span_ms]); past kMarksPerLaneMax only counted.
  void mark(int lane, std::int64_t at_ms, std::string_view kind, std::string_view text);
  void set_note(int lane, std::string_view note);
  // A shaded window (clamped; to_ms < from_ms is taken as from_ms); past kWindowsMax only counted.
  void window(std::int64_t from_ms, std::int64_t to_ms, std::string_view text);

 private:
  std::int64_t clamp(std::int64_t at_ms) const;

  std::int64_t span_ms_;
  std::int64_t column_ms_;
  std::vector<Lane> lanes_;
  std::vector<Window> windows_;
  std::int64_t lanes_dropped_ = 0;
  std::int64_t windows_dropped_ = 0;
};

}  // namespace ferry::sim::report
