// RuntimeInfoProcessor: GET_BROKER_RUNTIME_INFO (28) (RocketMQ's AdminBrokerProcessor
// .getBrokerRuntimeInfo). No header fields; the reply body is a KVTable
// ({"table":{"key":"value"}}, remoting/body/kv_table.h) with these keys (RocketMQ's names where
// RocketMQ has the key; units as RocketMQ reports them):
//
//   putTps, getTransferedTps   "T10 T60 T600": messages per second over the last 10 s, 60 s and
//                              600 s, two decimals each (BrokerStats: puts stored by sends,
//                              messages returned by pulls)
//   msgPutTotal, msgGetTotal   messages put / returned since the broker started (Ferry keys:
//                              RocketMQ reports per-day totals instead)
//   putMessageSizeTotal, getMessageSizeTotal   their record bytes since the start
//   commitLogMinOffset, commitLogMaxOffset     the CommitLog's physical offsets
//   remainHowManyDataToFlush   CommitLog bytes written but not yet synced
//   dispatchBehindBytes        CommitLog bytes not yet in the ConsumeQueues and index
//   commitLogDiskRatio         used / capacity of the store's disk, e.g. "0.4213" (the runtime's
//                              FileSystem::space(), read per request); "-1" when unknown
//   commitLogDirCapacity       "Total : 93.8 GiB, Free : 54.2 GiB." ("unknown" when unknown)
//   flushDiskType              ASYNC_FLUSH / SYNC_FLUSH; brokerRole ASYNC_MASTER / SYNC_MASTER / SLAVE
//   bootTimestamp              wall-clock ms when the broker object was built
//   runtime                    "[ 0 days, 1 hours, 2 minutes, 3 seconds ]" since then (monotonic)
//   brokerVersionDesc          "Ferry"
//
// Never fails: always SUCCESS.
#pragma once

#include "broker/broker_config.h"
#include "broker/broker_stats.h"
#include "broker/replies.h"
#include "store/message_store.h"

namespace ferry::broker {

class RuntimeInfoProcessor {
 public:
  // `boot_wall_ms`: the wall clock at the time of stats.boot_time().
  RuntimeInfoProcessor(Runtime& rt, const BrokerConfig& config, store::MessageStore& store, const BrokerStats& stats,
                       WallMs boot_wall_ms)
      : rt_(rt), config_(config), store_(store), stats_(stats), boot_wall_ms_(boot_wall_ms) {}

  Task<Reply> process(RequestContext ctx);

 private:
  Runtime& rt_;
  const BrokerConfig& config_;
  store::MessageStore& store_;
  const BrokerStats& stats_;
  const WallMs boot_wall_ms_;
};

// "[ 0 days, 1 hours, 2 minutes, 3 seconds ]" (RocketMQ's runtime text) for a duration >= 0.
std::string runtime_text(Duration up);

}  // namespace ferry::broker
