// Helpers for replication tests on the cluster harness: comparing two brokers' CommitLogs byte
// for byte, and reading the workload message a broker holds at a queue offset.
#pragma once

#include <algorithm>
#include <optional>
#include <string_view>

#include "common/record_format.h"
#include "sim/cluster/workload.h"
#include "store/commit_log.h"
#include "tests/support/broker_inspector.h"

namespace ferry::testing {

// The first byte at which the two logs differ in [from, to), or nullopt when they agree.
inline std::optional<std::int64_t> first_difference(const store::CommitLog& a, const store::CommitLog& b,
                                                    PhysicalOffset from, PhysicalOffset to) {
  PhysicalOffset at = from;
  while (at < to) {
    auto va = a.view_to_file_end(at);
    auto vb = b.view_to_file_end(at);
    if (!va.ok() || !vb.ok()) return at.value();
    const std::size_t n = std::min<std::size_t>({va->size(), vb->size(), static_cast<std::size_t>(to - at)});
    if (n == 0) return at.value();
    const Bytes x = va->bytes().first(n), y = vb->bytes().first(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (x[i] != y[i]) return at.value() + static_cast<std::int64_t>(i);
    }
    at += static_cast<std::int64_t>(n);
  }
  return std::nullopt;
}

// The intact workload message stored at (queue, offset) on `b`, if any.
inline std::optional<sim::cluster::BodyFields> stored_message(broker::Broker& b, const MessageQueue& q,
                                                              QueueOffset offset) {
  auto got = BrokerInspector(b).get_messages(q.topic, q.queue_id, offset, 1);
  if (got.status != store::GetStatus::found || got.messages.empty()) return std::nullopt;
  const RecordRead r = decode_record(got.messages.front().bytes());
  if (r.kind != RecordKind::message) return std::nullopt;
  return sim::cluster::parse_body(
      std::string_view(reinterpret_cast<const char*>(r.fields.body.data()), r.fields.body.size()));
}

}  // namespace ferry::testing
