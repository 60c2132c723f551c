// SimNetwork: addresses, listen/connect and the fault controls. Moving bytes is in transport.cc.
#include "sim/net/network.h"

#include <fmt/format.h>

#include "sim/net/connection.h"
#include "sim/net/listener.h"
#include "sim/node.h"
#include "sim/world.h"

namespace ferry::sim {

namespace {
constexpr std::uint16_t kEphemeralFirst = 40000;
}

// One connect() in progress. `finished` turns true when it completed, timed out or its awaiting
// frame was destroyed; later events for it do nothing.
struct ConnectAttempt {
  NodeId from;
  Endpoint to;
  Endpoint local;
  Completion<Result<std::unique_ptr<Connection>>> done;
  bool finished = false;
  TimerId timeout_event;
  std::shared_ptr<ConnState> conn;  // established on the server side, not yet answered
  MonoTime first_syn{};
  int syns = 0;       // SYNs sent so far
  TimerId syn_timer;  // the next retransmission (or the end)
};

namespace {

// Linux's SYN retransmission (net.ipv4.tcp_syn_retries = 6, initial RTO 1 s, doubling): an
// unanswered SYN goes again 1, 3, 7, 15, 31 and 63 s after the first, and the connect fails 127 s
// after it. A connect pending when a partition heals so completes at its next retransmission
// (measured for real: `mqsim run --real`, docs/scenarios.md), not at its timeout.
constexpr int kSynRetries = 6;
constexpr Duration kSynRtoInitial = std::chrono::seconds(1);

// When SYN number `n` (1-based) is due, or the connect gives up (n = kSynRetries + 2).
Duration syn_due(int n) { return kSynRtoInitial * ((1 << (n - 1)) - 1); }

}  // namespace

SimNetwork::SimNetwork(World& world, NetworkOptions options, Random random)
    : world_(world), options_(options), random_(random) {
  options_.check();
}

SimNetwork::~SimNetwork() = default;

void SimNetwork::set_options(NetworkOptions options) {
  options.check();
  options_ = options;
}

// ---- addresses -------------------------------------------------------------------------------

void SimNetwork::add_host(NodeId node, std::string host) {
  FERRY_ASSERT(by_host_.count(host) == 0, "host {} is taken", host);
  by_host_.emplace(host, node);
  hosts_.emplace(node, std::move(host));
  next_port_.emplace(node, kEphemeralFirst);
}

const std::string& SimNetwork::host_of(NodeId node) const {
  auto it = hosts_.find(node);
  FERRY_ASSERT(it != hosts_.end(), "no host for node {}", node.value);
  return it->second;
}

std::optional<NodeId> SimNetwork::resolve(const std::string& host) const {
  auto it = by_host_.find(host);
  if (it == by_host_.end()) return std::nullopt;
  return it->second;
}

Executor& SimNetwork::executor_of(NodeId node) { return world_.node(node).executor(); }

std::uint16_t SimNetwork::ephemeral_port(NodeId node) {
  std::uint16_t& next = next_port_.at(node);
  for (int tries = 0; tries < 65536; ++tries) {
    const std::uint16_t port = next;
    next = next == 65535 ? kEphemeralFirst : static_cast<std::uint16_t>(next + 1);
    if (listeners_.count(Endpoint{host_of(node), port}) == 0) return port;
  }
  FERRY_UNREACHABLE("node {} has no free port", node.value);
}

Duration SimNetwork::latency(NodeId from, NodeId to) {
  Duration d = options_.latency_min +
               Duration(static_cast<std::int64_t>(random_.exponential(static_cast<std::uint64_t>(options_.latency_tail_mean.count()))));
  if (auto it = clogs_.find({from, to}); it != clogs_.end()) d += it->second;
  return d;
}

// ---- listen / connect ------------------------------------------------------------------------

Result<std::unique_ptr<Listener>> SimNetwork::listen(NodeId node, const Endpoint& addr) {
  const std::string& host = host_of(node);
  if (addr.host != host && addr.host != "0.0.0.0") {
    return Error(Errc::invalid_argument, "node " + host + " cannot listen on " + addr.to_string());
  }
  Endpoint local{host, addr.port};
  if (local.port == 0) local.port = ephemeral_port(node);
  if (listeners_.count(local) > 0) return Error(Errc::address_in_use, local.to_string());
  auto state = std::make_shared<ListenerState>();
  state->node = node;
  state->local = local;
  listeners_.emplace(local, state);
  return std::unique_ptr<Listener>(std::make_unique<SimListener>(*this, std::move(state)));
}

void SimNetwork::close_listener(ListenerState& l, bool silent) {
  if (l.closed) return;
  l.closed = true;
  listeners_.erase(l.local);
  wake(l.accept_wait);
  for (auto& conn : l.backlog) {
    if (silent) {
      silence_side(conn, 1);
    } else {
      abort_side(conn, 1);
    }
  }
  l.backlog.clear();
}

std::shared_ptr<ConnState> SimNetwork::make_conn(NodeId client, Endpoint client_ep, NodeId server, Endpoint server_ep) {
  if (next_conn_id_ % 1024 == 0) {  // bounded registry: forget connections nobody holds
    for (auto it = conns_.begin(); it != conns_.end();) it = it->second.expired() ? conns_.erase(it) : std::next(it);
  }
  auto c = std::make_shared<ConnState>();
  c->id = ++next_conn_id_;
  c->side[0].node = client;
  c->side[0].local = std::move(client_ep);
  c->side[1].node = server;
  c->side[1].local = std::move(server_ep);
  conns_.emplace(c->id, c);
  ++stats_.connects;
  return c;
}

void SimNetwork::finish_connect(ConnectAttempt& a, Result<std::unique_ptr<Connection>> r) {
  FERRY_ASSERT(!a.finished, "connect to {} finished twice", a.to.to_string());
  a.finished = true;
  (void)world_.cancel(a.timeout_event);
  (void)world_.cancel(a.syn_timer);
  a.done.complete(std::move(r));
}

Task<Result<std::unique_ptr<Connection>>> SimNetwork::connect(NodeId from, Endpoint to, Duration timeout) {
  const std::optional<NodeId> server = resolve(to.host);
  if (!server) co_return Error(Errc::unreachable, "no simulated host " + to.host);
  auto a = std::make_shared<ConnectAttempt>(ConnectAttempt{
      from, to, Endpoint{host_of(from), ephemeral_port(from)},
      Completion<Result<std::unique_ptr<Connection>>>(executor_of(from)), false, TimerId{}, nullptr, MonoTime{}, 0, TimerId{}});
  std::weak_ptr<ConnectAttempt> weak = a;
  a->timeout_event = world_.schedule(world_.now() + std::max(timeout, Duration(0)), EventTag{}, [this, weak] {
    auto a = weak.lock();
    if (!a || a->finished) return;
    ++stats_.timed_out;
    if (a->conn) abort_side(a->conn, 0);
    finish_connect(*a, Error(Errc::timed_out, "connect to " + a->to.to_string() + " timed out"));
  });
  a->done.on_abandon([this, weak] {
    auto a = weak.lock();
    if (!a || a->finished) return;
    a->finished = true;
    (void)world_.cancel(a->timeout_event);
    (void)world_.cancel(a->syn_timer);
    if (a->conn) abort_side(a->conn, 0);
  });
  a->first_syn = world_.now();
  send_syn(a, *server);
  co_return co_await a->done.wait();
}

void SimNetwork::send_syn(std::shared_ptr<ConnectAttempt> a, NodeId server) {
  ++a->syns;
  world_.schedule(world_.now() + latency(a->from, server), EventTag{}, [this, a, server] { syn_arrives(a, server); });
  // The retransmission timer: SYN n+1 (or the end) unless an answer came first.
  std::weak_ptr<ConnectAttempt> weak = a;
  a->syn_timer = world_.schedule(a->first_syn + syn_due(a->syns + 1), EventTag{}, [this, weak, server] {
    auto a = weak.lock();
    if (!a || a->finished) return;
    if (a->syns > kSynRetries) {
      ++stats_.timed_out;
      if (a->conn) abort_side(a->conn, 0);
      finish_connect(*a, Error(Errc::timed_out, fmt::format("connect to {}: no answer to {} SYNs", a->to.to_string(), a->syns)));
      return;
    }
    send_syn(a, server);
  });
}

void SimNetwork::syn_arrives(std::shared_ptr<ConnectAttempt> a, NodeId server) {
  if (a->finished || !link_up(a->from, server)) return;  // lost: the next SYN or the timeout answers
  if (a->conn) {
    // A SYN again for a connection the server holds (its SYN-ACK was lost): it answers again.
    world_.schedule(world_.now() + latency(server, a->from), EventTag{}, [this, a, server] { syn_ack_arrives(a, server); });
    return;
  }
  auto it = listeners_.find(a->to);
  if (it == listeners_.end() || it->second->backlog.size() >= options_.accept_backlog_max) {
    world_.schedule(world_.now() + latency(server, a->from), EventTag{}, [this, a, server] {
      if (a->finished || !link_up(server, a->from)) return;
      ++stats_.refused;
      finish_connect(*a, Error(Errc::refused, "nobody listens on " + a->to.to_string()));
    });
    return;
  }
  ListenerState& l = *it->second;
  a->conn = make_conn(a->from, a->local, server, l.local);
  l.backlog.push_back(a->conn);
  wake(l.accept_wait);
  world_.schedule(world_.now() + latency(server, a->from), EventTag{}, [this, a, server] { syn_ack_arrives(a, server); });
}

void SimNetwork::syn_ack_arrives(std::shared_ptr<ConnectAttempt> a, NodeId server) {
  if (a->finished || !a->conn || !link_up(server, a->from)) return;  // lost: the client's next SYN asks again
  std::shared_ptr<ConnState> conn = std::move(a->conn);
  finish_connect(*a, std::unique_ptr<Connection>(std::make_unique<SimConnection>(*this, std::move(conn), 0)));
}

// ---- faults ----------------------------------------------------------------------------------

bool SimNetwork::link_up(NodeId from, NodeId to) const {
  if (powered_off_.count(from) > 0 || powered_off_.count(to) > 0) return false;
  if (from == to) return true;
  if (isolated_.count(from) > 0 || isolated_.count(to) > 0) return false;
  return cut_.count({from, to}) == 0;
}

void SimNetwork::partition(NodeId a, NodeId b) {
  FERRY_ASSERT(a != b, "a node cannot be partitioned from itself");
  cut_.insert({a, b});
  cut_.insert({b, a});
  refresh_paths();
}

void SimNetwork::partition_one_way(NodeId from, NodeId to) {
  FERRY_ASSERT(from != to, "a node cannot be partitioned from itself");
  cut_.insert({from, to});
  refresh_paths();
}

void SimNetwork::isolate(NodeId node) {
  isolated_.insert(node);
  refresh_paths();
}

void SimNetwork::unisolate(NodeId node) {
  isolated_.erase(node);
  kick_blocked();
  refresh_paths();
}

void SimNetwork::heal(NodeId a, NodeId b) {
  cut_.erase({a, b});
  cut_.erase({b, a});
  kick_blocked();
  refresh_paths();
}

void SimNetwork::heal_all() {
  cut_.clear();
  isolated_.clear();
  kick_blocked();
  refresh_paths();
}

bool SimNetwork::path_up(const ConnState& c) const {
  for (const Side& s : c.side) {
    if (s.silent) return false;
  }
  return link_up(c.side[0].node, c.side[1].node) && link_up(c.side[1].node, c.side[0].node);
}

void SimNetwork::refresh_paths() {
  const Duration timeout = options_.dead_peer_timeout;
  for_each_conn([&](const std::shared_ptr<ConnState>& c) {
    if (!c->live() || path_up(*c)) {
      c->down_since.reset();
      return;
    }
    if (c->down_since || timeout <= 0ns) return;
    const MonoTime since = world_.now();
    c->down_since = since;
    std::weak_ptr<ConnState> weak = c;
    world_.schedule(since + timeout, EventTag{}, [this, weak, since] {
      if (auto conn = weak.lock()) expire(conn, since);
    });
  });
}

void SimNetwork::expire(const std::shared_ptr<ConnState>& c, MonoTime since) {
  if (c->down_since != since || !c->live()) return;  // healed meanwhile (perhaps down again since)
  c->down_since.reset();
  ++stats_.dead_peer_timeouts;
  for (int s = 0; s < 2; ++s) {
    Side& side = c->side[s];
    if (side.closed || side.rst_seen) continue;
    side.timed_out = true;
    wake(side.read_wait);
    wake(side.write_wait);
  }
  // Nothing more travels on it: what was on the wire is gone, later writes fail.
  for (int s = 0; s < 2; ++s) {
    c->pipe[s].rst_queued = true;
    drop_wire(c, s, 0);
  }
}

void SimNetwork::clog(NodeId from, NodeId to, Duration extra) {
  FERRY_ASSERT(extra >= 0ns, "negative clog {} ns", extra.count());
  clogs_[{from, to}] = extra;
}

void SimNetwork::unclog_all() { clogs_.clear(); }

template <typename Fn>
void SimNetwork::for_each_conn(Fn fn) {
  for (auto it = conns_.begin(); it != conns_.end();) {
    std::shared_ptr<ConnState> c = it->second.lock();
    if (!c) {
      it = conns_.erase(it);
      continue;
    }
    ++it;
    fn(c);
  }
}

std::size_t SimNetwork::open_connections() {
  std::size_t n = 0;
  for_each_conn([&n](const std::shared_ptr<ConnState>& c) {
    if (!c->side[0].closed || !c->side[1].closed) ++n;
  });
  return n;
}

void SimNetwork::kick_blocked() {
  std::set<std::pair<std::uint64_t, int>> waiting = std::move(blocked_);
  blocked_.clear();
  for (const auto& [id, s] : waiting) {
    auto it = conns_.find(id);
    std::shared_ptr<ConnState> c = it == conns_.end() ? nullptr : it->second.lock();
    if (!c || !c->pipe[s].blocked) continue;
    Pipe& p = c->pipe[s];
    if (!link_up(c->side[s].node, c->side[1 - s].node)) {
      blocked_.insert({id, s});
      continue;
    }
    p.blocked = false;
    arm(c, s, world_.now() + latency(c->side[s].node, c->side[1 - s].node));
  }
}

void SimNetwork::reset_node(NodeId node) {
  for_each_conn([&](const std::shared_ptr<ConnState>& c) {
    if (c->side[0].node == node || c->side[1].node == node) reset_conn(c);
  });
}

void SimNetwork::reset_between(NodeId a, NodeId b) {
  for_each_conn([&](const std::shared_ptr<ConnState>& c) {
    const NodeId x = c->side[0].node, y = c->side[1].node;
    if ((x == a && y == b) || (x == b && y == a)) reset_conn(c);
  });
}

void SimNetwork::kill_node(NodeId node) {
  std::vector<std::shared_ptr<ListenerState>> mine;
  for (const auto& [ep, l] : listeners_) {
    if (l->node == node) mine.push_back(l);
  }
  for (auto& l : mine) close_listener(*l);
  for_each_conn([&](const std::shared_ptr<ConnState>& c) {
    for (int s = 0; s < 2; ++s) {
      if (c->side[s].node == node) abort_side(c, s);
    }
  });
  refresh_paths();
}

void SimNetwork::power_off_node(NodeId node) {
  powered_off_.insert(node);
  std::vector<std::shared_ptr<ListenerState>> mine;
  for (const auto& [ep, l] : listeners_) {
    if (l->node == node) mine.push_back(l);
  }
  for (auto& l : mine) close_listener(*l, /*silent=*/true);
  for_each_conn([&](const std::shared_ptr<ConnState>& c) {
    for (int s = 0; s < 2; ++s) {
      if (c->side[s].node == node) silence_side(c, s);
    }
  });
  refresh_paths();
}

void SimNetwork::power_on_node(NodeId node) {
  if (powered_off_.erase(node) == 0) return;
  // The peers still hold connections to the old life of this host; the first segment they send
  // (data or a keepalive probe) is answered with a reset.
  for_each_conn([&](const std::shared_ptr<ConnState>& c) {
    for (int s = 0; s < 2; ++s) {
      Side& dead = c->side[s];
      if (dead.node != node || !dead.silent) continue;
      dead.silent = false;
      const Side& peer = c->side[1 - s];
      if (!peer.closed && !peer.rst_seen && !peer.timed_out) {
        ++stats_.resets;
        reset_pipe(c, s);
      }
    }
  });
  kick_blocked();  // what was held for the dark host lands on its dead sides and is dropped
  refresh_paths();
}

}  // namespace ferry::sim
