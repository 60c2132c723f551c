// Splitting text on one separator character, every piece kept (empty ones too): "a,,b" on ','
// is {"a", "", "b"}, "" is {""}. The views point into `text`. For the formats that Java peers
// write with String.split-like separators (trace records, POP receipt handles and offset infos).
#pragma once

#include <string_view>
#include <vector>

namespace ferry {

inline std::vector<std::string_view> split_on(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  std::size_t from = 0;
  while (true) {
    const std::size_t at = text.find(sep, from);
    if (at == std::string_view::npos) {
      out.push_back(text.substr(from));
      return out;
    }
    out.push_back(text.substr(from, at - from));
    from = at + 1;
  }
}

}  // namespace ferry
