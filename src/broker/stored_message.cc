#include "broker/stored_message.h"

#include <fmt/format.h>

#include "common/message_decoder.h"
#include "common/record_reader.h"

namespace ferry::broker {

Result<MessageExt> look_message(const store::MessageStore& store, PhysicalOffset offset) {
  if (offset.value() < 0 || offset >= store.max_phy_offset()) {
    return Error(Errc::not_found, fmt::format("commit-log offset {} is outside the log [{}, {})", offset.value(),
                                              store.min_phy_offset().value(), store.max_phy_offset().value()));
  }
  auto view = store.message_at(offset);
  if (!view) return std::move(view).error();
  const RecordRead r = decode_record(view->bytes(), RecordDecodeOptions{.check_crc = false});
  if (r.kind != RecordKind::message) {
    return Error(Errc::corrupt, fmt::format("no message record at commit-log offset {}: {} {}", offset.value(),
                                            record_kind_name(r.kind), r.detail));
  }
  return to_message_ext(r.fields, r.size_bytes);
}

store::PutRequest copy_of(const MessageExt& m, std::string_view topic, QueueId queue, std::string_view properties,
                          std::int32_t reconsume_times) {
  store::PutRequest req;
  req.topic = topic;
  req.queue_id = queue;
  req.flag = m.flag;
  req.body = Bytes(m.body.data(), m.body.size());
  req.properties = properties;
  req.sys_flag = m.sys_flag;
  req.born_timestamp_ms = m.born_timestamp_ms;
  req.born_host = m.born_host;
  req.reconsume_times = reconsume_times;
  req.prepared_transaction_offset = m.prepared_transaction_offset;
  return req;
}

}  // namespace ferry::broker
