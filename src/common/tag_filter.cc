#include "common/tag_filter.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/java_hash.h"

namespace ferry {
namespace {

// Java's String.trim(): strips characters <= ' ' at both ends.
std::string_view java_trim(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

bool TagSubscription::matches_tag(std::optional<std::string_view> tag) const {
  if (all) return true;
  if (!tag) return false;
  return std::binary_search(tags.begin(), tags.end(), *tag,
                            [](std::string_view a, std::string_view b) { return a < b; });
}

bool TagSubscription::matches_code(std::int64_t tags_code) const {
  if (all) return true;
  if (tags_code < INT32_MIN || tags_code > INT32_MAX) return false;
  return std::binary_search(codes.begin(), codes.end(), static_cast<std::int32_t>(tags_code));
}

Result<TagSubscription> parse_tag_expression(std::string_view expression) {
  TagSubscription sub;
  if (expression.empty() || expression == kSubscribeAll) {
    sub.expression = std::string(kSubscribeAll);
    sub.all = true;
    return sub;
  }
  sub.expression = std::string(expression);
  std::string_view rest = expression;
  while (true) {
    std::size_t bar = rest.find("||");
    std::string_view piece = java_trim(rest.substr(0, bar));
    if (!piece.empty()) sub.tags.emplace_back(piece);
    if (bar == std::string_view::npos) break;
    rest = rest.substr(bar + 2);
  }
  if (sub.tags.empty()) {
    return Error(Errc::invalid_argument,
                 fmt::format("tag expression '{}' names no tag", expression.substr(0, 80)));
  }
  std::sort(sub.tags.begin(), sub.tags.end());
  sub.tags.erase(std::unique(sub.tags.begin(), sub.tags.end()), sub.tags.end());
  for (const std::string& t : sub.tags) sub.codes.push_back(java_string_hash(t));
  std::sort(sub.codes.begin(), sub.codes.end());
  sub.codes.erase(std::unique(sub.codes.begin(), sub.codes.end()), sub.codes.end());
  return sub;
}

std::int64_t tags_code(std::optional<std::string_view> tags) {
  if (!tags || tags->empty()) return 0;
  return java_string_hash(*tags);
}

}  // namespace ferry
