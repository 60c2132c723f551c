#include "store/ha/ha_slave.h"

#include <fmt/format.h>

#include <array>
#include <vector>

#include "runtime/assert.h"
#include "store/ha/epoch_file.h"
#include "store/ha/ha_format.h"
#include "store/message_store.h"

namespace ferry::store::ha {

struct HaSlave::Session {
  Session(Runtime& rt, std::unique_ptr<Connection> c) : conn(std::move(c)), wake(rt) {}
  std::unique_ptr<Connection> conn;
  WakeSignal wake;  // the reporter waits here
  bool closed = false;
  std::optional<PhysicalOffset> last_reported;
  MonoTime last_report_at{};
  MonoTime last_read_at{};
};

HaSlave::HaSlave(Runtime& rt, MessageStore& store, const HaConfig& config)
    : rt_(rt), store_(store), config_(config), wake_(rt) {}

HaSlave::~HaSlave() {
  if (session_) session_->conn->close();
}

void HaSlave::set_master(std::optional<std::string> ha_address) {
  if (ha_address && ha_address->empty()) ha_address.reset();
  if (ha_address == master_) return;
  rt_.log().info("ha: master HA address {} (was {})", ha_address.value_or("none"), master_.value_or("none"));
  if (session_) end(*session_, "the master address changed");
  master_ = std::move(ha_address);
  status_.master = master_;
  wake_.wake();
}

void HaSlave::stop() {
  stopped_ = true;
  if (session_) end(*session_, "replication stopped");
  wake_.wake();
}

void HaSlave::end(Session& s, const std::string& why) {
  if (s.closed) return;
  s.closed = true;
  s.conn->close();
  s.wake.wake();
  status_.connected = false;
  status_.last_drop = why;
  if (auto held = end_log_.admit(rt_.now())) {
    rt_.log().warn("ha: link to master {} ended: {}{}", master_.value_or("?"), why, held_back_note(*held));
  }
}

PhysicalOffset HaSlave::confirmed_offset() const {
  return store_.config().flush_mode == FlushMode::sync_flush ? store_.commit_log().flushed_offset()
                                                             : store_.max_phy_offset();
}

Task<void> HaSlave::run() {
  while (!stopped_) {
    if (!master_) {
      (void)co_await wake_.wait_for(std::chrono::seconds(1));
      continue;
    }
    if (const auto& failed = store_.flusher().sync_failure()) {
      // The store refuses writes until the process restarts; so does replication.
      if (!sync_failure_logged_) {
        rt_.log().error("ha: replication paused until restart: {}", failed->to_string());
        sync_failure_logged_ = true;
      }
      (void)co_await wake_.wait_for(config_.reconnect_interval);
      continue;
    }
    // Resume from a record boundary: what is received is made durable (SYNC_FLUSH) and indexed,
    // and a partial record at the end is cut (the master sends it again).
    if (store_.config().flush_mode == FlushMode::sync_flush && store_.commit_log().flushed_offset() < store_.max_phy_offset()) {
      (void)co_await store_.wait_durable(store_.max_phy_offset());
      continue;  // checked again from the top (a failed sync pauses replication)
    }
    if (Status cut = store_.truncate_to_indexed(); !cut.ok()) {
      if (auto held = error_log_.admit(rt_.now(), static_cast<std::int64_t>(cut.error().code))) {
        rt_.log().error("ha: cannot cut the partial tail of the log: {}{}", cut.error().to_string(), held_back_note(*held));
      }
      (void)co_await wake_.wait_for(config_.reconnect_interval);
      continue;
    }
    const std::string target = *master_;
    auto ep = Endpoint::parse(target);
    if (!ep.ok()) {
      // Kinds apart from the Errc kinds of the line above.
      if (auto held = error_log_.admit(rt_.now(), -1)) {
        rt_.log().error("ha: master HA address {}: {}{}", target, ep.error().to_string(), held_back_note(*held));
      }
      (void)co_await wake_.wait_for(config_.reconnect_interval);
      continue;
    }
    auto c = co_await rt_.network().connect(*ep, config_.connect_timeout);
    if (stopped_) co_return;
    if (!c.ok()) {
      if (!connect_failure_logged_) {
        rt_.log().warn("ha: cannot connect to master {}: {} (retrying every {} ms)", target, c.error().to_string(),
                       to_ms(config_.reconnect_interval));
        connect_failure_logged_ = true;
      }
      (void)co_await wake_.wait_for(config_.reconnect_interval);
      continue;
    }
    if (master_ != target) continue;  // changed while connecting
    connect_failure_logged_ = false;
    auto s = std::make_shared<Session>(rt_, std::move(*c));
    s->last_read_at = rt_.now();
    session_ = s;
    status_.connected = true;
    status_.local = s->conn->local().to_string();
    ++status_.links;
    if (auto held = connect_log_.admit(rt_.now())) {
      rt_.log().info("ha: connected to master {} at offset {}{}", target, store_.max_phy_offset().value(),
                     held_back_note(*held));
    }
    if (epochs_ != nullptr) {
      if (co_await handshake(s)) {
        rt_.spawn(report_loop(this, s), "ha-report");
        co_await serve_epochs(s);
      }
    } else {
      rt_.spawn(report_loop(this, s), "ha-report");
      co_await serve(s);
    }
    end(*s, "link closed");
    session_.reset();
    // A link that ended over a disagreement is not made again at full speed.
    if (!stopped_) (void)co_await wake_.wait_for(kRelinkPause);
  }
}

Task<void> HaSlave::serve(std::shared_ptr<Session> s) {
  std::array<std::uint8_t, kBatchHeaderBytes> head{};
  std::vector<std::uint8_t> data;
  while (!s->closed) {
    Status st = co_await s->conn->read_exact(head);
    if (s->closed) co_return;
    if (!st.ok()) {
      end(*s, "reading a batch header: " + st.error().to_string());
      co_return;
    }
    s->last_read_at = rt_.now();
    status_.last_batch_at = s->last_read_at;
    const BatchHeader h = decode_batch_header(head.data());
    if (h.size < 0 || h.size > kBatchBytesMax) {
      end(*s, fmt::format("a batch of {} bytes at {} (the limit is {})", h.size, h.offset.value(), kBatchBytesMax));
      co_return;
    }
    const PhysicalOffset mine = store_.max_phy_offset();
    if (mine.value() != 0 && h.offset != mine) {
      end(*s, fmt::format("the master sent offset {}, this log ends at {}", h.offset.value(), mine.value()));
      co_return;
    }
    if (h.size == 0) continue;  // a heartbeat
    if (!co_await receive(s, h.offset, h.size, data)) co_return;
  }
}

Task<bool> HaSlave::receive(std::shared_ptr<Session> s, PhysicalOffset at, std::int32_t size,
                            std::vector<std::uint8_t>& data) {
  data.resize(static_cast<std::size_t>(size));
  const Status st = co_await s->conn->read_exact(data);
  if (s->closed) co_return false;
  if (!st.ok()) {
    end(*s, "reading a batch: " + st.error().to_string());
    co_return false;
  }
  s->last_read_at = rt_.now();
  if (Status a = store_.append_replicated(at, data); !a.ok()) {
    end(*s, fmt::format("appending {} bytes at {}: {}", size, at.value(), a.error().to_string()));
    // A store that refuses (a full disk, a failed sync) is not retried at full speed.
    co_await rt_.sleep(config_.reconnect_interval);
    co_return false;
  }
  ++status_.batches;
  status_.bytes += static_cast<std::uint64_t>(size);
  s->wake.wake();
  co_return true;
}

Task<bool> HaSlave::handshake(std::shared_ptr<Session> s) {
  const auto hello = encode_slave_handshake(SlaveHandshake{config_.sync_from_last_file, false, replica_id_});
  Status st = co_await s->conn->write(Bytes(hello));
  if (s->closed) co_return false;
  if (!st.ok()) {
    end(*s, "sending the handshake: " + st.error().to_string());
    co_return false;
  }
  std::array<std::uint8_t, kMasterHandshakeBytes> head{};
  st = co_await s->conn->read_exact(head);
  if (s->closed) co_return false;
  if (!st.ok()) {
    end(*s, "reading the master's handshake: " + st.error().to_string());
    co_return false;
  }
  const MasterHandshake mh = decode_master_handshake(head.data());
  if (decode_state(head.data()) != kStateHandshake || mh.body_bytes < 0 ||
      static_cast<std::size_t>(mh.body_bytes) > kHandshakeEpochsMax * kEpochEntryBytes ||
      mh.body_bytes % static_cast<std::int32_t>(kEpochEntryBytes) != 0 || mh.max_offset.value() < 0) {
    end(*s, fmt::format("a master handshake with state {}, {} bytes of epochs, max offset {}", decode_state(head.data()),
                        mh.body_bytes, mh.max_offset.value()));
    co_return false;
  }
  std::vector<std::uint8_t> body(static_cast<std::size_t>(mh.body_bytes));
  st = co_await s->conn->read_exact(body);
  if (s->closed) co_return false;
  if (!st.ok()) {
    end(*s, "reading the master's epochs: " + st.error().to_string());
    co_return false;
  }
  s->last_read_at = rt_.now();
  std::vector<EpochEntry> theirs;
  for (std::size_t at = 0; at < body.size(); at += kEpochEntryBytes) {
    const EpochEntry e{static_cast<MasterEpoch>(load_be32(body.data() + at)),
                       PhysicalOffset(static_cast<std::int64_t>(load_be64(body.data() + at + 4)))};
    if (e.start.value() < 0 || e.start > mh.max_offset ||
        (!theirs.empty() && (e.epoch <= theirs.back().epoch || e.start < theirs.back().start))) {
      end(*s, fmt::format("the master's epoch {} from {} is out of order or past its end {}", e.epoch, e.start.value(),
                          mh.max_offset.value()));
      co_return false;
    }
    theirs.push_back(e);
  }
  const EpochCache master(std::move(theirs));
  const PhysicalOffset mine = store_.max_phy_offset();
  std::optional<PhysicalOffset> point;
  if (epochs_->cache().empty()) {
    // A log older than controller mode (or a new replica): what lies before the master's first
    // epoch is taken as shared.
    point = std::min(mine, master.empty() ? mh.max_offset : master.entries().front().start);
  } else {
    point = epochs_->cache().consistent_point(mine, master, mh.max_offset);
  }
  if (!point) {
    end(*s, fmt::format("this log's epochs ({} to {}) share none with the master's ({} to {}); wipe this replica's "
                        "store to copy the master's log",
                        epochs_->cache().entries().front().epoch, epochs_->last_epoch(),
                        master.empty() ? -1 : master.entries().front().epoch, mh.last_epoch));
    co_await rt_.sleep(config_.reconnect_interval);
    co_return false;
  }
  if (*point < mine) {
    if (Status cut = store_.truncate_to(*point); !cut.ok()) {
      end(*s, fmt::format("cutting the log back to {}: {}", point->value(), cut.error().to_string()));
      co_await rt_.sleep(config_.reconnect_interval);
      co_return false;
    }
    ++status_.truncations;
    status_.truncated_to = *point;
    confirm_ = std::min(confirm_, *point);
    if (confirm_listener_) confirm_listener_();
    rt_.log().warn("ha: the master's epochs end this log's agreed history at {}; cut from {}", point->value(),
                   mine.value());
  }
  Task<Status> cut = epochs_->truncate_from_offset(*point);
  if (Status e = co_await std::move(cut); !e.ok()) {
    end(*s, "writing the epoch file: " + e.error().to_string());
    co_return false;
  }
  if (s->closed) co_return false;
  if (auto held = handshake_log_.admit(rt_.now())) {
    rt_.log().info("ha: handshake with master {} (epoch {}, max {}): resuming at {}{}", master_.value_or("?"),
                   mh.last_epoch, mh.max_offset.value(), point->value(), held_back_note(*held));
  }
  co_return true;
}

Task<void> HaSlave::serve_epochs(std::shared_ptr<Session> s) {
  std::array<std::uint8_t, kTransferHeaderBytes> head{};
  std::vector<std::uint8_t> data;
  while (!s->closed) {
    Status st = co_await s->conn->read_exact(head);
    if (s->closed) co_return;
    if (!st.ok()) {
      end(*s, "reading a transfer header: " + st.error().to_string());
      co_return;
    }
    s->last_read_at = rt_.now();
    status_.last_batch_at = s->last_read_at;
    const TransferHeader h = decode_transfer_header(head.data());
    if (decode_state(head.data()) != kStateTransfer || h.size < 0 || h.size > kBatchBytesMax) {
      end(*s, fmt::format("a transfer frame with state {} of {} bytes at {} (the limit is {})", decode_state(head.data()),
                          h.size, h.offset.value(), kBatchBytesMax));
      co_return;
    }
    const PhysicalOffset mine = store_.max_phy_offset();
    if (mine.value() != 0 && h.offset != mine) {
      end(*s, fmt::format("the master sent offset {}, this log ends at {}", h.offset.value(), mine.value()));
      co_return;
    }
    if (h.size > 0 && h.epoch > 0 && h.epoch != epochs_->last_epoch()) {
      // The epoch is recorded (durably) before any byte of it.
      Task<Status> added = epochs_->append(h.epoch, h.epoch_start);
      if (Status a = co_await std::move(added); !a.ok()) {
        end(*s, fmt::format("the master's epoch {} from {}: {}", h.epoch, h.epoch_start.value(), a.error().to_string()));
        co_return;
      }
      if (s->closed) co_return;
    }
    if (h.size > 0 && !co_await receive(s, h.offset, h.size, data)) co_return;
    const PhysicalOffset confirm = std::max(confirm_, std::min(h.confirm_offset, store_.max_phy_offset()));
    if (confirm != confirm_) {
      confirm_ = confirm;
      if (confirm_listener_) confirm_listener_();
    }
  }
}

Task<void> HaSlave::report_loop(HaSlave* self, std::shared_ptr<Session> s) {
  const HaConfig& cfg = self->config_;
  while (!s->closed) {
    if (self->store_.config().flush_mode == FlushMode::sync_flush &&
        self->store_.commit_log().flushed_offset() < self->store_.max_phy_offset()) {
      (void)co_await self->store_.wait_durable(self->store_.max_phy_offset());
      if (s->closed) co_return;
      if (!s->last_reported && self->confirmed_offset() < self->store_.max_phy_offset()) {
        // The first report is where the master resumes: it must be the log's end, and under
        // SYNC_FLUSH it also confirms, so the end must be durable first.
        self->end(*s, "the received log could not be made durable before reporting");
        co_return;
      }
    }
    const MonoTime now = self->rt_.now();
    if (now - s->last_read_at > cfg.housekeeping_interval) {
      self->end(*s, fmt::format("nothing from the master for {} ms", to_ms(now - s->last_read_at)));
      co_return;
    }
    const PhysicalOffset offset = self->confirmed_offset();
    if (!s->last_reported || *s->last_reported != offset || now - s->last_report_at >= cfg.heartbeat_interval) {
      const auto report = encode_report(offset);
      const auto ack = encode_ack(offset);
      const Status st = co_await s->conn->write(self->epochs_ != nullptr ? Bytes(ack) : Bytes(report));
      if (s->closed) co_return;
      if (!st.ok()) {
        self->end(*s, "reporting: " + st.error().to_string());
        co_return;
      }
      s->last_reported = offset;
      s->last_report_at = self->rt_.now();
      self->status_.reported = offset;
      continue;
    }
    const Duration since = now - s->last_report_at;
    const Duration wait = std::min<Duration>(cfg.heartbeat_interval - since, std::chrono::seconds(1));
    (void)co_await s->wake.wait_for(wait);
  }
}

}  // namespace ferry::store::ha
