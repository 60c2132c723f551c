// SubscriptionFilter: what a subscription selects, in the two steps a pull applies it (RocketMQ's
// MessageFilter: isMatchedByConsumeQueue, then isMatchedByCommitLog).
//
//   TAG    "*" or "TagA || TagB" (tag_filter.h): decided on the ConsumeQueue unit's tags code
//          alone (a hash: the client re-checks the exact tag).
//   SQL92  an expression over the message's properties (sql92/parser.h): every unit passes the
//          first step (RocketMQ's bloom-filter bitmap, off by default there, is not kept), and
//          the record's properties decide. An expression that reads no property (TRUE, 1 = 1)
//          is decided once, at compile time, and costs what "*" costs.
//
// Copies share the compiled expression (immutable).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/sql92/expression.h"
#include "common/tag_filter.h"
#include "runtime/result.h"

namespace ferry {

// RocketMQ's ExpressionType: "TAG" (also an absent or empty type) and "SQL92", exactly.
enum class ExpressionType : std::uint8_t { tag, sql92 };

inline constexpr std::string_view kExpressionTypeTag = "TAG";
inline constexpr std::string_view kExpressionTypeSql92 = "SQL92";

// Errors (invalid_argument): any other text, named.
Result<ExpressionType> parse_expression_type(std::string_view type);
std::string_view expression_type_name(ExpressionType t);

class SubscriptionFilter {
 public:
  // Everything ("*").
  SubscriptionFilter();
  explicit SubscriptionFilter(TagSubscription tags);
  explicit SubscriptionFilter(std::shared_ptr<const sql92::Expression> sql);

  // Compiles `expression` of `type`. Errors (invalid_argument): the tag or SQL92 parser's,
  // which for SQL92 name the line and column.
  static Result<SubscriptionFilter> compile(ExpressionType type, std::string_view expression);

  ExpressionType type() const { return sql_ ? ExpressionType::sql92 : ExpressionType::tag; }
  // Whether every message is selected without looking at it ("*", or SQL92 that is constant TRUE).
  bool selects_all() const;
  // The ConsumeQueue step. SQL92: true, unless the expression is constant FALSE.
  bool matches_code(std::int64_t tags_code) const;
  // Whether the CommitLog step is needed (SQL92 reading properties).
  bool reads_properties() const { return sql_ && !sql_->constant(); }
  // The CommitLog step: the record's encoded properties. True for a TAG filter.
  bool matches_properties(std::string_view encoded_properties) const;

  const TagSubscription& tags() const { return tags_; }     // TAG only
  const sql92::Expression* sql() const { return sql_.get(); }  // SQL92 only, else nullptr

 private:
  TagSubscription tags_;
  std::shared_ptr<const sql92::Expression> sql_;
};

}  // namespace ferry
