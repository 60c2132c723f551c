// What may bring a POP message back early, or after its ack, or let a FIFO queue go on before its
// batch is done (checkers pop-delivery and pop-fifo): a broker restart or promotion replays the
// revive log and reads offsets persisted before the crash (an ack or a popped offset may be lost),
// a FIFO queue's batch state is in memory only, a skewed wall clock moves pop and revive times,
// and a controller that names another master hands the queues to one serving the offsets
// SlaveSync copied last.
#pragma once

#include <string>
#include <vector>

#include "sim/history/history.h"

namespace ferry::sim::check {

struct PopExplanation {
  MonoTime at{};
  std::string target;  // "" the whole cluster; a broker node or a broker group's name
  // A clock skew takes effect by this long after it: a real daemon's libfaketime reads its offset
  // file every second (sim/real), so the broker's wall clock may jump a second late.
  Duration lasting{};
};
inline constexpr Duration kSkewTakesEffectWithin = std::chrono::seconds(2);

// The explaining events of `h` (crashes, starts and promotions of brokers, clock skews) and each
// change of a broker group's master a controller showed, in time order of the events first.
std::vector<PopExplanation> pop_explanations(const History& h);

// An explanation of broker group `broker` (its master or a slave: "broker-a", "broker-a-s1"), or
// of the whole cluster, in (from, to] (a skew: while it takes effect), widened by clock_margin on
// both sides (`from` and `to` are consumers' clocks; events are recorded in virtual time).
bool pop_explained_between(const std::vector<PopExplanation>& events, const std::string& broker, MonoTime from, MonoTime to);

}  // namespace ferry::sim::check
