#include "cli/table.h"

#include <algorithm>

#include "runtime/assert.h"

namespace ferry::cli {

namespace {

bool is_integer(const std::string& s) {
  if (s.empty()) return false;
  std::size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  return std::all_of(s.begin() + static_cast<std::ptrdiff_t>(i), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

Table::Table(std::vector<std::string> headers) : headers_(std::move(headers)) {
  FERRY_ASSERT(!headers_.empty(), "a table needs at least one column");
}

void Table::add_row(std::vector<std::string> cells) {
  FERRY_ASSERT(cells.size() == headers_.size(), "row of {} cells in a table of {} columns", cells.size(), headers_.size());
  rows_.push_back(std::move(cells));
}

std::string Table::render() const {
  const std::size_t n = headers_.size();
  std::vector<std::size_t> width(n);
  std::vector<bool> right(n, !rows_.empty());
  for (std::size_t c = 0; c < n; ++c) {
    width[c] = headers_[c].size();
    for (const auto& row : rows_) {
      width[c] = std::max(width[c], row[c].size());
      right[c] = right[c] && is_integer(row[c]);
    }
  }
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l;
    for (std::size_t c = 0; c < n; ++c) {
      const std::size_t pad = width[c] - cells[c].size();
      if (c > 0) l += "  ";
      if (right[c]) l.append(pad, ' ');
      l += cells[c];
      if (!right[c]) l.append(pad, ' ');
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l;
    out += '\n';
  };
  line(headers_);
  for (const auto& row : rows_) line(row);
  return out;
}

}  // namespace ferry::cli
