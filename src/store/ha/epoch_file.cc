#include "store/ha/epoch_file.h"

#include <fmt/format.h>

namespace ferry::store {

EpochFile::EpochFile(Runtime& rt, std::string path) : rt_(rt), file_(rt, std::move(path)) {}

Status EpochFile::load(PhysicalOffset log_end) {
  EpochCache loaded;
  auto read = file_.load([&](std::string_view text) -> Status {
    auto decoded = EpochCache::decode(text);
    if (!decoded.ok()) return std::move(decoded).error();
    loaded = std::move(*decoded);
    return {};
  });
  if (!read.ok()) return std::move(read).error();
  if (read->has_value() && (*read)->from_backup) {
    rt_.log().warn("store: {} was unusable; its backup was read", file_.path());
  }
  const std::size_t before = loaded.entries().size();
  // Entries past the log's end: the log was cut (or lost unsynced bytes) after they were written.
  std::vector<EpochEntry> kept;
  for (const EpochEntry& e : loaded.entries()) {
    if (e.start <= log_end) kept.push_back(e);
  }
  cache_ = EpochCache(std::move(kept));
  if (cache_.entries().size() != before) {
    rt_.log().warn("store: {}: {} epoch(s) start past the log's end {}; dropped", file_.path(),
                   before - cache_.entries().size(), log_end.value());
  }
  return {};
}

Task<Status> EpochFile::append(MasterEpoch epoch, PhysicalOffset start) {
  if (!cache_.append(epoch, start)) {
    co_return Error(Errc::invalid_argument,
                    fmt::format("epoch {} from offset {} does not follow the last epoch {} (from offset {})", epoch,
                                start.value(), cache_.last_epoch(),
                                cache_.empty() ? 0 : cache_.entries().back().start.value()));
  }
  co_return co_await save();
}

Task<Status> EpochFile::truncate_from_offset(PhysicalOffset offset) {
  const std::size_t before = cache_.entries().size();
  cache_.truncate_from_offset(offset);
  if (cache_.entries().size() == before) co_return Status();
  co_return co_await save();
}

Task<Status> EpochFile::truncate_from_epoch(MasterEpoch epoch) {
  const std::size_t before = cache_.entries().size();
  cache_.truncate_from_epoch(epoch);
  if (cache_.entries().size() == before) co_return Status();
  co_return co_await save();
}

Task<Status> EpochFile::reset(EpochCache cache) {
  cache_ = std::move(cache);
  co_return co_await save();
}

Task<Status> EpochFile::save() { co_return co_await file_.write(cache_.encode()); }

}  // namespace ferry::store
