#include "common/pop_receipt.h"

#include <fmt/format.h>

#include <charconv>

#include "common/names.h"
#include "common/text_split.h"

namespace ferry {

namespace {

template <typename Int>
std::optional<Int> parse_int(std::string_view s) {
  Int v{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<PopRetry> parse_retry(std::string_view s) {
  if (s == "0") return PopRetry::none;
  if (s == "1") return PopRetry::v1;
  if (s == "2") return PopRetry::v2;
  return std::nullopt;
}

char retry_char(PopRetry r) { return static_cast<char>(r); }

}  // namespace

std::string pop_retry_topic(std::string_view group, std::string_view topic, PopRetry kind) {
  return fmt::format("{}{}{}{}", kRetryTopicPrefix, group, kind == PopRetry::v2 ? '+' : '_', topic);
}

PopRetry pop_retry_of(std::string_view topic) {
  if (!topic.starts_with(kRetryTopicPrefix)) return PopRetry::none;
  return topic.find('+') != std::string_view::npos ? PopRetry::v2 : PopRetry::v1;
}

std::string pop_real_topic(std::string_view topic, std::string_view group, PopRetry kind) {
  return kind == PopRetry::none ? std::string(topic) : pop_retry_topic(group, topic, kind);
}

std::string ReceiptHandle::encode() const {
  return fmt::format("{} {} {} {} {} {} {} {}", ck_offset, pop_time, invisible_time, revive_qid, retry_char(retry),
                     broker_name, queue_id, queue_offset);
}

Result<ReceiptHandle> ReceiptHandle::parse(std::string_view text) {
  const std::vector<std::string_view> f = split_on(text, ' ');
  auto bad = [&](std::string_view what) {
    return Error(Errc::invalid_argument,
                 fmt::format("receipt handle \"{}\": {}", text.substr(0, 200), what));
  };
  if (f.size() < 8) return bad(fmt::format("{} fields, expected 8", f.size()));
  ReceiptHandle h;
  auto i64 = [&](std::size_t i, std::string_view name, std::int64_t& out) {
    auto v = parse_int<std::int64_t>(f[i]);
    if (v) out = *v;
    return v ? std::optional<Error>() : std::optional<Error>(bad(fmt::format("{} \"{}\" is not an int64", name, f[i])));
  };
  if (auto e = i64(0, "ckOffset", h.ck_offset)) return *e;
  if (auto e = i64(1, "popTime", h.pop_time)) return *e;
  if (auto e = i64(2, "invisibleTime", h.invisible_time)) return *e;
  auto rq = parse_int<std::int32_t>(f[3]);
  if (!rq) return bad(fmt::format("reviveQid \"{}\" is not an int32", f[3]));
  h.revive_qid = *rq;
  auto retry = parse_retry(f[4]);
  if (!retry) return bad(fmt::format("retry flag \"{}\" is not 0, 1 or 2", f[4]));
  h.retry = *retry;
  if (f[5].empty()) return bad("empty brokerName");
  h.broker_name = std::string(f[5]);
  auto q = parse_int<std::int32_t>(f[6]);
  if (!q) return bad(fmt::format("queueId \"{}\" is not an int32", f[6]));
  h.queue_id = *q;
  if (auto e = i64(7, "queueOffset", h.queue_offset)) return *e;
  return h;
}

ReceiptHandle ReceiptHandle::after_change(std::int64_t new_pop_time, std::int64_t new_invisible_time,
                                          std::int32_t new_revive_qid) const {
  ReceiptHandle h = *this;
  h.ck_offset = queue_offset;
  h.pop_time = new_pop_time;
  h.invisible_time = new_invisible_time;
  h.revive_qid = new_revive_qid;
  return h;
}

std::string encode_start_offset_info(const std::vector<PopQueueInfo>& queues) {
  std::string out;
  for (const PopQueueInfo& q : queues) {
    if (!out.empty()) out += ';';
    out += fmt::format("{} {} {}", retry_char(q.retry), q.queue_id, q.start_offset);
  }
  return out;
}

std::string encode_msg_offset_info(const std::vector<PopQueueInfo>& queues) {
  std::string out;
  for (const PopQueueInfo& q : queues) {
    if (!out.empty()) out += ';';
    out += fmt::format("{} {} {}", retry_char(q.retry), q.queue_id, fmt::join(q.msg_offsets, ","));
  }
  return out;
}

std::string encode_order_count_info(const std::vector<PopQueueInfo>& queues) {
  std::string out;
  auto add = [&out](std::string entry) {
    if (!out.empty()) out += ';';
    out += entry;
  };
  for (const PopQueueInfo& q : queues) {
    for (const auto& [offset, count] : q.order_counts) {
      if (count > 0) add(fmt::format("{} qo{}%{} {}", retry_char(q.retry), q.queue_id, offset, count));
    }
    add(fmt::format("{} {} {}", retry_char(q.retry), q.queue_id, q.order_count_least));
  }
  return out;
}

std::string OffsetInfo::queue_key(PopRetry retry, std::int32_t queue_id) {
  return fmt::format("{}@{}", retry_char(retry), queue_id);
}

std::string OffsetInfo::offset_key(PopRetry retry, std::int32_t queue_id, std::int64_t offset) {
  return fmt::format("{}@qo{}%{}", retry_char(retry), queue_id, offset);
}

Result<OffsetInfo> OffsetInfo::parse(std::string_view start_offset_info, std::string_view msg_offset_info,
                                     std::string_view order_count_info) {
  OffsetInfo out;
  // Each entry: three space-separated fields; the map key is "{first}@{second}".
  auto entries = [](std::string_view field, std::string_view text,
                    auto&& take) -> Status {
    if (text.empty()) return {};
    for (std::string_view entry : split_on(text, ';')) {
      const std::vector<std::string_view> f = split_on(entry, ' ');
      auto bad = [&](std::string_view what) {
        return Error(Errc::corrupt, fmt::format("POP reply {} entry \"{}\": {}", field, entry.substr(0, 200), what));
      };
      if (f.size() != 3) return bad(fmt::format("{} fields, expected 3", f.size()));
      if (!parse_retry(f[0])) return bad("the retry flag is not 0, 1 or 2");
      const std::string key = fmt::format("{}@{}", f[0], f[1]);
      if (auto e = take(key, f[2], bad)) return *e;
    }
    return {};
  };
  Status s = entries("startOffsetInfo", start_offset_info,
                     [&](const std::string& key, std::string_view v, auto& bad) -> std::optional<Error> {
                       auto n = parse_int<std::int64_t>(v);
                       if (!n) return bad("the start offset is not an int64");
                       if (!out.start_offsets.emplace(key, *n).second) return bad("a queue listed twice");
                       return std::nullopt;
                     });
  if (!s) return s.error();
  s = entries("msgOffsetInfo", msg_offset_info,
              [&](const std::string& key, std::string_view v, auto& bad) -> std::optional<Error> {
                std::vector<std::int64_t> offsets;
                for (std::string_view piece : split_on(v, ',')) {
                  auto n = parse_int<std::int64_t>(piece);
                  if (!n) return bad(fmt::format("offset \"{}\" is not an int64", piece));
                  offsets.push_back(*n);
                }
                if (!out.msg_offsets.emplace(key, std::move(offsets)).second) return bad("a queue listed twice");
                return std::nullopt;
              });
  if (!s) return s.error();
  s = entries("orderCountInfo", order_count_info,
              [&](const std::string& key, std::string_view v, auto& bad) -> std::optional<Error> {
                auto n = parse_int<std::int32_t>(v);
                if (!n) return bad("the count is not an int32");
                if (!out.order_counts.emplace(key, *n).second) return bad("an entry listed twice");
                return std::nullopt;
              });
  if (!s) return s.error();
  return out;
}

}  // namespace ferry
