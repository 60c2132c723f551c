#include "sim/disk/inode.h"

#include <algorithm>
#include <cstring>

#include "runtime/assert.h"

namespace ferry::sim {

void Inode::grow_buffer(std::uint64_t size) {
  FERRY_ASSERT_GE(size, data_->size());
  if (size <= data_->capacity()) {
    data_->resize(size);  // within capacity: the buffer does not move
    return;
  }
  const std::uint64_t capacity = std::max<std::uint64_t>(size, 2 * data_->capacity());
  if (data_.use_count() > 1) {
    // Views pin the current buffer: leave it to them and continue in a new one.
    auto next = std::make_shared<std::vector<std::uint8_t>>();
    next->reserve(capacity);
    next->assign(data_->begin(), data_->end());
    next->resize(size);
    data_ = std::move(next);
    return;
  }
  data_->reserve(capacity);
  data_->resize(size);
}

void Inode::write(std::uint64_t offset, Bytes bytes) {
  if (bytes.empty()) return;
  const std::uint64_t end = offset + bytes.size();
  if (end > size()) grow_buffer(end);
  std::memcpy(data_->data() + offset, bytes.data(), bytes.size());
  ++version_;
  for (std::uint64_t s = offset / kSectorBytes; s <= (end - 1) / kSectorBytes; ++s) dirty_[s] = version_;
}

void Inode::resize(std::uint64_t size) {
  if (size < this->size()) {
    low_water_ = std::min(low_water_, size);
    data_->resize(size);
    ++version_;
    return;
  }
  if (size > this->size()) {
    grow_buffer(size);
    ++version_;
  }
}

Inode::Snapshot Inode::snapshot() {
  Snapshot snap;
  snap.version = version_;
  snap.size = size();
  snap.low_water = low_water_;
  low_water_ = size();
  snap.sectors.reserve(dirty_.size());
  for (const auto& [sector, version] : dirty_) {
    const std::uint64_t begin = sector * kSectorBytes;
    if (begin >= snap.size) continue;
    const std::uint64_t end = std::min(begin + kSectorBytes, snap.size);
    snap.sectors.emplace_back(sector, std::vector<std::uint8_t>(data_->begin() + static_cast<std::ptrdiff_t>(begin),
                                                                data_->begin() + static_cast<std::ptrdiff_t>(end)));
  }
  return snap;
}

void Inode::apply(const Snapshot& snap) {
  durable_.resize(std::min<std::uint64_t>(durable_.size(), snap.low_water));
  durable_.resize(snap.size);
  for (const auto& [sector, bytes] : snap.sectors) {
    const std::uint64_t begin = sector * kSectorBytes;
    FERRY_ASSERT_LE(begin + bytes.size(), durable_.size());
    std::memcpy(durable_.data() + begin, bytes.data(), bytes.size());
  }
  for (auto it = dirty_.begin(); it != dirty_.end();) {
    it = it->second <= snap.version ? dirty_.erase(it) : std::next(it);
  }
}

void Inode::drop(const Snapshot& snap) {
  for (auto it = dirty_.begin(); it != dirty_.end();) {
    it = it->second <= snap.version ? dirty_.erase(it) : std::next(it);
  }
}

std::uint64_t Inode::crash(bool torn, std::uint32_t keep_ppm, std::uint32_t corrupt_ppm, Random& random) {
  std::vector<std::uint8_t> next = durable_;
  std::uint64_t kept = 0;
  if (torn) {
    for (const auto& [sector, version] : dirty_) {
      const std::uint64_t begin = sector * kSectorBytes;
      if (begin >= size()) continue;
      if (!random.chance_ppm(keep_ppm)) continue;
      const std::uint64_t end = std::min(begin + kSectorBytes, size());
      if (next.size() < end) next.resize(end);
      std::memcpy(next.data() + begin, data_->data() + begin, end - begin);
      if (random.chance_ppm(corrupt_ppm)) {
        // Garbage only where the unsynced write changed the sector: synced bytes sharing the
        // sector stay intact (corruption of the in-flight write, not of durable data).
        for (std::uint64_t i = begin; i < end; ++i) {
          if (i >= durable_.size() || (*data_)[i] != durable_[i]) next[i] = static_cast<std::uint8_t>(random.below(256));
        }
      }
      ++kept;
    }
  }
  // What the disk holds now is both the durable and the current image.
  durable_ = next;
  if (data_.use_count() > 1) {
    data_ = std::make_shared<std::vector<std::uint8_t>>(std::move(next));
  } else {
    *data_ = std::move(next);
  }
  dirty_.clear();
  low_water_ = size();
  ++version_;
  return kept;
}

void Inode::clear() {
  data_ = std::make_shared<std::vector<std::uint8_t>>();
  durable_.clear();
  dirty_.clear();
  low_water_ = 0;
  ++version_;
}

}  // namespace ferry::sim
