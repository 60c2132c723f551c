// execute / require_check / showValue of sim/property/property.h.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <ostream>
#include <string>

#include "sim/io/environment.h"
#include "sim/io/replay_file.h"
#include "sim/property/property.h"
#include "sim/scenario/scenario_names.h"

namespace ferry::sim::property {

namespace {

std::string describe_fault(const scenario::FaultEntry& f) {
  std::string line = fmt::format("at {} ms {} {}", to_ms(f.at), f.action, fmt::join(f.targets, ","));
  if (!f.peers.empty()) line += fmt::format(" / {}", fmt::join(f.peers, ","));
  if (auto it = f.params.find("latency"); it != f.params.end() && std::get<Duration>(it->second) > Duration{}) {
    line += fmt::format(" +{} ms", to_ms(std::get<Duration>(it->second)));
  }
  if (auto it = f.params.find("skew"); it != f.params.end() && std::get<Duration>(it->second) != Duration{}) {
    line += fmt::format(" skew {} ms", to_ms(std::get<Duration>(it->second)));
  }
  if (f.duration) line += fmt::format(" for {} ms", to_ms(*f.duration));
  return line;
}

// The first violation and how to replay, for a failed requirement.
std::string failure_text(const Outcome& out, const std::string& what) {
  return fmt::format("{}\nreplay: {}\n(and RC_PARAMS=\"reproduce=...\" printed below regenerates the same run)", what,
                     write_replay(out.run));
}

}  // namespace

std::string write_replay(const GeneratedRun& run) { return io::write_replay_file(run.scenario, run.seed); }

void showValue(const GeneratedRun& run, std::ostream& os) {
  const scenario::Scenario& s = run.scenario;
  os << fmt::format("seed {}, {} NameServer(s), run {} ms{}\n", run.seed, s.cluster.namesrvs, to_ms(s.run.length),
                    s.run.swarm ? ", swarm" : "");
  for (const cluster::BrokerGroupSpec& g : s.cluster.brokers) {
    os << fmt::format("  group {}: {}, {}, {} slave(s){}\n", g.name, scenario::name_in(scenario::flush_mode_names(), g.flush),
                      scenario::name_in(scenario::master_role_names(), g.role), g.slaves,
                      g.controller_mode ? fmt::format(", controller mode ({} controllers)", s.cluster.controllers) : "");
  }
  for (const cluster::TopicSpec& t : s.cluster.topics) {
    os << fmt::format("  topic {}: {} queue(s){}\n", t.name, t.queues, t.ordered ? ", ordered" : "");
  }
  for (const scenario::ProducerScenario& p : s.producers) {
    os << fmt::format("  {} -> {}: {} messages every {} ms, {} key(s){}{}{}\n", p.node, p.spec.topic, p.spec.messages,
                      to_ms(p.spec.interval), p.spec.keys.size(), p.spec.ordered ? ", by key hash" : "",
                      p.spec.transactions ? ", in transactions" : "",
                      p.spec.timers ? fmt::format(", timers of {}-{} ms", to_ms(p.spec.timers->min), to_ms(p.spec.timers->max)) : "");
  }
  for (const scenario::ConsumerScenario& c : s.consumers) {
    os << fmt::format("  {} in {} <- {}: {} {}{}{}{}\n", c.node, c.spec.group, c.spec.topic, scenario::consumer_kind_name(c.kind),
                      scenario::consume_mode_name(c.mode),
                      c.spec.pop ? fmt::format(" ({} ms invisible, {} a POP, {}% acknowledged)", to_ms(c.spec.pop->invisible_time),
                                               c.spec.pop->batch, c.spec.pop->ack_percent)
                                 : "",
                      c.start_at > Duration{} ? fmt::format(", joins at {} ms", to_ms(c.start_at)) : "",
                      c.stop_at ? fmt::format(", leaves at {} ms", to_ms(*c.stop_at)) : "");
  }
  if (s.faults.empty()) os << "  no faults\n";
  for (const scenario::FaultEntry& f : s.faults) os << "  fault " << describe_fault(f) << "\n";
}

Outcome execute(const GeneratedRun& run) {
  io::quiet_logs_unless_asked();
  if (io::announce_requested()) io::announce_replay(run.scenario, run.seed);
  Outcome out{run, scenario::run_scenario(run.scenario, run.seed)};
  if (out.result.error) {
    RC_FAIL(fmt::format("the generated run could not be carried out (a generator bug): {}\nscenario: {}",
                        out.result.error->to_string(), write_replay(run)));
  }
  return out;
}

const check::Verdict* verdict(const Outcome& out, std::string_view name) {
  for (const check::Verdict& v : out.result.verdicts) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

void require_check(const Outcome& out, std::string_view name) {
  const check::Verdict* v = verdict(out, name);
  if (v == nullptr) RC_FAIL(failure_text(out, fmt::format("checker {} did not run", name)));
  if (!v->passed) RC_FAIL(failure_text(out, v->to_line()));
}

void require_converged(const Outcome& out) {
  const scenario::RunOutcome& r = out.result;
  if (!r.live.converged || !r.live.missing.empty()) RC_FAIL(failure_text(out, "liveness: " + r.live.to_string()));
}

}  // namespace ferry::sim::property
