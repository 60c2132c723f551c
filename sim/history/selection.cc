#include "sim/history/selection.h"

#include <fmt/format.h>

#include "common/properties.h"
#include "common/sql92/parser.h"
#include "runtime/assert.h"

namespace ferry::sim {

std::string workload_properties(std::uint64_t seq, std::string_view key) {
  std::string out(kSelectorSeqProperty);
  out.push_back(kNameValueSeparator);
  out += std::to_string(seq % kSelectorModulus);
  out.push_back(kPropertySeparator);
  out += "KEYS";
  out.push_back(kNameValueSeparator);
  out += key;
  return out;
}

Result<std::shared_ptr<const sql92::Expression>> compile_selector(std::string_view sql) {
  auto e = sql92::parse(sql);
  if (!e.ok()) return std::move(e).error();
  for (const std::string& p : e->properties()) {
    if (p != kSelectorSeqProperty && p != "KEYS") {
      return Error(Errc::invalid_argument,
                   fmt::format("property \"{}\": a workload message carries only n (its sequence number modulo {}) and KEYS",
                               p, kSelectorModulus));
    }
  }
  return std::make_shared<const sql92::Expression>(std::move(*e));
}

bool Selection::selects(const std::string& sql, std::uint64_t seq, std::string_view key) const {
  if (sql.empty()) return true;
  auto it = compiled_.find(sql);
  if (it == compiled_.end()) {
    auto e = compile_selector(sql);
    FERRY_ASSERT(e.ok(), "a recorded selector \"{}\" does not compile: {}", sql, e.ok() ? "" : e.error().to_string());
    it = compiled_.emplace(sql, std::move(*e)).first;
  }
  return it->second->matches(workload_properties(seq, key));
}

bool Selection::selects_for_consumer(const std::string& consumer, std::uint64_t seq, std::string_view key) const {
  auto info = h_.consumers.find(consumer);
  return info == h_.consumers.end() || selects(info->second.sql, seq, key);
}

const std::string& Selection::group_sql(const std::string& group) const {
  static const std::string kNone;
  for (const auto& [name, info] : h_.consumers) {
    if (info.group == group && !info.sql.empty()) return info.sql;
  }
  return kNone;
}

bool Selection::selects_for_group(const std::string& group, std::uint64_t seq, std::string_view key) const {
  return selects(group_sql(group), seq, key);
}

}  // namespace ferry::sim
