// Checker: request-reply (RocketMQ 4.6+; docs/request_reply.md). A reply reaches its requester or
// the request times out, never someone else's reply:
//  * a request that got a reply got the one that answers it: the reply's body (the replying app
//    echoes the request's) names the request itself, not another request of the same or another
//    requester (a reply to a request its requester's earlier life sent, pushed to the same client
//    id, must not be taken for a new one). A reply whose body does not parse is a violation when
//    corrupt deliveries are (CheckSettings::corrupt_fails);
//  * every request resolves — a reply, a timeout, a failed send — within its timeout (plus
//    kRequestSlack for the loop's turn), unless its requester was crashed, restarted, paused or
//    otherwise faulted (an Event naming it, or the whole cluster) before the bound passed, or the
//    run ended first. Request times are the requester's clock, events the world's: the window
//    widens by the most a swarm run's clock drift (500 ppm) moves them apart.
// Figures: requests, replied, timed_out, failed, pending, wrong_replies, corrupt_replies,
// resolve_max_ms (the longest a request took to resolve).
#pragma once

#include "sim/check/registry.h"
#include "sim/check/verdict.h"
#include "sim/history/history.h"

namespace ferry::sim::check {

// How late past its timeout a request may resolve: timers fire on the requester's loop, after
// what the same turn of the loop runs first.
inline constexpr Duration kRequestSlack = std::chrono::milliseconds(500);

Verdict check_request_reply(const History& h);

// The registry's entry (registry.h): runs on every History (passes with no request).
CheckerSpec request_reply_checker();

}  // namespace ferry::sim::check
