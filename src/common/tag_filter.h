// Tag subscriptions: `*` (everything) or `TagA || TagB`, and the tag hash codes the broker
// filters on (the ConsumeQueue stores java_string_hash(tag) per message as its tagsCode).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/result.h"

namespace ferry {

inline constexpr std::string_view kSubscribeAll = "*";

struct TagSubscription {
  std::string expression;           // "*" for all, else as given
  bool all = false;                 // "*" or empty expression
  std::vector<std::string> tags;    // sorted, unique; empty when `all`
  std::vector<std::int32_t> codes;  // java_string_hash of each tag; sorted, unique

  // Client-side exact check: `all`, or the message's tag is one of `tags`. A message without a
  // tag matches only `all`.
  bool matches_tag(std::optional<std::string_view> tag) const;
  // Broker-side check on a ConsumeQueue tagsCode (may pass a hash collision; clients re-check).
  bool matches_code(std::int64_t tags_code) const;

  bool operator==(const TagSubscription&) const = default;
};

// Parses like RocketMQ's FilterAPI: empty or exactly "*" subscribes to all; otherwise the text is
// split on "||", each piece trimmed of characters <= ' ' and empty pieces dropped.
// Errors (invalid_argument): no tag left after that (e.g. "||" or "  ").
Result<TagSubscription> parse_tag_expression(std::string_view expression);

// The ConsumeQueue tagsCode of a message's TAGS: its Java hash, 0 when it has no tag.
std::int64_t tags_code(std::optional<std::string_view> tags);

}  // namespace ferry
