// The requests `mqbench hostile` sends, built with remoting's typed headers (JSON-serialized, as
// RocketMQ's Java client sends them), and the set-up that gives every broker the same data shape.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "remoting/remoting_command.h"
#include "runtime/result.h"
#include "tools/bench/wire_conn.h"

namespace ferry::bench {

inline constexpr std::chrono::milliseconds kSetupCallTimeout{10'000};

// SEND_MESSAGE of `body` to queue 0 of `topic` with the encoded `properties` (none when empty).
remoting::RemotingCommand send_request(const std::string& topic, const std::string& body, const std::string& properties);
// PULL_MESSAGE of queue 0 of `topic` from `offset` with tag expression `tags` (no suspend, no commit).
remoting::RemotingCommand pull_request(const std::string& topic, std::int64_t offset, std::int32_t max_msg_nums,
                                       const std::string& tags);
remoting::RemotingCommand view_request(std::int64_t physical_offset);

// UPDATE_AND_CREATE_TOPIC with one read and one write queue. Errors: the call's, or invalid_argument
// naming the reply code.
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

// "13 MESSAGE_ILLEGAL" for a reply code.
std::string code_text(std::int32_t code);

}  // namespace ferry::bench
