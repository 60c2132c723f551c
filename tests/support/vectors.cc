#include "tests/support/vectors.h"

#include <gtest/gtest.h>

#include <fstream>

#include "common/hex.h"

#ifndef FERRY_TEST_VECTORS_DIR
#error "FERRY_TEST_VECTORS_DIR must name the repository's tests/vectors folder"
#endif

namespace ferry::test {

std::filesystem::path vector_path(std::string_view file_name) {
  return std::filesystem::path(FERRY_TEST_VECTORS_DIR) / file_name;
}

std::vector<std::string> read_vector_lines(std::string_view file_name) {
  std::vector<std::string> lines;
  const auto path = vector_path(file_name);
  std::ifstream in(path);
  if (!in) {
    ADD_FAILURE() << "cannot open test vector file " << path << " (tests/vectors/README.md)";
    return lines;
  }
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    lines.push_back(line);
  }
  if (in.bad()) {
    ADD_FAILURE() << "error reading test vector file " << path;
    return {};
  }
  if (lines.empty()) ADD_FAILURE() << "test vector file " << path << " has no lines";
  return lines;
}

std::vector<std::uint8_t> from_hex(std::string_view hex) {
  std::vector<std::uint8_t> out(hex.size() / 2);
  auto st = parse_hex(hex, out);
  EXPECT_TRUE(st.ok()) << st.error().to_string();
  return out;
}

std::vector<std::string> split_tabs(std::string_view line) {
  std::vector<std::string> out;
  while (true) {
    std::size_t t = line.find('\t');
    out.emplace_back(line.substr(0, t));
    if (t == std::string_view::npos) break;
    line = line.substr(t + 1);
  }
  return out;
}

}  // namespace ferry::test
