#include "controller/raft_storage.h"

#include <fmt/format.h>

#include "common/big_endian.h"
#include "common/crc.h"
#include "runtime/assert.h"

namespace ferry::controller {
namespace {

constexpr const char* kMetaFile = "raft-meta";
constexpr const char* kLogFile = "raft-log";

std::uint32_t crc_of(Bytes b) { return crc32_update(0, b); }

}  // namespace

Result<std::unique_ptr<RaftStorage>> RaftStorage::open(FileSystem& fs, std::string dir) {
  FERRY_TRY(fs.create_dirs(dir));
  auto meta = fs.open(dir + "/" + kMetaFile, OpenOptions{.create = true});
  if (!meta) return meta.error();
  auto log = fs.open(dir + "/" + kLogFile, OpenOptions{.create = true});
  if (!log) return log.error();
  return std::unique_ptr<RaftStorage>(
      new RaftStorage(fs, std::move(dir), std::move(*meta), std::move(*log)));
}

Result<LoadedState> RaftStorage::load() {
  LoadedState out;
  FERRY_TRY(load_meta(out));
  FERRY_TRY(load_log(out));
  return out;
}

Status RaftStorage::load_meta(LoadedState& out) {
  const std::uint64_t size = meta_->size();
  if (size == 0) return {};  // a new server
  bool found = false;
  for (std::uint64_t slot = 0; slot < 2; ++slot) {
    std::uint8_t buf[kRaftMetaSlotBytes];
    auto n = meta_->pread(slot * kRaftMetaSlotBytes, MutableBytes(buf, sizeof buf));
    if (!n) return n.error();
    if (*n != sizeof buf) continue;
    if (load_be32(buf + 24) != crc_of(Bytes(buf, 24))) continue;
    const std::uint64_t sequence = load_be64(buf);
    if (found && sequence <= meta_sequence_) continue;
    found = true;
    meta_sequence_ = sequence;
    out.term = load_be64(buf + 8);
    out.voted_for = load_be64(buf + 16);
  }
  if (!found) {
    return Error(Errc::corrupt, fmt::format("{}/{}: neither term slot passes its checksum ({} bytes)",
                                            dir_, kMetaFile, size));
  }
  return {};
}

// The record at `pos`, when whole and passing its checksum; `data` receives its bytes.
std::optional<RaftStorage::RecordHead> RaftStorage::read_record(std::uint64_t pos, std::uint64_t size,
                                                                 std::vector<std::uint8_t>& data,
                                                                 Status& error) const {
  std::uint8_t head[kRaftRecordHeaderBytes];
  auto n = log_->pread(pos, MutableBytes(head, sizeof head));
  if (!n) {
    error = n.error();
    return std::nullopt;
  }
  if (*n != sizeof head) return std::nullopt;
  const std::uint32_t length = load_be32(head + 4);
  if (length > kEntryBytesMax || pos + sizeof head + length > size) return std::nullopt;
  data.resize(length);
  auto d = log_->pread(pos + sizeof head, MutableBytes(data.data(), length));
  if (!d) {
    error = d.error();
    return std::nullopt;
  }
  std::uint32_t crc = crc32_update(0, Bytes(head + 4, sizeof head - 4));
  crc = crc32_update(crc, data);
  if (*d != length || crc != load_be32(head)) return std::nullopt;
  return RecordHead{load_be64(head + 8), load_be64(head + 16), load_be16(head + 24),
                    pos + sizeof head + length};
}

Status RaftStorage::load_log(LoadedState& out) {
  const std::uint64_t size = log_->size();
  std::uint64_t pos = 0;
  std::vector<std::uint8_t> data;
  ends_.clear();
  while (pos < size) {
    Status error;
    auto record = read_record(pos, size, data, error);
    if (!error.ok()) return error;
    if (!record) {
      // A bad record is a torn tail (written after the last sync, never acknowledged) unless a
      // good record of the next index follows where its header says it ends: that would be
      // damage to what was synced.
      std::uint8_t head[kRaftRecordHeaderBytes];
      auto n = log_->pread(pos, MutableBytes(head, sizeof head));
      if (n && *n == sizeof head) {
        const std::uint64_t next = pos + sizeof head + load_be32(head + 4);
        std::vector<std::uint8_t> scratch;
        Status next_error;
        auto after = next < size ? read_record(next, size, scratch, next_error) : std::nullopt;
        if (after && after->index == out.entries.size() + 2) {
          return Error(Errc::corrupt,
                       fmt::format("{}/{}: the record of entry {} at offset {} fails its checksum and entry {} follows it",
                                   dir_, kLogFile, out.entries.size() + 1, pos, after->index));
        }
      }
      out.dropped_tail_bytes = size - pos;
      FERRY_TRY(log_->truncate(pos));
      break;
    }
    if (record->index != out.entries.size() + 1) {
      return Error(Errc::corrupt, fmt::format("{}/{}: entry {} at offset {} follows entry {}", dir_,
                                              kLogFile, record->index, pos, out.entries.size()));
    }
    out.entries.push_back(StoredEntry{record->term, record->type, data});
    pos = record->end;
    ends_.push_back(pos);
  }
  return {};
}

Status RaftStorage::write_meta(std::uint64_t term, std::uint64_t voted_for) {
  ++meta_sequence_;
  std::uint8_t buf[kRaftMetaSlotBytes] = {};
  store_be64(buf, meta_sequence_);
  store_be64(buf + 8, term);
  store_be64(buf + 16, voted_for);
  store_be32(buf + 24, crc_of(Bytes(buf, 24)));
  return meta_->pwrite((meta_sequence_ % 2) * kRaftMetaSlotBytes, Bytes(buf, sizeof buf));
}

Status RaftStorage::append(std::uint64_t index, std::uint64_t term, std::uint16_t type, Bytes data) {
  FERRY_ASSERT_EQ(index, last_index() + 1);
  FERRY_ASSERT(data.size() <= kEntryBytesMax, "entry {} of {} bytes", index, data.size());
  std::vector<std::uint8_t> record(kRaftRecordHeaderBytes + data.size());
  std::uint8_t* head = record.data();
  store_be32(head + 4, static_cast<std::uint32_t>(data.size()));
  store_be64(head + 8, index);
  store_be64(head + 16, term);
  store_be16(head + 24, type);
  std::copy(data.begin(), data.end(), record.begin() + kRaftRecordHeaderBytes);
  store_be32(head, crc_of(Bytes(record.data() + 4, record.size() - 4)));
  const std::uint64_t at = ends_.empty() ? 0 : ends_.back();
  FERRY_TRY(log_->pwrite(at, record));
  ends_.push_back(at + record.size());
  return {};
}

Status RaftStorage::truncate_from(std::uint64_t index) {
  FERRY_ASSERT(index >= 1 && index <= last_index() + 1, "truncate from {} of a log ending at {}",
               index, last_index());
  const std::uint64_t at = index == 1 ? 0 : ends_[index - 2];
  FERRY_TRY(log_->truncate(at));
  ends_.resize(index - 1);
  return {};
}

Task<Status> RaftStorage::sync() {
  if (!dir_synced_) {
    Status names = co_await fs_.sync_dir(dir_);
    if (!names.ok()) co_return names;
    dir_synced_ = true;
  }
  Status meta = co_await meta_->sync();
  if (!meta.ok()) co_return meta;
  co_return co_await log_->sync();
}

}  // namespace ferry::controller
