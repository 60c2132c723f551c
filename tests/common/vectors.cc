#include "common/vectors.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "common/hex.h"

namespace ferry::test {

std::filesystem::path vectors_dir() {
  std::vector<std::filesystem::path> candidates;
  if (const char* src = std::getenv("FERRY_SOURCE_DIR")) {  // tests may read the environment
    candidates.push_back(std::filesystem::path(src) / ".." / "shared" / "vectors");
  }
  for (const char* rel : {"../shared/vectors", "../../shared/vectors", "../../../shared/vectors",
                          "/work/shared/vectors"}) {
    candidates.emplace_back(rel);
  }
  for (const auto& c : candidates) {
    if (std::filesystem::exists(c / "README.md")) return c;
  }
  ADD_FAILURE() << "test vectors not found: set FERRY_SOURCE_DIR (ctest does) so that "
                   "$FERRY_SOURCE_DIR/../shared/vectors exists";
  return {};
}

std::vector<std::string> read_vector_lines(std::string_view file_name) {
  std::vector<std::string> lines;
  auto dir = vectors_dir();
  if (dir.empty()) return lines;
  std::ifstream in(dir / file_name);
  if (!in) {
    ADD_FAILURE() << "cannot open vector file " << (dir / file_name);
    return lines;
  }
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    lines.push_back(line);
  }
  if (lines.empty()) ADD_FAILURE() << "vector file " << (dir / file_name) << " has no lines";
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
