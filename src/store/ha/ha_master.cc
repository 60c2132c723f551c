#include "store/ha/ha_master.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "runtime/assert.h"
#include "store/ha/epoch_file.h"
#include "store/ha/ha_format.h"
#include "store/message_store.h"

namespace ferry::store::ha {

struct HaMaster::Link {
  Link(Runtime& rt, std::unique_ptr<Connection> c, std::uint64_t link_id)
      : conn(std::move(c)), wake(rt), id(link_id), peer(conn->peer().to_string()) {}
  std::unique_ptr<Connection> conn;
  WakeSignal wake;  // the sender waits here for data, a first report, or a close
  std::uint64_t id;
  std::string peer;
  std::optional<PhysicalOffset> requested;  // the slave's first report
  PhysicalOffset acked;
  PhysicalOffset next;  // the next byte to push
  MonoTime connected_at{};
  MonoTime last_report_at{};
  bool closed = false;
  // Controller mode.
  std::optional<SlaveHandshake> hello;   // the slave's handshake
  PhysicalOffset last_master_max;        // the log's end when a batch was last sent
  MonoTime last_transfer_at{};
  std::optional<MonoTime> caught_up_at;  // when its ack last reached what had been sent
};

HaMaster::HaMaster(Runtime& rt, MessageStore& store, const HaConfig& config)
    : rt_(rt), store_(store), config_(config) {}

HaMaster::~HaMaster() {
  for (auto& [id, link] : links_) link->conn->close();
}

Status HaMaster::start(const Endpoint& addr) {
  FERRY_ASSERT(listener_ == nullptr, "HaMaster started twice");
  auto l = rt_.network().listen(addr);
  if (!l.ok()) return std::move(l).error();
  listener_ = std::move(*l);
  local_ = listener_->local();
  stopped_ = false;
  rt_.log().info("ha: serving slaves on {}", local_.to_string());
  rt_.spawn(accept_loop(this), "ha-accept");
  rt_.spawn(housekeeping_loop(this), "ha-housekeeping");
  return {};
}

const Endpoint& HaMaster::local() const { return local_; }

void HaMaster::stop() {
  if (stopped_) return;
  stopped_ = true;
  if (listener_) listener_->close();
  while (!links_.empty()) drop(*links_.begin()->second, "the master is stopping");
  for (Waiter& w : waiters_) {
    if (!w.done.completed() && !w.done.abandoned()) {
      rt_.timers().cancel(w.timer);
      w.done.complete(false);
    }
  }
  waiters_.clear();
}

void HaMaster::on_appended(PhysicalOffset /*end*/) {
  refresh_confirm();
  for (auto& [id, link] : links_) link->wake.wake();
}

bool HaMaster::slave_ok(PhysicalOffset end) const {
  return !links_.empty() && end - replicated_ < config_.slave_fallbehind_max_bytes;
}

const HaMaster::Link* HaMaster::link_of(std::int64_t replica_id) const {
  const Link* best = nullptr;  // a reconnecting slave may briefly have two links: the furthest counts
  for (const auto& [id, link] : links_) {
    if (link->hello && link->hello->replica_id == replica_id && link->requested && (best == nullptr || link->acked > best->acked)) {
      best = link.get();
    }
  }
  return best;
}

void HaMaster::set_sync_state_set(std::int64_t self_id, std::set<std::int64_t> members) {
  self_id_ = self_id;
  sync_state_set_ = std::move(members);
  refresh_confirm();
  if (confirm_listener_) confirm_listener_();  // the set decides whether the confirm offset bounds reads
  release_waiters();
}

void HaMaster::refresh_confirm() {
  PhysicalOffset c = store_.max_phy_offset();
  if (epochs_ != nullptr && config_.all_ack_in_sync_state_set) {
    for (const std::int64_t id : sync_state_set_) {
      if (id == self_id_) continue;
      const Link* l = link_of(id);
      if (l == nullptr) return;  // a member without a link: the last value stays (RocketMQ's rule)
      c = std::min(c, l->acked);
    }
  }
  if (c <= confirm_) return;
  confirm_ = c;
  if (confirm_listener_) confirm_listener_();
}

PhysicalOffset HaMaster::confirm_offset() const { return confirm_; }

std::set<std::int64_t> HaMaster::caught_up_outside() const {
  std::set<std::int64_t> out;
  if (epochs_ == nullptr) return out;
  const PhysicalOffset last_epoch_start =
      epochs_->cache().empty() ? PhysicalOffset(0) : epochs_->cache().entries().back().start;
  for (const auto& [id, link] : links_) {
    if (!link->hello || link->hello->async_learner || !link->requested || !link->caught_up_at) continue;
    const std::int64_t rid = link->hello->replica_id;
    if (sync_state_set_.contains(rid) || rid == self_id_) continue;
    if (link->acked >= link->last_master_max && link->acked >= confirm_ && link->acked >= last_epoch_start) out.insert(rid);
  }
  return out;
}

std::set<std::int64_t> HaMaster::lagging_members(Duration max_lag) const {
  std::set<std::int64_t> out;
  const MonoTime now = rt_.now();
  for (const std::int64_t id : sync_state_set_) {
    if (id == self_id_) continue;
    const auto seen = caught_up_.find(id);
    if (seen == caught_up_.end() || now - seen->second > max_lag) out.insert(id);
  }
  return out;
}

bool HaMaster::satisfied(PhysicalOffset end) const {
  if (epochs_ == nullptr) return replicated_ >= end;
  if (config_.all_ack_in_sync_state_set) {
    for (const std::int64_t id : sync_state_set_) {
      if (id == self_id_) continue;
      const Link* l = link_of(id);
      if (l == nullptr || l->acked < end) return false;
    }
    return true;
  }
  std::int32_t acks = 1;  // this master
  for (const auto& [id, link] : links_) {
    if (link->requested && link->acked >= end) ++acks;
  }
  return acks >= config_.in_sync_replicas;
}

Task<PutStatus> HaMaster::wait_replicated(PhysicalOffset end) {
  if (satisfied(end)) co_return PutStatus::ok;
  if (stopped_) co_return PutStatus::slave_not_available;
  // Controller mode waits for the members it needs (a member without a link times out, as in
  // RocketMQ); RocketMQ 4.9's SYNC_MASTER gives up at once without a usable slave.
  if (epochs_ == nullptr && !slave_ok(end)) co_return PutStatus::slave_not_available;
  Completion<bool> done(rt_.executor());
  const TimerId timer = rt_.timers().schedule(config_.slave_timeout, [done] {
    if (!done.completed() && !done.abandoned()) done.complete(false);
  });
  Timers* timers = &rt_.timers();
  done.on_abandon([timers, timer] { timers->cancel(timer); });
  waiters_.push_back(Waiter{end, done, timer});
  const bool confirmed = co_await done.wait();
  co_return confirmed ? PutStatus::ok : PutStatus::flush_slave_timeout;
}

void HaMaster::release_waiters() {
  auto finished = [&](const Waiter& w) { return w.done.completed() || w.done.abandoned(); };
  for (Waiter& w : waiters_) {
    if (!finished(w) && satisfied(w.end)) {
      rt_.timers().cancel(w.timer);
      w.done.complete(true);
    }
  }
  waiters_.erase(std::remove_if(waiters_.begin(), waiters_.end(), finished), waiters_.end());
}

std::vector<SlaveLinkState> HaMaster::slaves() const {
  std::vector<SlaveLinkState> out;
  for (const auto& [id, link] : links_) {
    out.push_back(SlaveLinkState{link->peer, link->acked, link->next, link->connected_at, link->last_report_at});
  }
  return out;
}

void HaMaster::drop(Link& link, const std::string& why) {
  if (link.closed) return;
  link.closed = true;
  link.conn->close();
  link.wake.wake();
  ++links_dropped_;
  last_drop_ = fmt::format("{}: {}", link.peer, why);
  if (auto held = drop_log_.admit(rt_.now())) {
    rt_.log().warn("ha: dropped the link to slave {} (confirmed {}): {}{}", link.peer, link.acked.value(), why,
                   held_back_note(*held));
  }
  links_.erase(link.id);  // may destroy `link` unless a loop still holds it: touch it no more
}

void HaMaster::on_report(Link& link, PhysicalOffset offset) {
  link.last_report_at = rt_.now();
  const PhysicalOffset end = store_.max_phy_offset();
  if (offset > end) {
    ++diverged_;
    drop(link, fmt::format("it reports offset {} beyond this log's end {}: its log has bytes this master never "
                           "had (an old master restarted as a slave?); truncate or wipe the slave's store",
                           offset.value(), end.value()));
    return;
  }
  if (!link.requested && offset.value() != 0 && !store_.record_boundary(offset)) {
    ++diverged_;
    drop(link, fmt::format("it resumes at offset {}, where no record of this log starts: its log has bytes this "
                           "master does not (the master lost data it had sent?); wipe the slave's store",
                           offset.value()));
    return;
  }
  if (!link.requested) {
    link.requested = offset;
    // RocketMQ 4.9 feeds a new slave from the master's last file; RocketMQ 5 from its first
    // unless the slave asks for the last (syncFromLastFile).
    const bool from_last_file = epochs_ == nullptr || (link.hello && link.hello->sync_from_last_file);
    if (offset.value() == 0 && !from_last_file) {
      link.next = store_.min_phy_offset();
    } else if (offset.value() == 0) {
      const std::int64_t size = store_.commit_log().file_size();
      link.next = PhysicalOffset(end.value() - end.value() % size);
    } else {
      link.next = offset;
    }
    if (auto held = connect_log_.admit(rt_.now())) {
      rt_.log().info("ha: slave {} connected at offset {}; sending from {}{}", link.peer, offset.value(),
                     link.next.value(), held_back_note(*held));
    }
    link.wake.wake();
  }
  link.acked = offset;
  if (epochs_ != nullptr && offset >= link.last_master_max) {
    link.caught_up_at = offset >= end ? rt_.now() : link.last_transfer_at;
    if (link.hello) caught_up_[link.hello->replica_id] = *link.caught_up_at;
  }
  if (offset > replicated_) replicated_ = offset;
  refresh_confirm();
  release_waiters();
}

Task<void> HaMaster::accept_loop(HaMaster* self) {
  while (!self->stopped_) {
    auto c = co_await self->listener_->accept();
    if (self->stopped_) co_return;
    if (!c.ok()) {
      if (c.error().is(Errc::closed)) co_return;
      if (auto held = self->accept_error_log_.admit(self->rt_.now(), static_cast<std::int64_t>(c.error().code))) {
        self->rt_.log().warn("ha: accept failed: {}{}", c.error().to_string(), held_back_note(*held));
      }
      co_await self->rt_.sleep(std::chrono::milliseconds(100));
      continue;
    }
    if (self->links_.size() >= self->config_.slaves_max) {
      if (auto held = self->refusal_log_.admit(self->rt_.now())) {
        self->rt_.log().warn("ha: refused slave {}: {} slaves already connected{}", (*c)->peer().to_string(),
                             self->links_.size(), held_back_note(*held));
      }
      (*c)->close();
      continue;
    }
    const std::uint64_t id = self->next_link_id_++;
    auto link = std::make_shared<Link>(self->rt_, std::move(*c), id);
    link->connected_at = self->rt_.now();
    link->last_report_at = link->connected_at;
    self->links_.emplace(id, link);
    self->rt_.spawn(read_loop(self, link), "ha-read " + link->peer);
    self->rt_.spawn(send_loop(self, link), "ha-send " + link->peer);
  }
}

Task<bool> HaMaster::handshake(HaMaster* self, std::shared_ptr<Link> link) {
  std::array<std::uint8_t, kSlaveHandshakeBytes> buf{};
  Status st = co_await link->conn->read_exact(buf);
  if (link->closed) co_return false;
  if (!st.ok()) {
    self->drop(*link, "reading its handshake: " + st.error().to_string());
    co_return false;
  }
  if (decode_state(buf.data()) != kStateHandshake) {
    self->drop(*link, fmt::format("its first frame has state {}, not a handshake (a RocketMQ 4.9 slave of a "
                                  "controller-mode master?)", decode_state(buf.data())));
    co_return false;
  }
  link->hello = decode_slave_handshake(buf.data());
  const auto& all = self->epochs_->cache().entries();
  const std::size_t first = all.size() > kHandshakeEpochsMax ? all.size() - kHandshakeEpochsMax : 0;
  std::vector<std::uint8_t> out(kMasterHandshakeBytes + (all.size() - first) * kEpochEntryBytes);
  const auto head = encode_master_handshake(MasterHandshake{
      static_cast<std::int32_t>((all.size() - first) * kEpochEntryBytes), self->store_.max_phy_offset(),
      self->epochs_->last_epoch()});
  std::copy(head.begin(), head.end(), out.begin());
  std::uint8_t* p = out.data() + kMasterHandshakeBytes;
  for (std::size_t i = first; i < all.size(); ++i, p += kEpochEntryBytes) {
    store_be32(p, static_cast<std::uint32_t>(all[i].epoch));
    store_be64(p + 4, static_cast<std::uint64_t>(all[i].start.value()));
  }
  st = co_await link->conn->write(Bytes(out.data(), out.size()));
  if (link->closed) co_return false;
  if (!st.ok()) {
    self->drop(*link, "sending the handshake: " + st.error().to_string());
    co_return false;
  }
  if (auto held = self->handshake_log_.admit(self->rt_.now())) {
    self->rt_.log().info("ha: slave {} is replica {}; sent {} epoch(s), last {}{}", link->peer, link->hello->replica_id,
                         all.size() - first, self->epochs_->last_epoch(), held_back_note(*held));
  }
  co_return true;
}

Task<void> HaMaster::read_loop(HaMaster* self, std::shared_ptr<Link> link) {
  if (self->epochs_ != nullptr) {
    if (!co_await handshake(self, link)) co_return;
    std::array<std::uint8_t, kAckBytes> ack{};
    while (!link->closed) {
      const Status st = co_await link->conn->read_exact(ack);
      if (link->closed) co_return;
      if (!st.ok()) {
        self->drop(*link, "reading its ack: " + st.error().to_string());
        co_return;
      }
      if (decode_state(ack.data()) != kStateTransfer) {
        self->drop(*link, fmt::format("an ack with state {}", decode_state(ack.data())));
        co_return;
      }
      self->on_report(*link, decode_ack(ack.data()));
    }
    co_return;
  }
  std::array<std::uint8_t, kReportBytes> buf{};
  while (!link->closed) {
    const Status st = co_await link->conn->read_exact(buf);
    if (link->closed) co_return;
    if (!st.ok()) {
      self->drop(*link, "reading its report: " + st.error().to_string());
      co_return;
    }
    self->on_report(*link, decode_report(buf.data()));
  }
}

std::int64_t HaMaster::clip_to_epoch(PhysicalOffset from, std::int64_t n) const {
  for (const EpochEntry& e : epochs_->cache().entries()) {
    if (e.start > from) return std::min<std::int64_t>(n, e.start - from);
  }
  return n;
}

Task<void> HaMaster::send_loop(HaMaster* self, std::shared_ptr<Link> link) {
  const HaConfig& cfg = self->config_;
  while (!link->closed && !link->requested) (void)co_await link->wake.wait_for(cfg.heartbeat_interval);
  MonoTime last_write = self->rt_.now();
  while (!link->closed) {
    // Under SYNC_FLUSH only durable bytes leave the node (MessageStore::replicable_offset).
    const PhysicalOffset end = self->store_.replicable_offset();
    if (link->next < end) {
      auto view = self->store_.commit_log().view_to_file_end(link->next);
      if (!view.ok()) {
        self->drop(*link, fmt::format("it needs offset {}, which this master no longer has (oldest {}): {}; wipe "
                                      "the slave's store to start it from this master's last file",
                                      link->next.value(), self->store_.min_phy_offset().value(),
                                      view.error().to_string()));
        co_return;
      }
      // The view runs to the file's write position, which may be past `end` (unsynced bytes).
      std::int64_t n = std::min<std::int64_t>({static_cast<std::int64_t>(view->size()), cfg.transfer_batch_bytes,
                                               end - link->next});
      FERRY_ASSERT(n > 0, "ha: an empty batch for slave {} at {} (end {}, view {} bytes)", link->peer,
                   link->next.value(), end.value(), view->size());
      // buggify: a short batch (the slave then holds half a record until the next one).
      if (FERRY_BUGGIFY(self->rt_) && n > 1) n = 1 + static_cast<std::int64_t>(self->rt_.random().below(static_cast<std::uint64_t>(n)));
      if (self->epochs_ != nullptr) n = self->clip_to_epoch(link->next, n);
      const auto head = self->frame_header(link->next, static_cast<std::int32_t>(n));
      const Bytes parts[2] = {Bytes(head.data(), head.size()), view->bytes().first(static_cast<std::size_t>(n))};
      const FileView pinned = std::move(*view);  // keeps the file mapped while the write is in flight
      const Status st = co_await link->conn->write(std::span<const Bytes>(parts));
      if (link->closed) co_return;
      if (!st.ok()) {
        self->drop(*link, "sending: " + st.error().to_string());
        co_return;
      }
      link->next += n;
      last_write = self->rt_.now();
      link->last_master_max = self->store_.max_phy_offset();
      link->last_transfer_at = last_write;
      continue;
    }
    const Duration idle = self->rt_.now() - last_write;
    if (idle >= cfg.heartbeat_interval) {
      const auto head = self->frame_header(link->next, 0);
      const Status st = co_await link->conn->write(Bytes(head.data(), head.size()));
      if (link->closed) co_return;
      if (!st.ok()) {
        self->drop(*link, "sending a heartbeat: " + st.error().to_string());
        co_return;
      }
      last_write = self->rt_.now();
      continue;
    }
    (void)co_await link->wake.wait_for(cfg.heartbeat_interval - idle);
  }
}

std::vector<std::uint8_t> HaMaster::frame_header(PhysicalOffset at, std::int32_t size) const {
  if (epochs_ == nullptr) {
    const auto h = encode_batch_header(BatchHeader{at, size});
    return {h.begin(), h.end()};
  }
  // Bytes before the first epoch (a log older than controller mode) travel as epoch 0.
  const auto e = epochs_->cache().entry_at(at);
  const auto h = encode_transfer_header(TransferHeader{size, at, e ? e->epoch : 0, e ? e->start : PhysicalOffset(0), confirm_});
  return {h.begin(), h.end()};
}

Task<void> HaMaster::housekeeping_loop(HaMaster* self) {
  while (!self->stopped_) {
    co_await self->rt_.sleep(std::chrono::seconds(1));
    const MonoTime now = self->rt_.now();
    std::vector<std::shared_ptr<Link>> silent;
    for (const auto& [id, link] : self->links_) {
      if (now - link->last_report_at > self->config_.housekeeping_interval) silent.push_back(link);
    }
    for (const auto& link : silent) {
      self->drop(*link, fmt::format("no report for {} ms", to_ms(now - link->last_report_at)));
    }
  }
}

}  // namespace ferry::store::ha
