#include "client/consume_directly.h"

#include <exception>

#include "common/names.h"
#include "runtime/assert.h"

namespace ferry::client {

namespace {

struct DirectCall {
  std::shared_ptr<const ConcurrentListener> concurrent;
  std::shared_ptr<const OrderlyListener> orderly;
  std::vector<MessageExt> msgs;
  MessageQueue queue;
  bool ok = false;
  std::optional<std::string> thrown;
};

}  // namespace

Task<remoting::body::ConsumeMessageDirectlyResult> consume_directly(Runtime& rt,
                                                                   std::shared_ptr<const ConcurrentListener> concurrent,
                                                                   std::shared_ptr<const OrderlyListener> orderly,
                                                                   MessageExt msg, std::string broker_name) {
  FERRY_ASSERT((concurrent == nullptr) != (orderly == nullptr), "consume_directly with {} concurrent and {} orderly listener(s)",
               concurrent ? 1 : 0, orderly ? 1 : 0);
  auto call = std::make_shared<DirectCall>();
  call->concurrent = std::move(concurrent);
  call->orderly = std::move(orderly);
  call->queue = MessageQueue{msg.topic, std::move(broker_name), msg.queue_id};
  if (msg.topic.starts_with(kRetryTopicPrefix)) {
    if (auto original = msg.retry_topic()) msg.topic = std::string(*original);
  }
  call->msgs.push_back(std::move(msg));
  std::function<void()> fn = [call] {
    try {
      if (call->concurrent) {
        ConsumeConcurrentlyContext ctx;
        ctx.queue = call->queue;
        call->ok = (*call->concurrent)(call->msgs, ctx) == ConsumeConcurrentlyStatus::CONSUME_SUCCESS;
      } else {
        ConsumeOrderlyContext ctx;
        ctx.queue = call->queue;
        call->ok = (*call->orderly)(call->msgs, ctx) == ConsumeOrderlyStatus::SUCCESS;
      }
    } catch (const std::exception& e) {
      call->thrown = e.what();
    } catch (...) {
      call->thrown = "an exception that is not a std::exception";
    }
  };
  const MonoTime began = rt.now();
  Task<void> t = rt.offload(std::move(fn));
  co_await std::move(t);
  remoting::body::ConsumeMessageDirectlyResult r;
  r.order = call->orderly != nullptr;
  r.auto_commit = true;
  r.spent_time_mills = std::chrono::duration_cast<std::chrono::milliseconds>(rt.now() - began).count();
  if (call->thrown) {
    r.consume_result = remoting::body::CMResult::CR_THROW_EXCEPTION;
    r.remark = "the listener threw: " + *call->thrown;
  } else {
    r.consume_result = call->ok ? remoting::body::CMResult::CR_SUCCESS : remoting::body::CMResult::CR_LATER;
  }
  co_return r;
}

}  // namespace ferry::client
