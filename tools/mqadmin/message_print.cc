#include "tools/mqadmin/message_print.h"

#include <fmt/format.h>

#include <ctime>

namespace ferry::mqadmin {

namespace {

std::string join_keys(const MessageExt& m) {
  std::string out;
  for (std::string_view k : m.keys()) {
    if (!out.empty()) out.push_back(' ');
    out.append(k);
  }
  return out;
}

}  // namespace

std::string format_time_ms(std::int64_t epoch_ms) {
  const std::time_t secs = static_cast<std::time_t>(epoch_ms / 1000);
  std::tm tm{};
  ::localtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
  return fmt::format("{}.{:03}", buf, epoch_ms % 1000);
}

std::string body_preview(const MessageExt& m, std::size_t max_chars) {
  std::string out;
  for (std::uint8_t b : m.body) {
    if (out.size() >= max_chars) {
      out += "...";
      break;
    }
    out += (b >= 0x20 && b < 0x7f) ? static_cast<char>(b) : '.';
  }
  return out;
}

std::string message_detail(const MessageExt& m) {
  std::vector<std::pair<std::string, std::string>> rows = {
      {"Topic", m.topic},
      {"Tags", std::string(m.tags().value_or(""))},
      {"Keys", join_keys(m)},
      {"Msg ID", std::string(m.msg_id())},
      {"OffsetID", m.offset_msg_id},
      {"Queue ID", std::to_string(m.queue_id.value())},
      {"Queue Offset", std::to_string(m.queue_offset.value())},
      {"CommitLog Offset", std::to_string(m.physical_offset.value())},
      {"Reconsume Times", std::to_string(m.reconsume_times)},
      {"Born Timestamp", format_time_ms(m.born_timestamp_ms)},
      {"Store Timestamp", format_time_ms(m.store_timestamp_ms)},
      {"Born Host", m.born_host.to_string()},
      {"Store Host", m.store_host.to_string()},
      {"System Flag", std::to_string(m.sys_flag)},
      {"Body Size", std::to_string(m.body.size())},
  };
  for (const auto& [k, v] : m.properties) rows.emplace_back(fmt::format("Property {}", k), v);
  rows.emplace_back("Body", body_preview(m, 1024));
  std::size_t width = 0;
  for (const auto& r : rows) width = std::max(width, r.first.size());
  std::string out;
  for (const auto& [k, v] : rows) out += fmt::format("{:<{}}  {}\n", fmt::format("{}:", k), width + 1, v);
  return out;
}

std::string java_message_text(const MessageExt& m, std::string_view broker_name) {
  std::string props;
  for (const auto& [k, v] : m.properties) props += fmt::format("{}{}={}", props.empty() ? "" : ", ", k, v);
  std::string body;
  for (const std::uint8_t b : m.body) {
    body += fmt::format("{}{}", body.empty() ? "" : ", ", static_cast<int>(static_cast<std::int8_t>(b)));
  }
  return fmt::format(
      "MessageExt [brokerName={}, queueId={}, storeSize={}, queueOffset={}, sysFlag={}, bornTimestamp={}, "
      "bornHost=/{}, storeTimestamp={}, storeHost=/{}, msgId={}, commitLogOffset={}, bodyCRC={}, reconsumeTimes={}, "
      "preparedTransactionOffset={}, toString()=Message{{topic='{}', flag={}, properties={{{}}}, body=[{}], "
      "transactionId='null'}}]",
      broker_name, m.queue_id.value(), m.store_size, m.queue_offset.value(), m.sys_flag, m.born_timestamp_ms,
      m.born_host.to_string(), m.store_timestamp_ms, m.store_host.to_string(), m.offset_msg_id,
      m.physical_offset.value(), m.body_crc, m.reconsume_times, m.prepared_transaction_offset, m.topic, m.flag, props,
      body);
}

std::vector<std::string> message_headers() {
  return {"#Broker", "Queue", "Offset", "MsgId", "Tags", "Keys", "StoreTime", "Body"};
}

std::vector<std::string> message_row(const MessageExt& m, const std::string& broker_name) {
  const std::string keys = join_keys(m);
  return {broker_name,
          std::to_string(m.queue_id.value()),
          std::to_string(m.queue_offset.value()),
          std::string(m.msg_id()),
          std::string(m.tags().value_or("")),
          keys,
          format_time_ms(m.store_timestamp_ms),
          body_preview(m, 60)};
}

}  // namespace ferry::mqadmin
