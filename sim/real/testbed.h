// Testbed: the hosts of one `mqsim run --real`, each in a network namespace of its own, with its
// own address on one bridge, and the kernel's packet filter doing what the simulator's network
// does to links (partition, one-way partition, silence/isolate, heal).
//
// Layout. Namespace "ferry<pid>-hub" holds a bridge; each host gets namespace
// "ferry<pid>-<host>", a veth pair whose outer end is a port of the bridge and whose inner end is
// the host's eth0 with address 10.77.0.<10 + i>/24, and loopback. Nothing routes out of the
// bridge, so traffic goes only between the run's own namespaces. (<pid> is the runner's: two runs
// at once do not meet, and a run that died is recognised by its pid.)
//
// Links. Each host's namespace has one nftables table, `inet ferry`: its output chain drops
// packets to the addresses in set `cut_to`, and both chains drop everything to or from the
// subnet while set `dark` holds it (loopback always passes). cut(a, b) drops a's packets to b,
// which is a one-way partition; a partition is cut(a, b) and cut(b, a). A dropped packet
// vanishes: no reset, no ICMP error, as on a pulled cable.
//
// Removal. remove() (and the destructor) deletes every namespace of the run, which takes the
// veths, the bridge and the rules with it; the runner first stops what runs inside. sweep()
// removes what a run that died (its pid gone) left behind. Root only: create() says so otherwise.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "runtime/result.h"

namespace ferry::sim::real {

// The network a run's hosts share; the runner's own process stays outside.
inline constexpr const char* kSubnet = "10.77.0.0/24";

class Testbed {
 public:
  // Makes the namespaces, the bridge and the links of `hosts` (names as the scenario's nodes:
  // letters, digits and '-', at most 40 characters each; at most 200 hosts). Errors: not root
  // (EPERM: "mqsim run --real needs root (network namespaces, nftables)"), ip or nft missing, any
  // command that fails (named, with its output); what was made by then is removed again.
  static Result<std::unique_ptr<Testbed>> create(const std::vector<std::string>& hosts);

  ~Testbed();
  Testbed(const Testbed&) = delete;
  Testbed& operator=(const Testbed&) = delete;

  // Deletes every namespace of the run. Safe to call twice; the first error is returned but the
  // rest is still removed.
  Status remove();

  const std::vector<std::string>& hosts() const { return hosts_; }
  bool has(const std::string& host) const { return index_.count(host) > 0; }
  // The host's address ("10.77.0.12") and namespace name; asserts that the host exists.
  std::string ip(const std::string& host) const;
  std::string netns(const std::string& host) const;
  // An fd of the host's namespace (for setns), open for the Testbed's life.
  int netns_fd(const std::string& host) const;

  // Packets from `from` to `to` dropped (cut) or let through again (uncut). Idempotent.
  Status cut(const std::string& from, const std::string& to);
  Status uncut(const std::string& from, const std::string& to);
  // Every packet to and from the host dropped (silence, isolate), or let through again.
  Status darken(const std::string& host);
  Status undarken(const std::string& host);
  // Every cut and every darkened host undone.
  Status heal_all();
  // What is cut now, as "a->b" and "dark:a" (for messages and tests).
  std::vector<std::string> describe_cuts() const;

  // Namespaces named ferry<pid>-* whose runner is gone, removed with what runs in them. Returns
  // how many were removed.
  static Result<std::size_t> sweep();
  // The namespaces of run `pid` that exist now (a test checks that a run left none).
  static std::vector<std::string> namespaces_of(long pid);

 private:
  Testbed() = default;
  Status nft(const std::string& host, const std::string& script);

  long pid_ = 0;
  std::string ip_tool_, nft_tool_;
  std::vector<std::string> hosts_;
  std::map<std::string, std::size_t> index_;
  std::vector<int> fds_;
  int hub_fd_ = -1;
  std::vector<std::string> made_;  // namespaces made, hub first
  std::set<std::pair<std::string, std::string>> cuts_;
  std::set<std::string> dark_;
  bool removed_ = false;
};

}  // namespace ferry::sim::real
