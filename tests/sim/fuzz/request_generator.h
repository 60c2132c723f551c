// RequestGenerator: hostile broker requests for the broker fuzzer (tests/sim/broker_fuzz_test.cc).
//
// command() draws a request code (every code the broker serves, codes it serves elsewhere or
// never, unknown and out-of-int16 codes), starts from a valid-looking header and body for it
// (FuzzTargets names the topics, groups and stored offsets worth aiming at), then mutates it:
// fields dropped, replaced with hostile text (huge, negative, overflowing or non-numeric numbers,
// very long strings, non-UTF-8 bytes), random keys added, flags and version changed, bodies
// truncated, replaced with random bytes or grown up to a bound. frame() encodes a command as JSON
// or as RocketMQ's binary header and sometimes damages the bytes (bit flips, truncation, a lying
// totalLen or header length, a bad serialize type, spliced ranges).
//
// Every draw comes from the Random it was given (forked from the World's seeded source), so a
// seed replays the same requests. Everything is bounded: a frame is at most frame_bytes_max + 64
// bytes, a header at most a few hundred fields. Single-threaded, a plain value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "remoting/remoting_command.h"
#include "runtime/random.h"

namespace ferry::sim::fuzz {

struct FuzzTargets {
  std::vector<std::string> topics;  // topics requests aim at (existing ones and made-up ones)
  std::vector<std::string> groups;  // consumer and producer groups
  std::vector<std::int64_t> commit_log_offsets;  // where stored records start (VIEW_MESSAGE_BY_ID)
  std::string broker_name;
  std::string cluster_name;
  std::size_t frame_bytes_max = 0;  // the broker's; bodies grow up to about it, rarely
};

// What frame() did to the encoded command, for the fuzzer's log of a failing request.
struct FrameBytes {
  std::vector<std::uint8_t> bytes;
  std::string how;  // "json", "binary", "json+bitflip(3)", "binary+truncate(17/230)", ...
};

class RequestGenerator {
 public:
  RequestGenerator(Random rng, FuzzTargets targets);

  // A request with `opaque`, two-way unless the flag mutation says otherwise.
  remoting::RemotingCommand command(std::int32_t opaque);
  // A valid request of `code` (no mutation), for the codes the generator knows.
  remoting::RemotingCommand valid(std::int32_t code, std::int32_t opaque);
  // The frame bytes of `cmd`, damaged with probability 1/damage_one_in (0: never).
  FrameBytes frame(const remoting::RemotingCommand& cmd, std::uint64_t damage_one_in);

  // A record the broker stored during the run (a fuzzed send's msgId): later requests that take
  // a CommitLog offset (VIEW_MESSAGE_BY_ID, CONSUMER_SEND_MSG_BACK) aim at it too. At most 256
  // are kept (a new one replaces a random one).
  void learn_record(std::int64_t commit_log_offset);

  Random& random() { return rng_; }
  // Every code command() draws from (known request codes; unknown ones are drawn besides).
  static const std::vector<std::int32_t>& known_codes();

 private:
  std::string pick(const std::vector<std::string>& from);
  std::string hostile_text();
  std::string number_text();
  // A message's properties: KEYS and TAGS, sometimes the broker's special keys with hostile values.
  std::string properties();
  std::vector<std::uint8_t> random_bytes(std::size_t n);
  void mutate_fields(remoting::ExtFields& fields);
  void mutate_body(std::vector<std::uint8_t>& body);
  void damage(std::vector<std::uint8_t>& bytes, std::string& how);

  Random rng_;
  FuzzTargets targets_;
  bool hostile_ = false;
  std::optional<std::int64_t> latest_;  // the record learned last  // valid() draws special properties and sysFlag bits (inside command())
};

}  // namespace ferry::sim::fuzz
