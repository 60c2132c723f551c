// Replay files: a generated scenario (a property test's run) written as a scenario file that
// `mqsim run FILE --seed N` replays.
#pragma once

#include <cstdint>
#include <string>

#include "sim/scenario/scenario.h"

namespace ferry::sim::io {

// Writes `s` (scenario_writer.h) with a comment naming the command that replays it into
// io::property_dir(), named by a hash of its text ("generated-<16 hex>.toml": the same scenario
// always gets the same file), and returns that command ("<mqsim> run FILE --seed SEED"). The file
// is written beside its place and renamed in, so two processes writing the same scenario never
// read each other's half-written file. When it cannot be written, returns a line saying so,
// followed by the scenario's text.
std::string write_replay_file(const scenario::Scenario& s, std::uint64_t seed);

// Writes the replay file and prints "property run: COMMAND" to stderr (flushed): the process may
// abort inside the run (an assertion in component code), and the last command printed replays
// it (io::announce_requested()).
void announce_replay(const scenario::Scenario& s, std::uint64_t seed);

// The replay command for a file already written.
std::string replay_command(const std::string& file, std::uint64_t seed);

}  // namespace ferry::sim::io
