#include "tests/daemons/kill_traffic.h"

#include <fmt/format.h>
#include <signal.h>

#include <chrono>

#include "tests/daemons/wire_client.h"

namespace ferry::daemons_test {

namespace {

Task<void> sender(KillTraffic* t, int id) {
  for (int seq = 0; seq < 5000; ++seq) {
    std::string body = fmt::format("s{}-{}", id, seq);
    const SendOutcome s = co_await WireClient::send(t->rpc, t->addr, t->topic, id % t->queues, body);
    if (s.code == -1) break;  // the broker is gone
    if (s.code != 0) {
      ++t->other_codes[s.code];
      if (t->stop_on_refusal) break;
      continue;
    }
    t->acked[{s.queue_id, s.queue_offset}] = std::move(body);
    if (++t->acks >= t->kill_after_acks && !t->killed) {
      t->killed = true;
      ::kill(t->victim, SIGKILL);  // mid-traffic: other sends are in flight
    }
  }
  --t->running;
}

}  // namespace

Task<void> run_kill_traffic(KillTraffic* t, AsioRuntime* rt, int senders) {
  t->running = senders;
  for (int i = 0; i < senders; ++i) rt->spawn(sender(t, i), "sender");
  while (t->running > 0) co_await rt->sleep(std::chrono::milliseconds(10));
}

}  // namespace ferry::daemons_test
