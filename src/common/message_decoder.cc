#include "common/message_decoder.h"

#include <fmt/format.h>

#include "common/compression.h"
#include "common/msg_id.h"
#include "common/properties.h"
#include "common/record_reader.h"
#include "common/sys_flag.h"

namespace ferry {

Result<MessageExt> to_message_ext(const RecordFields& f, std::size_t store_size) {
  auto props = decode_properties(f.properties);
  if (!props) return std::move(props).error();
  MessageExt m;
  m.topic.assign(f.topic);
  m.flag = f.flag;
  m.body.assign(f.body.begin(), f.body.end());
  m.properties = std::move(*props);
  m.queue_id = f.queue_id;
  m.queue_offset = f.queue_offset;
  m.physical_offset = f.physical_offset;
  m.store_size = static_cast<std::int32_t>(store_size);
  m.sys_flag = f.sys_flag;
  m.born_timestamp_ms = f.born_timestamp_ms;
  m.born_host = f.born_host;
  m.store_timestamp_ms = f.store_timestamp_ms;
  m.store_host = f.store_host;
  m.reconsume_times = f.reconsume_times;
  m.prepared_transaction_offset = f.prepared_transaction_offset;
  m.body_crc = f.body_crc;
  m.offset_msg_id = encode_offset_msg_id(f.store_host, f.physical_offset);
  return m;
}

Result<std::vector<MessageExt>> decode_messages(Bytes data, const MessagesDecodeOptions& options) {
  std::vector<MessageExt> out;
  RecordDecodeOptions record_options;
  record_options.check_crc = options.check_crc;
  record_options.size_bytes_max = options.record_size_bytes_max;
  std::size_t pos = 0;
  while (pos < data.size()) {
    if (out.size() == options.messages_max) {
      return Error(Errc::invalid_argument,
                   fmt::format("more than {} messages in {} bytes", options.messages_max,
                               data.size()));
    }
    RecordRead r = decode_record(data.subspan(pos), record_options);
    if (r.kind != RecordKind::message) {
      return Error(Errc::corrupt, fmt::format("record {} at byte {} is {}: {}", out.size(), pos,
                                              record_kind_name(r.kind), r.detail));
    }
    auto m = to_message_ext(r.fields, r.size_bytes);
    if (!m) {
      return Error(Errc::corrupt, fmt::format("record {} at byte {}: {}", out.size(), pos,
                                              m.error().detail));
    }
    if (options.decompress && (m->sys_flag & sysflag::kCompressed) != 0) {
      if (sysflag::compression(m->sys_flag) != sysflag::Compression::zlib) {
        return Error(Errc::unsupported,
                     fmt::format("record {} at byte {}: compression type in sys_flag {:#x}",
                                 out.size(), pos, m->sys_flag));
      }
      auto body = zlib_decompress(m->body, options.body_size_bytes_max);
      if (!body) {
        Error e = std::move(body).error();
        e.detail = fmt::format("record {} at byte {}: {}", out.size(), pos, e.detail);
        return e;
      }
      m->body = std::move(*body);
      m->sys_flag &= ~sysflag::kCompressed;
    }
    out.push_back(std::move(*m));
    pos += r.size_bytes;
  }
  return out;
}

}  // namespace ferry
