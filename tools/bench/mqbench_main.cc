// mqbench: load generator and latency meter for a Ferry cluster.
//
//   mqbench produce -n 127.0.0.1:9876 --topic BenchmarkTest --seconds 10 [flags]
//   mqbench consume -n 127.0.0.1:9876 --topic BenchmarkTest --group G --seconds 10 [flags]
//   mqbench e2e -n 127.0.0.1:9876 --topic BenchmarkTest --create-topic --rate 10000 --seconds 10
//   mqbench hostile -b 127.0.0.1:10911 [flags]
//   mqbench SUBCOMMAND --help
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "tools/bench/mqbench.h"

namespace {

void print_overview() {
  std::fputs(
      "usage: mqbench SUBCOMMAND [flags]\n\n"
      "subcommands:\n"
      "  produce  send messages for a while; per-second and final throughput, send latency, errors\n"
      "  consume  receive messages with a push consumer; throughput and end-to-end latency\n"
      "  e2e      produce and consume at once (optionally at a --rate); send and end-to-end latency\n"
      "  hostile  the latency another client sees while the broker serves hostile requests\n\n"
      "run 'mqbench SUBCOMMAND --help' for its flags.\n",
      stdout);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ferry::bench;
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    print_overview();
    return kExitUsage;
  }
  const std::string& sub = args.front();
  try {
    if (sub == "-h" || sub == "--help" || sub == "help") {
      print_overview();
      return kExitOk;
    }
    const std::span<const std::string> rest = std::span<const std::string>(args).subspan(1);
    if (sub == "produce") return produce_main(rest);
    if (sub == "consume") return consume_main(rest);
    if (sub == "e2e") return e2e_main(rest);
    if (sub == "hostile") return hostile_main(rest);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mqbench: %s\n", e.what());
    return kExitFailed;
  }
  std::fprintf(stderr, "mqbench: unknown subcommand '%s'; run 'mqbench --help'\n", sub.c_str());
  return kExitUsage;
}
