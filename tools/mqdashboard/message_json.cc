#include "tools/mqdashboard/message_json.h"

#include <openssl/evp.h>

#include <string>

namespace ferry::dashboard {

bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = 0;
    std::uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      n = 1;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;  // truncated sequence
    for (std::size_t k = 1; k <= n; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    static constexpr std::uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n + 1;
  }
  return true;
}

std::string base64(std::string_view in) {
  std::string out(4 * ((in.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), reinterpret_cast<const unsigned char*>(in.data()),
                                static_cast<int>(in.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

void write_message(JsonOut& j, const MessageExt& m, bool with_body) {
  j.object().field("topic", m.topic).field("msgId", m.msg_id()).field("offsetMsgId", m.offset_msg_id);
  j.field("tags", std::string(m.tags().value_or(""))).key("keys").array();
  for (std::string_view k : m.keys()) j.str(k);
  j.end_array().field("brokerQueueId", m.queue_id.value()).field("queueOffset", m.queue_offset.value())
      .field("commitLogOffset", m.physical_offset.value()).field("storeSize", m.store_size).field("sysFlag", m.sys_flag)
      .field("bornTimestamp", m.born_timestamp_ms).field("bornHost", m.born_host.to_string())
      .field("storeTimestamp", m.store_timestamp_ms).field("storeHost", m.store_host.to_string())
      .field("reconsumeTimes", m.reconsume_times).field("bodyCRC", m.body_crc)
      .field("bodyLength", static_cast<std::int64_t>(m.body.size()));
  if (with_body) {
    j.key("properties").object();
    for (const auto& [key, value] : m.properties) j.field(key, value);
    j.end_object();
    const std::string_view bytes(reinterpret_cast<const char*>(m.body.data()), m.body.size());
    if (valid_utf8(bytes)) {
      j.field("bodyEncoding", "text").field("body", bytes);
    } else {
      j.field("bodyEncoding", "base64").field("body", base64(bytes));
    }
  }
  j.end_object();
}

}  // namespace ferry::dashboard
