// The set-up of `mqbench hostile`: the calls that give every broker the same data shape, over a
// WireConn (tests/support/wire_conn.h), with the requests built by tests/support/requests.h. The
// hostile requests themselves are built in mqbench_hostile.cc from the same builders.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "runtime/result.h"
#include "tests/support/wire_conn.h"

namespace ferry::bench {

using testing::WireClock;
using testing::WireConn;
using testing::WireReply;

inline constexpr std::chrono::milliseconds kSetupCallTimeout{10'000};
// The producer and consumer group of every request mqbench hostile sends.
inline constexpr const char* kHostileGroup = "mqbench-hostile";

// SEND_MESSAGE (V1 names) of `body` to queue 0 of `topic` with the encoded `properties` text,
// born now, group kHostileGroup.
remoting::RemotingCommand hostile_send(const std::string& topic, const std::string& body, const std::string& properties);
// PULL_MESSAGE of queue 0 of `topic` from `offset`, at most `max_msg_nums`, tag expression `tags`
// (no suspend, no commit), group kHostileGroup.
remoting::RemotingCommand hostile_pull(const std::string& topic, std::int64_t offset, std::int32_t max_msg_nums,
                                       const std::string& tags);

// UPDATE_AND_CREATE_TOPIC with one read and one write queue. Errors: the call's, or
// invalid_argument naming the reply code.
Status create_topic(WireConn& conn, const std::string& topic);
// GET_MAX_OFFSET of queue 0. Errors: as create_topic().
Result<std::int64_t> max_offset(WireConn& conn, const std::string& topic);
// Sends `count` messages of `body` (properties `properties`) to queue 0 of `topic`, up to `window`
// in flight on `conn`; returns the CommitLog offset of the first one stored (from its offset msgId).
// Errors: the first failed call or refusal.
Result<std::int64_t> fill_queue(WireConn& conn, const std::string& topic, std::int64_t count, const std::string& body,
                                const std::string& properties, int window);
// The broker address of the first broker serving `topic` (GET_ROUTEINFO_BY_TOPIC at `namesrv`).
Result<std::string> broker_of(const std::string& namesrv, const std::string& topic);

}  // namespace ferry::bench
