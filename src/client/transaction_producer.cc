#include "client/transaction_producer.h"

#include <fmt/format.h>

#include "client/trace_dispatcher.h"
#include "common/message_const.h"
#include "common/message_decoder.h"
#include "common/msg_id.h"
#include "common/sys_flag.h"
#include "remoting/header/transaction_header.h"
#include "remoting/request_code.h"

namespace ferry::client {

namespace {

namespace rc = remoting::request_code;

std::int32_t verdict_of(LocalTransactionState s) {
  switch (s) {
    case LocalTransactionState::commit: return sysflag::kTransactionCommitType;
    case LocalTransactionState::rollback: return sysflag::kTransactionRollbackType;
    case LocalTransactionState::unknown: return sysflag::kTransactionNotType;
  }
  return sysflag::kTransactionNotType;
}

}  // namespace

std::string_view name(LocalTransactionState s) {
  switch (s) {
    case LocalTransactionState::commit: return "COMMIT_MESSAGE";
    case LocalTransactionState::rollback: return "ROLLBACK_MESSAGE";
    case LocalTransactionState::unknown: return "UNKNOW";
  }
  return "UNKNOW";
}

TransactionProducer::TransactionProducer(ClientInstance& instance, ProducerConfig config, TransactionListener listener)
    : ci_(instance), producer_(instance, std::move(config)), listener_(std::move(listener)) {}

TransactionProducer::~TransactionProducer() {
  *alive_ = false;
  ci_.set_transaction_check_handler(producer_.config().group, {});
}

Status TransactionProducer::start() {
  if (!listener_.check) return Error(Errc::invalid_argument, "a transaction producer needs a listener with check");
  FERRY_TRY(producer_.start());
  ci_.set_transaction_check_handler(producer_.config().group,
                                    [this, alive = alive_](remoting::RequestContext ctx) -> Task<void> {
                                      if (!*alive) co_return;
                                      Task<void> work = on_check(this, alive, std::move(ctx));
                                      co_await std::move(work);
                                    });
  return {};
}

Task<void> TransactionProducer::shutdown() {
  ci_.set_transaction_check_handler(producer_.config().group, {});
  co_await producer_.shutdown();
}

Task<Result<TransactionSendResult>> TransactionProducer::send_half(Message msg) {
  (void)msg.properties.erase(prop::kDelay);
  msg.properties.set(std::string(prop::kTransactionPrepared), "true");
  msg.properties.set(std::string(prop::kProducerGroup), producer_.config().group);
  TransactionSendResult out;
  if (producer_.trace() != nullptr) {
    out.tags = std::string(msg.properties.get(prop::kTags).value_or(""));
    out.keys = std::string(msg.properties.get(prop::kKeys).value_or(""));
  }
  Result<SendResult> sent = co_await producer_.send(std::move(msg));
  if (!sent.ok()) co_return std::move(sent).error();
  out.send = *std::move(sent);
  co_return out;
}

Task<Result<TransactionSendResult>> TransactionProducer::send_in_transaction(Message msg) {
  if (!listener_.execute) {
    co_return Error(Errc::invalid_argument, "send_in_transaction needs a listener with execute (or use send_half)");
  }
  const Message local = msg;  // what `execute` sees (the body moves into the send)
  Task<Result<TransactionSendResult>> sending = send_half(std::move(msg));
  Result<TransactionSendResult> half = co_await std::move(sending);
  if (!half.ok()) co_return std::move(half).error();
  TransactionSendResult out = *std::move(half);
  if (out.send.status == SendStatus::SEND_OK) {
    LocalTransactionState state = LocalTransactionState::unknown;
    try {
      // Named, not a temporary in the co_await (the GCC 12 pitfall, docs/runtime.md).
      std::function<void()> run = [&] { state = listener_.execute(local, out.send); };
      Task<void> work = ci_.runtime().offload(std::move(run));
      co_await std::move(work);
    } catch (const std::exception& e) {
      if (auto held = listener_error_log_.admit(ci_.runtime().now(), 1)) {
        ci_.runtime().log().warn("transaction of {}: the local transaction threw: {}{}", out.send.msg_id, e.what(),
                                 held_back_note(*held));
      }
      state = LocalTransactionState::unknown;
    }
    out.state = state;
  } else {
    out.state = LocalTransactionState::rollback;  // stored but not safely: RocketMQ rolls it back
  }
  Task<void> ending = end_transaction(out, out.state);
  co_await std::move(ending);
  co_return out;
}

Task<void> TransactionProducer::end_transaction(const TransactionSendResult& half, LocalTransactionState state) {
  const SendResult& sent = half.send;
  std::optional<std::string> addr = ci_.master_address(sent.queue.broker_name);
  Result<OffsetMsgId> id = decode_offset_msg_id(sent.offset_msg_id);
  if (!addr || !id.ok()) {
    if (auto held = end_error_log_.admit(ci_.runtime().now(), -1)) {
      ci_.runtime().log().warn("transaction of {}: END_TRANSACTION not sent ({}); the broker will ask{}", sent.msg_id,
                               addr ? id.error().to_string() : "no master address for " + sent.queue.broker_name,
                               held_back_note(*held));
    }
    co_return;
  }
  Task<void> sending = send_end(*addr, sent.queue_offset.value(), id->offset.value(), sent.msg_id, sent.transaction_id, state,
                                false, Traced{sent.queue.topic, half.tags, half.keys});
  co_await std::move(sending);
}

Task<void> TransactionProducer::send_end(std::string addr, std::int64_t queue_offset, std::int64_t commit_log_offset,
                                                std::string msg_id, std::optional<std::string> transaction_id,
                                                LocalTransactionState state, bool from_check, Traced traced) {
  remoting::EndTransactionRequestHeader h;
  h.producer_group = producer_.config().group;
  h.tran_state_table_offset = queue_offset;
  h.commit_log_offset = commit_log_offset;
  h.commit_or_rollback = verdict_of(state);
  h.from_transaction_check = from_check;
  h.msg_id = std::move(msg_id);
  h.transaction_id = std::move(transaction_id);
  remoting::RemotingCommand req = remoting::make_request(rc::END_TRANSACTION, 0);
  req.ext_fields = h.to_fields();
  TraceContext c;
  if (TraceDispatcher* trace = producer_.trace(); trace != nullptr && !traced.topic.starts_with(trace->topic())) {
    c.type = TraceType::end_transaction;
    c.timestamp_ms = ci_.runtime().wall_ms();
    c.region_id = "DefaultRegion";  // RocketMQ's DEFAULT_TRACE_REGION_ID: a half message carries no MSG_REGION
    c.group = h.producer_group;
    c.bean.topic = std::move(traced.topic);
    c.bean.msg_id = h.msg_id;
    c.bean.tags = std::move(traced.tags);
    c.bean.keys = std::move(traced.keys);
    c.bean.store_host = addr;
    c.bean.msg_type = 2;  // MessageType.Trans_msg_Commit, whatever the verdict (as RocketMQ writes it)
    c.bean.client_host = ci_.client_id();
    c.bean.transaction_id = h.transaction_id.value_or("");
    c.bean.transaction_state = h.commit_or_rollback == sysflag::kTransactionCommitType     ? "COMMIT_MESSAGE"
                               : h.commit_or_rollback == sysflag::kTransactionRollbackType ? "ROLLBACK_MESSAGE"
                                                                                            : "UNKNOW";
    c.bean.from_transaction_check = from_check;
  }
  Status s = co_await ci_.rpc().invoke_oneway(addr, std::move(req));
  if (!s.ok()) {
    if (auto held = end_error_log_.admit(ci_.runtime().now(), static_cast<std::int64_t>(s.error().code))) {
      ci_.runtime().log().warn("END_TRANSACTION ({}) of {} to {} not sent: {}; the broker will ask{}", name(state),
                               h.msg_id, addr, s.error().to_string(), held_back_note(*held));
    }
  }
  if (c.type == TraceType::end_transaction) (void)producer_.trace()->append(c);
}

Task<void> TransactionProducer::on_check(TransactionProducer* self, std::shared_ptr<bool> alive, remoting::RequestContext ctx) {
  auto h = remoting::CheckTransactionStateRequestHeader::from_fields(ctx.request.ext_fields);
  auto decoded = decode_messages(Bytes(ctx.request.body.data(), ctx.request.body.size()), MessagesDecodeOptions{});
  if (!h.ok() || !decoded.ok() || decoded->size() != 1) co_return;
  const MessageExt half = std::move(decoded->front());
  const std::string addr = ctx.channel->peer_text();
  LocalTransactionState state = LocalTransactionState::unknown;
  std::string threw;
  try {
    std::function<void()> run = [&] { state = self->listener_.check(half); };
    Task<void> work = self->ci_.runtime().offload(std::move(run));
    co_await std::move(work);
  } catch (const std::exception& e) {
    threw = e.what();
    state = LocalTransactionState::unknown;
  }
  if (!*alive) co_return;  // the producer went away while the listener ran
  if (!threw.empty()) {
    if (auto held = self->listener_error_log_.admit(self->ci_.runtime().now(), 2)) {
      self->ci_.runtime().log().warn("transaction check of {}: the listener threw: {}{}", half.msg_id(), threw,
                                     held_back_note(*held));
    }
  }
  ++self->checks_answered_;
  std::string msg_id(half.uniq_key().value_or(half.offset_msg_id));
  Traced traced{half.topic, std::string(half.tags().value_or("")),
                std::string(half.properties.get(prop::kKeys).value_or(""))};
  co_await self->send_end(addr, h->tran_state_table_offset, h->commit_log_offset, std::move(msg_id), h->transaction_id,
                                 state, true, std::move(traced));
}

}  // namespace ferry::client
