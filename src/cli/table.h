// A plain-text table for the command-line tools' output: a header row and rows of cells, every
// column as wide as its widest cell, columns separated by two spaces, no trailing blanks.
//
//   Table t({"Broker", "Queue", "MinOffset"});
//   t.add_row({"broker-a", "0", "0"});
//   std::cout << t.render();
//
// Rows must have as many cells as there are headers (asserted). Columns whose cells are all
// integers (headers aside) are right-aligned.
#pragma once

#include <string>
#include <vector>

namespace ferry::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> headers);

  void add_row(std::vector<std::string> cells);
  std::size_t rows() const { return rows_.size(); }
  std::string render() const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace ferry::cli
