// mqadmin: Ferry's admin tool, in the spirit of RocketMQ's mqadmin.
//
//   mqadmin SUBCOMMAND [-n "ip:port;ip:port"] [flags]
//   mqadmin --help             lists the subcommands
//   mqadmin SUBCOMMAND --help  shows one subcommand's flags
//
// -n defaults to $NAMESRV_ADDR, else 127.0.0.1:9876. --tls / --tls-config FILE: TLS to the
// NameServers and brokers (cli/tls_flags.h). Exit codes: 0 success, 1 the operation
// failed (the message names the NameServer or broker and the reply code), 2 bad usage.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "cli/credentials.h"
#include "cli/tls_flags.h"
#include "tools/mqadmin/command.h"

namespace {

using namespace ferry;
using namespace ferry::mqadmin;

constexpr const char* kDefaultNamesrv = "127.0.0.1:9876";

const std::vector<FlagSpec> kCommonFlags = {
    {'n', "namesrvAddr", "ADDRS", "NameServers, 'ip:port;ip:port' (default $NAMESRV_ADDR or 127.0.0.1:9876)"},
    cli::kTlsFlag,
    cli::kTlsConfigFlag,
    {'h', "help", "", "show this help"},
};

void print_overview() {
  std::string out = "usage: mqadmin SUBCOMMAND [-n namesrvAddr] [flags]\n\nsubcommands:\n";
  std::size_t width = 0;
  for (const Command& c : all_commands()) width = std::max(width, c.name.size());
  for (const Command& c : all_commands()) out += fmt::format("  {:<{}}  {}\n", c.name, width, c.summary);
  out += "\nrun 'mqadmin SUBCOMMAND --help' for a subcommand's flags.\n";
  std::fputs(out.c_str(), stdout);
}

std::vector<FlagSpec> specs_of(const Command& c) {
  std::vector<FlagSpec> specs = c.flags;
  specs.insert(specs.end(), kCommonFlags.begin(), kCommonFlags.end());
  for (const FlagSpec& s : cli::credential_flags()) specs.push_back(s);
  return specs;
}

void print_command_help(const Command& c) {
  const std::vector<FlagSpec> specs = specs_of(c);
  std::string synopsis;
  for (const FlagSpec& s : c.flags) {
    std::string f = s.short_name != 0 ? fmt::format("-{}", s.short_name) : fmt::format("--{}", s.long_name);
    if (!s.value_name.empty()) f = fmt::format("{} {}", f, s.value_name);
    synopsis += s.required ? fmt::format(" {}", f) : fmt::format(" [{}]", f);
  }
  std::fputs(fmt::format("usage: mqadmin {} [-n namesrvAddr]{}\n{}\n\nflags:\n{}", c.name, synopsis, c.summary, cli::flags_help(specs)).c_str(),
             stdout);
}

int run(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    print_overview();
    return kExitUsage;
  }
  const std::string& sub = args.front();
  if (sub == "-h" || sub == "--help" || sub == "help") {
    print_overview();
    return kExitOk;
  }
  const Command* command = nullptr;
  for (const Command& c : all_commands()) {
    if (c.name == sub) command = &c;
  }
  if (command == nullptr) {
    std::fprintf(stderr, "mqadmin: unknown subcommand '%s'; run 'mqadmin --help' for the list\n", sub.c_str());
    return kExitUsage;
  }
  const std::vector<FlagSpec> specs = specs_of(*command);
  Result<cli::ParsedFlags> flags = cli::parse_flags(specs, std::span<const std::string>(args).subspan(1));
  if (!flags.ok()) return usage_error(command->name, flags.error().detail);
  if (flags->has("help")) {
    print_command_help(*command);
    return kExitOk;
  }
  const char* env = std::getenv("NAMESRV_ADDR");
  const std::string namesrv = flags->get_or("namesrvAddr", env && *env ? env : kDefaultNamesrv);
  Result<std::vector<std::string>> addrs = cli::parse_namesrv_addrs(namesrv);
  if (!addrs.ok()) return usage_error(command->name, addrs.error().detail);
  Result<TlsOptions> tls = cli::client_tls_from_flags(*flags);
  if (!tls.ok()) return usage_error(command->name, tls.error().detail);
  Result<remoting::acl::Credentials> credentials = cli::credentials_from(*flags);
  if (!credentials.ok()) return usage_error(command->name, credentials.error().detail);
  AdminSession session(std::move(*addrs), std::move(*tls), std::move(*credentials));
  return command->run(*flags, session);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mqadmin: %s\n", e.what());
    return kExitFailed;
  }
}
