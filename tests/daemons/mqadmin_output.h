// Reading what mqadmin prints, for the tests that run it.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace ferry::daemons_test {

// The cells (whitespace-separated) of the data rows of a table printed by mqadmin: the lines after
// the header line that starts with `header_start`, up to the first empty line.
inline std::vector<std::vector<std::string>> table_rows(const std::string& output, const std::string& header_start) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(output);
  bool in_table = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(header_start, 0) == 0) {
      in_table = true;
      continue;
    }
    if (!in_table) continue;
    if (line.empty()) break;
    std::istringstream cells(line);
    std::vector<std::string> row;
    for (std::string cell; cells >> cell;) row.push_back(cell);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace ferry::daemons_test
