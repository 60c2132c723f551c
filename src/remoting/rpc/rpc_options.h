// Limits and timeouts of the RPC layer. Every queue and in-flight set here is bounded.
#pragma once

#include <cstddef>

#include <optional>
#include <vector>

#include "remoting/frame_format.h"
#include "runtime/time.h"

namespace ferry::remoting {

struct RpcOptions {
  // Largest frame accepted or sent (length field included).
  std::size_t frame_bytes_max = kFrameBytesMaxDefault;
  // Largest header accepted (frame_format.h says why 256 KiB): a larger one closes the
  // connection as soon as its length arrives, before it is buffered or parsed.
  std::size_t header_bytes_max = kHeaderBytesMaxDefault;
  // Bytes queued for writing on one connection before send() waits (back-pressure).
  std::size_t write_queue_bytes_max = 64 * 1024 * 1024;
  // Bytes handed to one gather write at most (many small frames share one write).
  std::size_t write_batch_bytes_max = 1024 * 1024;
  // The reader's buffer per connection.
  std::size_t read_buffer_bytes = 64 * 1024;
  // Requests of one connection being served at once, each counted until its reply is queued
  // for writing; beyond, replies SYSTEM_BUSY (2).
  std::size_t requests_in_flight_max = 65536;
  // Stop reading a connection's requests while its replies (queued plus waiting for queue space)
  // reach write_queue_bytes_max, or while requests_in_flight_pause of its requests are being
  // served, so a peer that sends requests and never reads the replies is held back by TCP. A
  // request already read waits to build its reply until the connection holds less than
  // write_queue_bytes_max (Channel::wait_for_room): what one connection holds stays under
  // write_queue_bytes_max + the replies being built at once (one, unless processors that were
  // already running, parked long polls, finish together).
  // Servers only (RpcServer sets it): a client that stopped reading replies while its own
  // requests back up could deadlock with its server.
  bool pause_reads_while_replies_back_up = false;
  std::size_t requests_in_flight_pause = 1024;
  // Calls awaiting a reply, per peer; beyond, invoke fails with Errc::busy.
  std::size_t pending_calls_max = 65536;
  // Calls: the header form (serialize type) every request goes out in; nullopt sends each in its
  // own (make_request's default is JSON). A reply always takes its request's form, so this also
  // picks the replies' form. Ferry's client library sets the binary form (SerializeType::rocketmq):
  // it costs both sides less per request than JSON (docs/benchmarks.md, "Where the time goes"),
  // and every RocketMQ server since 4.0 reads both.
  std::optional<SerializeType> request_header;
  // Server: request codes whose processors decode their typed header straight from a binary
  // header's extFields bytes (RemotingCommand::raw_ext_fields; header_binary.h), so that no map
  // is built for them. A request guard and an outgoing hook still see the map (RpcPeer builds it
  // first). The broker lists its sends.
  std::vector<std::int32_t> raw_ext_fields_requests;
  // Calls: replies keep a binary header's extFields raw until RpcPeer hands them over; a call
  // that asked for them raw (RpcPeer::ReplyFields::raw: the producer's sends) gets them as they
  // are, every other call gets the map. Ferry's client library sets it.
  bool raw_ext_fields_replies = false;
  // Client: how long a connect may take.
  Duration connect_timeout = std::chrono::seconds(3);
  // Server: connections open at once; one accepted over the cap is closed at once (logged,
  // at most one line per 10 s with the count refused since).
  std::size_t connections_max = 16384;
  // Server: a connection without a byte in either direction for this long is closed
  // (RocketMQ's serverChannelMaxIdleTimeSeconds, 120 s; clients heartbeat every 30 s, brokers
  // register every 30 s, so only a connection that never speaks is hit). Zero: never.
  Duration idle_timeout = std::chrono::seconds(120);
  // Server: after a failed accept (out of descriptors, say) the next waits this long, doubling
  // up to accept_backoff_max, instead of retrying at once in a busy loop.
  Duration accept_backoff_min = std::chrono::milliseconds(10);
  Duration accept_backoff_max = std::chrono::seconds(1);
};

}  // namespace ferry::remoting
