#include "common/message_trace.h"

#include <fmt/format.h>

#include <charconv>

#include "common/text_split.h"

namespace ferry {

namespace {

// Reads the fields of one context, naming the context and field in every error.
class Fields {
 public:
  Fields(std::vector<std::string_view> f, std::size_t index) : f_(std::move(f)), index_(index) {}
  std::size_t size() const { return f_.size(); }
  std::string text(std::size_t i) const { return std::string(f_[i]); }
  // Field i as a number into `out`.
  template <typename Int>
  Status read(std::size_t i, std::string_view name, Int& out) const {
    Int v = 0;
    auto [end, ec] = std::from_chars(f_[i].data(), f_[i].data() + f_[i].size(), v);
    if (ec != std::errc() || end != f_[i].data() + f_[i].size()) {
      return Error(Errc::corrupt, fmt::format("trace context {}: {} \"{}\" is not a number", index_, name, f_[i]));
    }
    out = v;
    return {};
  }
  // Java's Boolean.parseBoolean: "true" in any letter case.
  bool boolean(std::size_t i) const {
    std::string s(f_[i]);
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s == "true";
  }
  Status at_least(std::size_t n, std::string_view type) const {
    if (f_.size() >= n) return {};
    return Error(Errc::corrupt, fmt::format("trace context {}: {} with {} fields (at least {})", index_, type, f_.size(), n));
  }

 private:
  std::vector<std::string_view> f_;
  std::size_t index_;
};

// Fields 1-8 of a Pub or EndTransaction context: timestamp, regionId, group, topic, msgId, tags,
// keys, storeHost.
Status read_send_head(const Fields& f, TraceContext& c) {
  FERRY_TRY(f.read(1, "timestamp", c.timestamp_ms));
  c.region_id = f.text(2);
  c.group = f.text(3);
  c.bean.topic = f.text(4);
  c.bean.msg_id = f.text(5);
  c.bean.tags = f.text(6);
  c.bean.keys = f.text(7);
  c.bean.store_host = f.text(8);
  return {};
}

}  // namespace

std::string_view trace_type_name(TraceType t) {
  switch (t) {
    case TraceType::pub: return "Pub";
    case TraceType::sub_before: return "SubBefore";
    case TraceType::sub_after: return "SubAfter";
    case TraceType::end_transaction: return "EndTransaction";
  }
  return "?";
}

Result<std::vector<TraceContext>> decode_trace_data(std::string_view data) {
  std::vector<TraceContext> out;
  std::vector<std::string_view> contexts = split_on(data, kTraceFieldSplitor);
  for (std::size_t i = 0; i < contexts.size(); ++i) {
    if (contexts[i].empty()) continue;  // after the last splitor
    const Fields f(split_on(contexts[i], kTraceContentSplitor), i);
    TraceContext c;
    TraceBean& b = c.bean;
    const std::string type = f.text(0);
    if (type == "Pub") {
      FERRY_TRY(f.at_least(13, type));
      c.type = TraceType::pub;
      FERRY_TRY(read_send_head(f, c));
      FERRY_TRY(f.read(9, "bodyLength", b.body_length));
      FERRY_TRY(f.read(10, "costTime", c.cost_ms));
      FERRY_TRY(f.read(11, "msgType", b.msg_type));
      if (f.size() == 13) {
        c.success = f.boolean(12);
      } else {
        b.offset_msg_id = f.text(12);
        c.success = f.boolean(13);
        if (f.size() >= 15) b.client_host = f.text(14);
      }
    } else if (type == "SubBefore") {
      FERRY_TRY(f.at_least(8, type));
      c.type = TraceType::sub_before;
      FERRY_TRY(f.read(1, "timestamp", c.timestamp_ms));
      c.region_id = f.text(2);
      c.group = f.text(3);
      c.request_id = f.text(4);
      b.msg_id = f.text(5);
      FERRY_TRY(f.read(6, "retryTimes", b.retry_times));
      b.keys = f.text(7);
    } else if (type == "SubAfter") {
      FERRY_TRY(f.at_least(6, type));
      c.type = TraceType::sub_after;
      c.request_id = f.text(1);
      b.msg_id = f.text(2);
      FERRY_TRY(f.read(3, "costTime", c.cost_ms));
      c.success = f.boolean(4);
      b.keys = f.text(5);
      if (f.size() >= 7 && !f.text(6).empty()) FERRY_TRY(f.read(6, "contextCode", c.context_code));
      if (f.size() >= 9) {
        FERRY_TRY(f.read(7, "timestamp", c.timestamp_ms));
        c.group = f.text(8);
      }
    } else if (type == "EndTransaction") {
      FERRY_TRY(f.at_least(13, type));
      c.type = TraceType::end_transaction;
      FERRY_TRY(read_send_head(f, c));
      FERRY_TRY(f.read(9, "msgType", b.msg_type));
      b.transaction_id = f.text(10);
      b.transaction_state = f.text(11);
      b.from_transaction_check = f.boolean(12);
    } else {
      continue;  // a type this build does not know: skipped, as RocketMQ's decoder does
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::string encode_trace_context(const TraceContext& c) {
  const TraceBean& b = c.bean;
  const char s = kTraceContentSplitor;
  const std::string_view type = trace_type_name(c.type);
  switch (c.type) {
    case TraceType::pub:
      return fmt::format("{}{s}{}{s}{}{s}{}{s}{}{s}{}{s}{}{s}{}{s}{}{s}{}{s}{}{s}{}{s}{}{s}{}\x02", type, c.timestamp_ms, c.region_id,
                         c.group, b.topic, b.msg_id, b.tags, b.keys, b.store_host, b.body_length, c.cost_ms, b.msg_type,
                         b.offset_msg_id, c.success, fmt::arg("s", s));
    case TraceType::sub_before:
      return fmt::format("{}{s}{}{s}{}{s}{}{s}{}{s}{}{s}{}{s}{}\x02", type, c.timestamp_ms, c.region_id, c.group, c.request_id,
                         b.msg_id, b.retry_times, b.keys, fmt::arg("s", s));
    case TraceType::sub_after:
      return fmt::format("{}{s}{}{s}{}{s}{}{s}{}{s}{}{s}{}{s}{}{s}{}\x02", type, c.request_id, b.msg_id, c.cost_ms, c.success, b.keys,
                         c.context_code, c.timestamp_ms, c.group, fmt::arg("s", s));
    case TraceType::end_transaction:
      return fmt::format("{}{s}{}{s}{}{s}{}{s}{}{s}{}{s}{}{s}{}{s}{}{s}{}{s}{}{s}{}{s}{}\x02", type, c.timestamp_ms, c.region_id,
                         c.group, b.topic, b.msg_id, b.tags, b.keys, b.store_host, b.msg_type, b.transaction_id,
                         b.transaction_state, b.from_transaction_check, fmt::arg("s", s));
  }
  return {};
}

}  // namespace ferry
