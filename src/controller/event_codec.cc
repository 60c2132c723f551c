// The byte forms of the controller's events and of a whole ReplicasInfo (replicas_info.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/byte_reader.h"
#include "common/byte_writer.h"
#include "controller/replicas_info.h"

namespace ferry::controller {
namespace {

constexpr std::uint8_t kFormatVersion = 1;
constexpr std::size_t kStringBytesMax = 1024;  // names and addresses are short
constexpr std::size_t kIdsMax = 1024;          // replicas of one group
constexpr std::size_t kSetsMax = 1 << 16;      // groups in one snapshot

enum class Kind : std::uint8_t {
  apply_replica_id = 1,
  elect_master = 2,
  alter_sync_state_set = 3,
  clean_broker_data = 4,
  update_replica_address = 5,
};

void put_string(ByteWriter& w, const std::string& s) {
  w.u16(static_cast<std::uint16_t>(std::min(s.size(), kStringBytesMax)));
  w.text(std::string_view(s).substr(0, kStringBytesMax));
}

template <typename Ids>
void put_ids(ByteWriter& w, const Ids& ids) {
  w.u16(static_cast<std::uint16_t>(ids.size()));
  for (ReplicaId id : ids) w.i64(id);
}

Result<std::string> get_string(ByteReader& r) {
  auto n = r.u16();
  if (!n) return n.error();
  if (*n > kStringBytesMax) return Error(Errc::corrupt, fmt::format("string of {} bytes", *n));
  auto s = r.text(*n);
  if (!s) return s.error();
  return std::string(*s);
}

Result<std::vector<ReplicaId>> get_ids(ByteReader& r) {
  auto n = r.u16();
  if (!n) return n.error();
  if (*n > kIdsMax) return Error(Errc::corrupt, fmt::format("{} replica ids", *n));
  std::vector<ReplicaId> ids;
  ids.reserve(*n);
  for (std::uint16_t i = 0; i < *n; ++i) {
    auto id = r.i64();
    if (!id) return id.error();
    ids.push_back(*id);
  }
  return ids;
}

// Reads the fields of one event kind, in the order encode_event() wrote them.
#define FERRY_GET(var, expr)      \
  auto var = (expr);              \
  if (!var) return var.error();

Result<Event> get_event(Kind kind, ByteReader& r) {
  switch (kind) {
    case Kind::apply_replica_id: {
      FERRY_GET(cluster, get_string(r));
      FERRY_GET(name, get_string(r));
      FERRY_GET(id, r.i64());
      FERRY_GET(address, get_string(r));
      FERRY_GET(code, get_string(r));
      return Event{ApplyReplicaIdEvent{*cluster, *name, *id, *address, *code}};
    }
    case Kind::elect_master: {
      FERRY_GET(name, get_string(r));
      FERRY_GET(has, r.u8());
      FERRY_GET(id, r.i64());
      FERRY_GET(seen, r.i32());
      ElectMasterEvent e{*name, std::nullopt, *seen};
      if (*has) e.master = *id;
      return Event{e};
    }
    case Kind::alter_sync_state_set: {
      FERRY_GET(name, get_string(r));
      FERRY_GET(master, r.i64());
      FERRY_GET(seen_master, r.i32());
      FERRY_GET(seen_set, r.i32());
      FERRY_GET(ids, get_ids(r));
      return Event{AlterSyncStateSetEvent{*name, *master, *seen_master, *seen_set,
                                          std::set<ReplicaId>(ids->begin(), ids->end())}};
    }
    case Kind::clean_broker_data: {
      FERRY_GET(name, get_string(r));
      FERRY_GET(ids, get_ids(r));
      return Event{CleanBrokerDataEvent{*name, *ids}};
    }
    case Kind::update_replica_address: {
      FERRY_GET(name, get_string(r));
      FERRY_GET(id, r.i64());
      FERRY_GET(address, get_string(r));
      return Event{UpdateReplicaAddressEvent{*name, *id, *address}};
    }
  }
  return Error(Errc::corrupt, fmt::format("unknown event kind {}", static_cast<int>(kind)));
}

std::string ids_text(const auto& ids) { return fmt::format("{{{}}}", fmt::join(ids, ",")); }

}  // namespace

std::vector<std::uint8_t> encode_event(const Event& e) {
  std::vector<std::uint8_t> out;
  ByteWriter w(out);
  w.u8(kFormatVersion);
  std::visit(
      [&w](const auto& ev) {
        using T = std::decay_t<decltype(ev)>;
        if constexpr (std::is_same_v<T, ApplyReplicaIdEvent>) {
          w.u8(static_cast<std::uint8_t>(Kind::apply_replica_id));
          put_string(w, ev.cluster);
          put_string(w, ev.name);
          w.i64(ev.id);
          put_string(w, ev.address);
          put_string(w, ev.register_check_code);
        } else if constexpr (std::is_same_v<T, ElectMasterEvent>) {
          w.u8(static_cast<std::uint8_t>(Kind::elect_master));
          put_string(w, ev.name);
          w.u8(ev.master ? 1 : 0);
          w.i64(ev.master.value_or(kNoReplica));
          w.i32(ev.seen_master_epoch);
        } else if constexpr (std::is_same_v<T, AlterSyncStateSetEvent>) {
          w.u8(static_cast<std::uint8_t>(Kind::alter_sync_state_set));
          put_string(w, ev.name);
          w.i64(ev.master);
          w.i32(ev.seen_master_epoch);
          w.i32(ev.seen_sync_state_set_epoch);
          put_ids(w, ev.sync_state_set);
        } else if constexpr (std::is_same_v<T, CleanBrokerDataEvent>) {
          w.u8(static_cast<std::uint8_t>(Kind::clean_broker_data));
          put_string(w, ev.name);
          put_ids(w, ev.ids);
        } else {
          static_assert(std::is_same_v<T, UpdateReplicaAddressEvent>);
          w.u8(static_cast<std::uint8_t>(Kind::update_replica_address));
          put_string(w, ev.name);
          w.i64(ev.id);
          put_string(w, ev.address);
        }
      },
      e);
  return out;
}

Result<Event> decode_event(Bytes data) {
  ByteReader r(data);
  FERRY_GET(version, r.u8());
  if (*version != kFormatVersion) {
    return Error(Errc::corrupt, fmt::format("event format version {}", *version));
  }
  FERRY_GET(kind, r.u8());
  auto e = get_event(static_cast<Kind>(*kind), r);
  if (!e) return e.error();
  if (!r.at_end()) return Error(Errc::corrupt, fmt::format("{} bytes after the event", r.remaining()));
  return e;
}

std::string describe(const Event& e) {
  return std::visit(
      [](const auto& ev) -> std::string {
        using T = std::decay_t<decltype(ev)>;
        if constexpr (std::is_same_v<T, ApplyReplicaIdEvent>) {
          return fmt::format("ApplyReplicaId {}/{} id={} address={}", ev.cluster, ev.name, ev.id,
                             ev.address);
        } else if constexpr (std::is_same_v<T, ElectMasterEvent>) {
          return fmt::format("ElectMaster {} master={} seenMasterEpoch={}", ev.name,
                             ev.master ? std::to_string(*ev.master) : "none", ev.seen_master_epoch);
        } else if constexpr (std::is_same_v<T, AlterSyncStateSetEvent>) {
          return fmt::format("AlterSyncStateSet {} master={} set={} seenEpochs={}/{}", ev.name,
                             ev.master, ids_text(ev.sync_state_set), ev.seen_master_epoch,
                             ev.seen_sync_state_set_epoch);
        } else if constexpr (std::is_same_v<T, CleanBrokerDataEvent>) {
          return fmt::format("CleanBrokerData {} ids={}", ev.name,
                             ev.ids.empty() ? std::string("all") : ids_text(ev.ids));
        } else {
          return fmt::format("UpdateReplicaAddress {} id={} address={}", ev.name, ev.id, ev.address);
        }
      },
      e);
}

std::vector<std::uint8_t> ReplicasInfo::encode() const {
  std::vector<std::uint8_t> out;
  ByteWriter w(out);
  w.u8(kFormatVersion);
  w.u64(applied_);
  w.u32(static_cast<std::uint32_t>(sets_.size()));
  for (const auto& [name, set] : sets_) {
    put_string(w, set.cluster);
    put_string(w, set.name);
    w.i64(set.next_replica_id);
    w.u16(static_cast<std::uint16_t>(set.replicas.size()));
    for (const auto& [id, replica] : set.replicas) {
      w.i64(id);
      put_string(w, replica.address);
      put_string(w, replica.register_check_code);
    }
    w.u8(set.master ? 1 : 0);
    w.i64(set.master.value_or(kNoReplica));
    w.i32(set.master_epoch);
    w.i32(set.sync_state_set_epoch);
    put_ids(w, set.sync_state_set);
  }
  return out;
}

Result<ReplicasInfo> ReplicasInfo::decode(Bytes data) {
  ByteReader r(data);
  FERRY_GET(version, r.u8());
  if (*version != kFormatVersion) {
    return Error(Errc::corrupt, fmt::format("snapshot format version {}", *version));
  }
  ReplicasInfo info;
  FERRY_GET(applied, r.u64());
  info.applied_ = *applied;
  FERRY_GET(count, r.u32());
  if (*count > kSetsMax) return Error(Errc::corrupt, fmt::format("{} broker sets", *count));
  for (std::uint32_t i = 0; i < *count; ++i) {
    BrokerSet set;
    FERRY_GET(cluster, get_string(r));
    FERRY_GET(name, get_string(r));
    FERRY_GET(next, r.i64());
    FERRY_GET(replicas, r.u16());
    if (*replicas > kIdsMax) return Error(Errc::corrupt, fmt::format("{} replicas", *replicas));
    set.cluster = *cluster;
    set.name = *name;
    set.next_replica_id = *next;
    for (std::uint16_t k = 0; k < *replicas; ++k) {
      FERRY_GET(id, r.i64());
      FERRY_GET(address, get_string(r));
      FERRY_GET(code, get_string(r));
      set.replicas.emplace(*id, Replica{*address, *code});
    }
    FERRY_GET(has_master, r.u8());
    FERRY_GET(master, r.i64());
    FERRY_GET(master_epoch, r.i32());
    FERRY_GET(set_epoch, r.i32());
    FERRY_GET(ids, get_ids(r));
    if (*has_master) set.master = *master;
    set.master_epoch = *master_epoch;
    set.sync_state_set_epoch = *set_epoch;
    set.sync_state_set.insert(ids->begin(), ids->end());
    if (!info.sets_.emplace(set.name, std::move(set)).second) {
      return Error(Errc::corrupt, fmt::format("broker set {} twice", *name));
    }
  }
  if (!r.at_end()) return Error(Errc::corrupt, fmt::format("{} bytes after the snapshot", r.remaining()));
  return info;
}

#undef FERRY_GET

}  // namespace ferry::controller
