#include "store/ha/ha_slave.h"

#include <fmt/format.h>

#include <array>
#include <vector>

#include "runtime/assert.h"
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
  master_ = std::move(ha_address);
  status_.master = master_;
  if (session_) end(*session_, "the master address changed");
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
  rt_.log().warn("ha: link to master {} ended: {}", master_.value_or("?"), why);
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
      rt_.log().error("ha: cannot cut the partial tail of the log: {}", cut.error().to_string());
      (void)co_await wake_.wait_for(config_.reconnect_interval);
      continue;
    }
    const std::string target = *master_;
    auto ep = Endpoint::parse(target);
    if (!ep.ok()) {
      rt_.log().error("ha: master HA address {}: {}", target, ep.error().to_string());
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
    rt_.log().info("ha: connected to master {} at offset {}", target, store_.max_phy_offset().value());
    rt_.spawn(report_loop(this, s), "ha-report");
    co_await serve(s);
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
    data.resize(static_cast<std::size_t>(h.size));
    st = co_await s->conn->read_exact(data);
    if (s->closed) co_return;
    if (!st.ok()) {
      end(*s, "reading a batch: " + st.error().to_string());
      co_return;
    }
    s->last_read_at = rt_.now();
    if (Status a = store_.append_replicated(h.offset, data); !a.ok()) {
      end(*s, fmt::format("appending {} bytes at {}: {}", h.size, h.offset.value(), a.error().to_string()));
      // A store that refuses (a full disk, a failed sync) is not retried at full speed.
      co_await rt_.sleep(config_.reconnect_interval);
      co_return;
    }
    ++status_.batches;
    status_.bytes += static_cast<std::uint64_t>(h.size);
    s->wake.wake();
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
      const auto buf = encode_report(offset);
      const Status st = co_await s->conn->write(Bytes(buf));
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
