#include "store/checkpoint.h"

#include <array>

#include "common/big_endian.h"
#include "common/crc.h"
#include "runtime/assert.h"

namespace ferry::store {

namespace {
constexpr std::size_t kCrcPos = 24;
static_assert(kCrcPos + 4 == kCheckpointBytes);
}  // namespace

Result<std::optional<Checkpoint>> read_checkpoint(FileSystem& fs, const std::string& path) {
  auto file = fs.open(path, OpenOptions{});
  if (!file.ok()) {
    if (file.error().is(Errc::not_found)) return std::optional<Checkpoint>();
    return std::move(file).error();
  }
  std::array<std::uint8_t, kCheckpointBytes> b{};
  auto got = (*file)->pread(0, b);
  if (!got.ok()) return std::move(got).error();
  if (*got != b.size()) return std::optional<Checkpoint>();
  const auto crc = static_cast<std::int32_t>(load_be32(b.data() + kCrcPos));
  if (crc != body_crc(Bytes(b.data(), kCrcPos))) return std::optional<Checkpoint>();
  Checkpoint cp{PhysicalOffset(static_cast<std::int64_t>(load_be64(b.data()))),
                PhysicalOffset(static_cast<std::int64_t>(load_be64(b.data() + 8))),
                PhysicalOffset(static_cast<std::int64_t>(load_be64(b.data() + 16)))};
  return std::optional<Checkpoint>(cp);
}

Task<Status> write_checkpoint(FileSystem& fs, std::string path, Checkpoint cp) {
  FERRY_ASSERT(cp.physic.value() >= 0 && cp.logics.value() >= 0 && cp.index.value() >= 0,
               "negative checkpoint {} {} {}", cp.physic.value(), cp.logics.value(), cp.index.value());
  std::array<std::uint8_t, kCheckpointBytes> b{};
  store_be64(b.data(), static_cast<std::uint64_t>(cp.physic.value()));
  store_be64(b.data() + 8, static_cast<std::uint64_t>(cp.logics.value()));
  store_be64(b.data() + 16, static_cast<std::uint64_t>(cp.index.value()));
  store_be32(b.data() + kCrcPos, static_cast<std::uint32_t>(body_crc(Bytes(b.data(), kCrcPos))));
  OpenOptions opts;
  opts.create = true;
  auto file = fs.open(path, opts);
  if (!file.ok()) co_return std::move(file).error();
  Status st = (*file)->pwrite(0, b);
  if (!st.ok()) co_return st;
  co_return co_await (*file)->sync();
}

}  // namespace ferry::store
