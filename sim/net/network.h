// SimNetwork: the simulated network between the world's nodes. No sockets: every node has a
// virtual IPv4 address ("127.0.0.<10+id>") and connections are in-memory byte streams moved by
// world events.
//
//  * Latency: each segment (one write's bytes, or a FIN/RST) takes latency_min +
//    exponential(latency_tail_mean) + the link's clog delay, but never arrives before an earlier
//    segment of the same direction: streams stay ordered.
//  * Back-pressure: a direction holds at most pipe_buffer_bytes (in flight + unread).
//  * Partitions (symmetric, one-way, isolating a node): segments are held at the head of their
//    pipe and delivered, still in order, after heal; a connect across a partition gets no answer,
//    and its SYN goes again as Linux sends it (1, 3, 7, 15, 31, 63 s after the first; no answer
//    127 s after it fails), so a connect pending at the heal completes at its next SYN; else it
//    times out after its timeout. Connecting to a port nobody listens on is refused after a
//    round trip.
//  * Resets: a random prefix of the bytes in flight (or none) still arrives, then the reader
//    gets Errc::reset; writes of the reset side vanish until it learns of the reset.
//  * A node's process killed (kill_node): its kernel closes its sockets — peers get a reset, and
//    connects to its ports are refused.
//  * A node powered off (power_off_node): nothing at all — no FIN, no reset; connects to it get
//    no answer and time out; its peers' connections go quiet. When it powers on again its kernel
//    answers the peers' next segment with a reset (modelled as a reset at power-on).
//  * Dead peers: a connection whose path stays down (a cut link, an isolated host, a powered-off
//    peer) for dead_peer_timeout fails on its live sides with Errc::timed_out, as TCP's
//    keepalive and retransmission timeouts end it (kDeadPeerTimeout in production).
//
// Events of the network belong to no node (a paused node's kernel still receives); completions
// of node operations resume through the node's executor.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "runtime/network.h"
#include "runtime/random.h"
#include "sim/ids.h"
#include "sim/net/stream.h"
#include "sim/options.h"

namespace ferry::sim {

class World;
struct ListenerState;
struct ConnectAttempt;

class SimNetwork {
 public:
  struct Stats {
    std::uint64_t connects = 0;
    std::uint64_t refused = 0;
    std::uint64_t timed_out = 0;
    std::uint64_t resets = 0;
    std::uint64_t segments_delivered = 0;
    std::uint64_t bytes_delivered = 0;
    std::uint64_t dead_peer_timeouts = 0;  // connections broken after dead_peer_timeout
  };

  SimNetwork(World& world, NetworkOptions options, Random random);
  ~SimNetwork();

  // ---- addresses -------------------------------------------------------------------------
  void add_host(NodeId node, std::string host);
  const std::string& host_of(NodeId node) const;
  std::optional<NodeId> resolve(const std::string& host) const;

  // ---- the Network interface of one node (NodeNetwork forwards here) ---------------------
  Result<std::unique_ptr<Listener>> listen(NodeId node, const Endpoint& addr);
  Task<Result<std::unique_ptr<Connection>>> connect(NodeId from, Endpoint to, Duration timeout);

  // ---- faults ----------------------------------------------------------------------------
  void partition(NodeId a, NodeId b);  // both directions
  void partition_one_way(NodeId from, NodeId to);
  void isolate(NodeId node);  // every link to and from `node`
  void unisolate(NodeId node);  // ends isolate(node) (and World::silence); links cut one by one stay cut
  void heal(NodeId a, NodeId b);
  void heal_all();             // partitions and isolation (clogs stay)
  void clog(NodeId from, NodeId to, Duration extra);  // extra latency on one direction
  void unclog_all();
  void reset_node(NodeId node);              // resets every connection of `node`
  void reset_between(NodeId a, NodeId b);    // resets every connection between a and b
  bool link_up(NodeId from, NodeId to) const;
  // Called by SimNode: a process kill, a power loss, a (re)start. See the class comment.
  void kill_node(NodeId node);
  void power_off_node(NodeId node);
  void power_on_node(NodeId node);
  bool powered_off(NodeId node) const { return powered_off_.count(node) > 0; }
  void set_options(NetworkOptions options);
  const NetworkOptions& options() const { return options_; }
  const Stats& stats() const { return stats_; }
  std::size_t open_connections();

