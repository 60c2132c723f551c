#include "sim/report/timeline.h"

#include <algorithm>

#include "runtime/assert.h"

namespace ferry::sim::report {

std::int64_t column_ms_for(std::int64_t span_ms) {
  const std::int64_t span = std::max<std::int64_t>(span_ms, 1);
  const std::int64_t per_column = (span + kColumnsMax - 1) / kColumnsMax;
  const std::int64_t steps = std::max<std::int64_t>(1, (per_column + kColumnMsMin - 1) / kColumnMsMin);
  return steps * kColumnMsMin;
}

std::string bounded_text(std::string_view text, std::size_t max_bytes) {
  FERRY_ASSERT(max_bytes >= 16, "bounded_text to {} bytes: too few to say anything", max_bytes);
  if (text.size() <= max_bytes) return std::string(text);
  std::size_t cut = max_bytes - 3;
  // Back off UTF-8 continuation bytes (10xxxxxx) so that no character is split.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "...";
}

Timeline::Timeline(std::int64_t span_ms) : span_ms_(std::max<std::int64_t>(span_ms, 0)), column_ms_(column_ms_for(span_ms_)) {
  FERRY_ASSERT(span_ms_ / column_ms_ < kColumnsMax + 1, "span {} ms in columns of {} ms makes more than {} columns", span_ms_,
               column_ms_, kColumnsMax);
}

std::int64_t Timeline::clamp(std::int64_t at_ms) const { return std::clamp<std::int64_t>(at_ms, 0, span_ms_); }

int Timeline::find(std::string_view kind, std::string_view name) const {
  for (std::size_t i = 0; i < lanes_.size(); ++i) {
    if (lanes_[i].kind == kind && lanes_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

int Timeline::lane(std::string_view kind, std::string_view name, const std::vector<std::string>& series) {
  if (int i = find(kind, name); i >= 0) return i;
  if (lanes_.size() >= kLanesMax) {
    ++lanes_dropped_;
    return -1;
  }
  FERRY_ASSERT(series.size() <= kSeriesMax, "lane {} {} with {} series, more than {}", kind, name, series.size(), kSeriesMax);
  Lane l;
  l.kind = bounded_text(kind);
  l.name = bounded_text(name);
  l.series = series;
  lanes_.push_back(std::move(l));
  return static_cast<int>(lanes_.size() - 1);
}

void Timeline::count(int lane, std::int64_t at_ms, std::size_t series) {
  if (lane < 0) return;
  FERRY_ASSERT(static_cast<std::size_t>(lane) < lanes_.size(), "lane {} of {}", lane, lanes_.size());
  Lane& l = lanes_[static_cast<std::size_t>(lane)];
  FERRY_ASSERT(series < l.series.size(), "series {} of lane {} which has {}", series, l.name, l.series.size());
  std::vector<std::int64_t>& c = l.columns[clamp(at_ms) / column_ms_];
  if (c.empty()) c.assign(l.series.size(), 0);
  ++c[series];
}

void Timeline::add(int lane, std::int64_t at_ms, std::size_t series, std::int64_t n) {
  if (lane < 0 || n <= 0) return;
  FERRY_ASSERT(static_cast<std::size_t>(lane) < lanes_.size(), "lane {} of {}", lane, lanes_.size());
  Lane& l = lanes_[static_cast<std::size_t>(lane)];
  FERRY_ASSERT(series < l.series.size(), "series {} of lane {} which has {}", series, l.name, l.series.size());
  std::vector<std::int64_t>& c = l.columns[clamp(at_ms) / column_ms_];
  if (c.empty()) c.assign(l.series.size(), 0);
  c[series] += n;
}

void Timeline::hold(int lane, std::int64_t from_ms, std::int64_t to_ms, std::size_t series, std::int64_t value) {
  if (lane < 0 || value <= 0) return;
  FERRY_ASSERT(static_cast<std::size_t>(lane) < lanes_.size(), "lane {} of {}", lane, lanes_.size());
  Lane& l = lanes_[static_cast<std::size_t>(lane)];
  FERRY_ASSERT(series < l.series.size(), "series {} of lane {} which has {}", series, l.name, l.series.size());
  const std::int64_t last = clamp(std::max(from_ms, to_ms)) / column_ms_;
  for (std::int64_t col = clamp(from_ms) / column_ms_; col <= last; ++col) {
    std::vector<std::int64_t>& c = l.columns[col];
    if (c.empty()) c.assign(l.series.size(), 0);
    c[series] = std::max(c[series], value);
  }
}

void Timeline::mark(int lane, std::int64_t at_ms, std::string_view kind, std::string_view text) {
  if (lane < 0) return;
  FERRY_ASSERT(static_cast<std::size_t>(lane) < lanes_.size(), "lane {} of {}", lane, lanes_.size());
  Lane& l = lanes_[static_cast<std::size_t>(lane)];
  if (l.marks.size() >= kMarksPerLaneMax) {
    ++l.marks_dropped;
    return;
  }
  l.marks.push_back(Mark{clamp(at_ms), bounded_text(kind), bounded_text(text)});
}

void Timeline::set_note(int lane, std::string_view note) {
  if (lane < 0) return;
  FERRY_ASSERT(static_cast<std::size_t>(lane) < lanes_.size(), "lane {} of {}", lane, lanes_.size());
  lanes_[static_cast<std::size_t>(lane)].note = bounded_text(note);
}

void Timeline::window(std::int64_t from_ms, std::int64_t to_ms, std::string_view text) {
  if (windows_.size() >= kWindowsMax) {
    ++windows_dropped_;
    return;
  }
  const std::int64_t from = clamp(from_ms);
  windows_.push_back(Window{from, std::max(from, clamp(to_ms)), bounded_text(text)});
}

}  // namespace ferry::sim::report
