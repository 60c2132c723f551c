#include "common/subscription_filter.h"

#include <fmt/format.h>

#include <utility>

#include "common/sql92/parser.h"

namespace ferry {

Result<ExpressionType> parse_expression_type(std::string_view type) {
  if (type.empty() || type == kExpressionTypeTag) return ExpressionType::tag;
  if (type == kExpressionTypeSql92) return ExpressionType::sql92;
  return Error(Errc::invalid_argument,
               fmt::format("expression type \"{}\" is neither TAG nor SQL92", type.substr(0, 40)));
}

std::string_view expression_type_name(ExpressionType t) {
  return t == ExpressionType::sql92 ? kExpressionTypeSql92 : kExpressionTypeTag;
}

SubscriptionFilter::SubscriptionFilter() {
  tags_.expression = std::string(kSubscribeAll);
  tags_.all = true;
}

SubscriptionFilter::SubscriptionFilter(TagSubscription tags) : tags_(std::move(tags)) {}

SubscriptionFilter::SubscriptionFilter(std::shared_ptr<const sql92::Expression> sql) : sql_(std::move(sql)) {}

Result<SubscriptionFilter> SubscriptionFilter::compile(ExpressionType type, std::string_view expression) {
  if (type == ExpressionType::tag) {
    auto tags = parse_tag_expression(expression);
    if (!tags.ok()) return std::move(tags).error();
    return SubscriptionFilter(std::move(*tags));
  }
  auto sql = sql92::parse(expression);
  if (!sql.ok()) return std::move(sql).error();
  return SubscriptionFilter(std::make_shared<const sql92::Expression>(std::move(*sql)));
}

bool SubscriptionFilter::selects_all() const {
  if (sql_) return sql_->constant() && sql_->constant_match();
  return tags_.all;
}

bool SubscriptionFilter::matches_code(std::int64_t tags_code) const {
  if (sql_) return !sql_->constant() || sql_->constant_match();
  return tags_.matches_code(tags_code);
}

bool SubscriptionFilter::matches_properties(std::string_view encoded_properties) const {
  if (!sql_) return true;
  return sql_->matches(encoded_properties);
}

}  // namespace ferry