  // ---- transport, for SimConnection and SimListener (transport.cc) -----------------------
  // Puts `bytes` on the wire from side `s`; the caller checked the buffer bound.
  void send(const std::shared_ptr<ConnState>& c, int s, std::vector<std::uint8_t> bytes);
  // Side `s` read `n` bytes: frees buffer space for the peer's writer.
  void consumed(const std::shared_ptr<ConnState>& c, int s, std::size_t n);
  // Orderly close of side `s` (FIN after what was sent). When its node is not up, aborts.
  void close_side(const std::shared_ptr<ConnState>& c, int s);
  // Side `s` dies (its node crashed): the peer gets a prefix and a reset.
  void abort_side(const std::shared_ptr<ConnState>& c, int s);
  // Stops a listener: pending accept fails with closed; queued connections are reset for their
  // clients, or (silent: the host lost power) left to time out.
  void close_listener(ListenerState& l, bool silent = false);
  Executor& executor_of(NodeId node);

 private:
  Duration latency(NodeId from, NodeId to);
  std::uint16_t ephemeral_port(NodeId node);
  std::shared_ptr<ConnState> make_conn(NodeId client, Endpoint client_ep, NodeId server, Endpoint server_ep);
  // The client's SYN (and its retransmission timer), its arrival, the server's SYN-ACK's.
  void send_syn(std::shared_ptr<ConnectAttempt> a, NodeId server);
  void syn_arrives(std::shared_ptr<ConnectAttempt> a, NodeId server);
  void syn_ack_arrives(std::shared_ptr<ConnectAttempt> a, NodeId server);
  void finish_connect(ConnectAttempt& a, Result<std::unique_ptr<Connection>> r);
  template <typename Fn>
  void for_each_conn(Fn fn);  // in id order; drops expired entries
  void kick_blocked();
  // After any change of links or hosts: marks the live connections whose path went down (and
  // schedules their dead-peer timeout) or came back up.
  void refresh_paths();
  bool path_up(const ConnState& c) const;
  void expire(const std::shared_ptr<ConnState>& c, MonoTime since);
  // Side `s` dies with its host's power: no FIN, no reset for the peer.
  void silence_side(const std::shared_ptr<ConnState>& c, int s);

  // transport.cc
  void enqueue(const std::shared_ptr<ConnState>& c, int s, Segment seg);
  void arm(const std::shared_ptr<ConnState>& c, int s, MonoTime not_before);
  void deliver(const std::shared_ptr<ConnState>& c, int s);
  void land(const std::shared_ptr<ConnState>& c, int s, Segment& seg);
  void drop_wire(const std::shared_ptr<ConnState>& c, int s, std::size_t keep);
  void reset_pipe(const std::shared_ptr<ConnState>& c, int s);
  void reset_conn(const std::shared_ptr<ConnState>& c);

  World& world_;
  NetworkOptions options_;
  Random random_;
  Stats stats_;
  std::map<NodeId, std::string> hosts_;
  std::map<std::string, NodeId> by_host_;
  std::map<NodeId, std::uint16_t> next_port_;
  std::map<Endpoint, std::shared_ptr<ListenerState>> listeners_;
  std::map<std::uint64_t, std::weak_ptr<ConnState>> conns_;
  std::uint64_t next_conn_id_ = 0;
  std::set<std::pair<NodeId, NodeId>> cut_;  // directed links that drop everything
  std::set<NodeId> isolated_;
  std::set<NodeId> powered_off_;
  std::map<std::pair<NodeId, NodeId>, Duration> clogs_;
  std::set<std::pair<std::uint64_t, int>> blocked_;  // (connection id, pipe) waiting for heal
};

}  // namespace ferry::sim
