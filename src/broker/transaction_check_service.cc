#include "broker/transaction_check_service.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <vector>

#include "broker/retry_topics.h"
#include "broker/stored_message.h"
#include "common/message_const.h"
#include "common/message_decoder.h"
#include "common/msg_id.h"
#include "common/names.h"
#include "common/permission.h"
#include "common/properties.h"
#include "common/record_reader.h"
#include "common/record_writer.h"
#include "remoting/header/transaction_header.h"
#include "remoting/request_code.h"

namespace ferry::broker {

namespace {

namespace rc = remoting::request_code;
const QueueId kQueue0(0);
constexpr std::int32_t kOpsPerRead = 32;

Result<MessageExt> decode_view(const FileView& view) {
  const RecordRead r = decode_record(view.bytes(), RecordDecodeOptions{.check_crc = false});
  if (r.kind != RecordKind::message) {
    return Error(Errc::corrupt, fmt::format("not a message record: {} {}", record_kind_name(r.kind), r.detail));
  }
  return to_message_ext(r.fields, r.size_bytes);
}

// A decimal property, or nullopt when absent or not a number.
std::optional<std::int64_t> int_property(const MessageExt& m, std::string_view key) {
  std::optional<std::string_view> v = m.properties.get(key);
  if (!v) return std::nullopt;
  try {
    std::size_t used = 0;
    const std::int64_t n = std::stoll(std::string(*v), &used);
    if (used != v->size()) return std::nullopt;
    return n;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

TransactionCheckService::TransactionCheckService(Runtime& rt, const BrokerConfig& config, TransactionCheckOptions options,
                                                 store::MessageStore& store, ConsumerOffsetManager& offsets,
                                                 ProducerManager& producers, ClientCalls& calls, TopicConfigManager& topics)
    : rt_(rt),
      config_(config),
      options_(options),
      store_(store),
      offsets_(offsets),
      producers_(producers),
      calls_(calls),
      topics_(topics) {}

Task<void> TransactionCheckService::run_loop() {
  while (!stopped_) {
    co_await rt_.sleep(options_.check_interval);
    if (stopped_) break;
    if (config_.broker_role == BrokerRole::slave) continue;
    const Round r = check_once();
    if (r.checked > 0 || r.discarded > 0) {
      rt_.log().info("transactions: {} half message(s) checked ({} with no producer online), {} discarded, {} done",
                     r.checked, r.unasked, r.discarded, r.done);
    }
  }
}

TransactionCheckService::Round TransactionCheckService::check_once() {
  Round round;
  const std::string half_topic(kTransHalfTopic);
  const std::string op_topic(kTransOpHalfTopic);
  const QueueOffset half_start = offsets_.query(kTransactionCheckGroup, half_topic, kQueue0).value_or(store_.min_offset(half_topic, kQueue0));
  const QueueOffset op_start = offsets_.query(kTransactionCheckGroup, op_topic, kQueue0).value_or(store_.min_offset(op_topic, kQueue0));
  round.half_offset = half_start;

  // The op records from op_start on: half offset → the op record's own offset. An op naming a
  // half message before half_start was passed already: its op record is done.
  std::map<std::int64_t, std::int64_t> removed;
  std::set<std::int64_t> done_ops;
  QueueOffset op_at = op_start;
  for (std::int64_t read = 0; read < options_.ops_per_round_max;) {
    store::GetMessageResult got = store_.get_messages(op_topic, kQueue0, op_at, kOpsPerRead, nullptr);
    if (got.messages.empty()) break;
    for (std::size_t i = 0; i < got.messages.size(); ++i, ++read) {
      const std::int64_t op_offset = got.queue_offsets[i].value();
      Result<MessageExt> op = decode_view(got.messages[i]);
      std::optional<std::int64_t> half_offset;
      if (op.ok() && op->tags() == std::optional<std::string_view>("d")) {
        const std::string body(op->body.begin(), op->body.end());
        try {
          std::size_t used = 0;
          half_offset = std::stoll(body, &used);
          if (used != body.size()) half_offset.reset();
        } catch (const std::exception&) {
          half_offset.reset();
        }
      }
      if (!half_offset) {
        if (auto held = bad_record_log_.admit(rt_.now(), 1)) {
          rt_.log().warn("transactions: op record {} is not a \"d\" record naming a half offset; skipped{}", op_offset,
                         held_back_note(*held));
        }
        done_ops.insert(op_offset);
      } else if (*half_offset < half_start.value()) {
        done_ops.insert(op_offset);
      } else {
        removed.emplace(*half_offset, op_offset);
      }
    }
    op_at = got.next_begin_offset;
  }

  const MonoTime started = rt_.now();
  const WallMs started_wall = rt_.wall_ms();
  QueueOffset at = half_start;
  for (std::int64_t walked = 0; walked < options_.round_messages_max && rt_.now() - started < options_.round_time_max;
       ++walked) {
    if (auto it = removed.find(at.value()); it != removed.end()) {
      done_ops.insert(it->second);
      removed.erase(it);
      ++round.done;
      at = QueueOffset(at.value() + 1);
      continue;
    }
    store::GetMessageResult got = store_.get_messages(half_topic, kQueue0, at, 1, nullptr);
    if (got.messages.empty()) {
      if (got.next_begin_offset > at && got.next_begin_offset <= got.max_offset) {
        at = got.next_begin_offset;  // cleaned up below it: go on from what the queue holds
        continue;
      }
      break;
    }
    Result<MessageExt> half = decode_view(got.messages.front());
    if (!half.ok()) {
      if (auto held = bad_record_log_.admit(rt_.now(), 2)) {
        rt_.log().warn("transactions: half message at {}: {}; skipped{}", at.value(), half.error().to_string(),
                       held_back_note(*held));
      }
      at = QueueOffset(at.value() + 1);
      continue;
    }
    const std::int32_t times = static_cast<std::int32_t>(int_property(*half, prop::kTransactionCheckTimes).value_or(0));
    const std::int64_t age_ms = started_wall - half->born_timestamp_ms;
    if (times >= options_.check_max || age_ms > to_ms(store_.config().file_reserved_time)) {
      discard(*half);
      ++round.discarded;
      at = QueueOffset(at.value() + 1);
      continue;
    }
    if (half->store_timestamp_ms >= started_wall) break;  // stored during this round
    std::int64_t immunity_ms = to_ms(options_.transaction_timeout);
    if (std::optional<std::int64_t> s = int_property(*half, prop::kCheckImmunityTimeInSeconds); s && *s > 0) {
      immunity_ms = std::max(*s * 1000, immunity_ms);
    }
    if (age_ms >= 0 && age_ms < immunity_ms) break;  // too young; the later ones are younger
    if (!check(*half, times + 1, round)) break;
    at = QueueOffset(at.value() + 1);
  }

  if (at != half_start) (void)offsets_.commit(kTransactionCheckGroup, half_topic, kQueue0, at);
  QueueOffset op_next = op_start;
  while (done_ops.erase(op_next.value()) > 0) op_next = QueueOffset(op_next.value() + 1);
  if (op_next != op_start) (void)offsets_.commit(kTransactionCheckGroup, op_topic, kQueue0, op_next);
  round.half_offset = at;
  return round;
}

bool TransactionCheckService::check(const MessageExt& half, std::int32_t times, Round& round) {
  MessageExt copy = half;
  copy.properties.set(std::string(prop::kTransactionCheckTimes), std::to_string(times));
  Result<std::string> props = encode_properties(copy.properties);
  if (!props) {
    if (auto held = bad_record_log_.admit(rt_.now(), 3)) {
      rt_.log().warn("transactions: half message {}: properties: {}{}", half.physical_offset.value(),
                     props.error().detail, held_back_note(*held));
    }
    return true;  // cannot be re-stored; passed (a later round does not see it again)
  }
  store::PutRequest req = copy_of(copy, kTransHalfTopic, kQueue0, *props, half.reconsume_times);
  const store::PutResult put = store_.put_message(req);
  if (put.status != store::PutStatus::ok && put.status != store::PutStatus::flush_disk_timeout) {
    if (auto held = restore_error_log_.admit(rt_.now(), static_cast<std::int64_t>(put.status))) {
      rt_.log().warn("transactions: re-storing half message {} failed: {} {}{}", half.physical_offset.value(),
                     store::put_status_name(put.status), put.detail, held_back_note(*held));
    }
    return false;
  }
  ++round.checked;
  const std::optional<std::string_view> group = half.properties.get(prop::kProducerGroup);
  const auto* members = group ? producers_.find_group(*group) : nullptr;
  if (members == nullptr || members->empty()) {
    ++round.unasked;
    return true;
  }
  // The body: the copy as stored, shown under its real topic and queue (RocketMQ's
  // MessageDecoder.encode of the half message with REAL_TOPIC / REAL_QID put back).
  Result<FileView> stored = store_.message_at(put.wrote_offset);
  if (!stored.ok()) return true;
  const RecordRead r = decode_record(stored->bytes(), RecordDecodeOptions{.check_crc = false});
  if (r.kind != RecordKind::message) return true;
  RecordFields fields = r.fields;
  const std::optional<std::string_view> real_topic = half.real_topic();
  Result<std::optional<QueueId>> real_queue = half.real_queue_id();
  if (real_topic) fields.topic = *real_topic;
  if (real_queue.ok() && real_queue->has_value()) fields.queue_id = **real_queue;
  Result<std::size_t> size = record_size(fields);
  if (!size.ok()) return true;
  std::vector<std::uint8_t> body(*size);
  (void)encode_record(fields, MutableBytes(body.data(), body.size()));

  remoting::CheckTransactionStateRequestHeader h;
  h.tran_state_table_offset = put.queue_offset.value();
  h.commit_log_offset = put.wrote_offset.value();
  const std::optional<std::string_view> uniq = half.uniq_key();
  if (uniq) {
    h.msg_id = std::string(*uniq);
    h.transaction_id = std::string(*uniq);
  }
  h.offset_msg_id = encode_offset_msg_id(r.fields.store_host, put.wrote_offset);
  h.bname = config_.broker_name;
  remoting::RemotingCommand request = remoting::make_request(rc::CHECK_TRANSACTION_STATE, 0);
  request.ext_fields = h.to_fields();
  request.body = std::move(body);
  // One producer of the group, round-robin over its members (in key order: deterministic).
  std::size_t pick = static_cast<std::size_t>(next_producer_++ % members->size());
  auto it = members->begin();
  std::advance(it, static_cast<std::ptrdiff_t>(pick));
  rt_.spawn(send_check(this, it->second, std::move(request)), "tx-check");
  return true;
}

Task<void> TransactionCheckService::send_check(TransactionCheckService* self, ClientChannel to,
                                               remoting::RemotingCommand request) {
  Task<Status> work = self->calls_.oneway(to, std::move(request));
  Status sent = co_await std::move(work);
  if (!sent.ok()) {
    if (auto held = self->send_error_log_.admit(self->rt_.now(), static_cast<std::int64_t>(sent.error().code))) {
      self->rt_.log().warn("transactions: CHECK_TRANSACTION_STATE to {} not sent: {}{}", to.client_id,
                           sent.error().to_string(), held_back_note(*held));
    }
  }
}

void TransactionCheckService::discard(const MessageExt& half) {
  if (ensure_topic(topics_, kTransCheckMaxTimeTopic, 1, perm::kReadWrite, 0) == nullptr) {
    if (auto held = discard_log_.admit(rt_.now(), -1)) {
      rt_.log().warn("transactions: no room for topic {}; half message {} dropped{}", kTransCheckMaxTimeTopic,
                     half.physical_offset.value(), held_back_note(*held));
    }
    return;
  }
  Result<std::string> props = encode_properties(half.properties);
  if (!props) return;
  const store::PutResult put = store_.put_message(copy_of(half, kTransCheckMaxTimeTopic, kQueue0, *props, half.reconsume_times));
  if (auto held = discard_log_.admit(rt_.now(), static_cast<std::int64_t>(put.status))) {
    rt_.log().warn("transactions: half message {} of group {} unresolved after {} check(s): moved to {} ({}){}",
                   half.physical_offset.value(), half.properties.get(prop::kProducerGroup).value_or("?"),
                   half.properties.get(prop::kTransactionCheckTimes).value_or("0"), kTransCheckMaxTimeTopic,
                   store::put_status_name(put.status), held_back_note(*held));
  }
}

}  // namespace ferry::broker
