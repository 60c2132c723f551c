#include "store/ha/epoch_cache.h"

#include <charconv>

#include <fmt/format.h>

#include "common/crc.h"
#include "runtime/assert.h"

namespace ferry::store {
namespace {

std::uint32_t block_crc(std::string_view lines) { return crc32_update(0, as_bytes(lines)) & 0x7FFFFFFF; }

template <typename Int>
std::optional<Int> number(std::string_view text) {
  Int v{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace

EpochCache::EpochCache(std::vector<EpochEntry> entries) : entries_(std::move(entries)) {
  for (std::size_t i = 1; i < entries_.size(); ++i) {
    FERRY_ASSERT(entries_[i - 1].epoch < entries_[i].epoch, "epoch {} after epoch {}", entries_[i].epoch,
                 entries_[i - 1].epoch);
    FERRY_ASSERT(entries_[i - 1].start <= entries_[i].start, "epoch {} starts at {} before epoch {} at {}",
                 entries_[i].epoch, entries_[i].start, entries_[i - 1].epoch, entries_[i - 1].start);
  }
}

bool EpochCache::append(MasterEpoch epoch, PhysicalOffset start) {
  if (!entries_.empty()) {
    const EpochEntry& last = entries_.back();
    if (epoch <= last.epoch || start < last.start) return false;
    if (start == last.start) entries_.pop_back();  // the last epoch wrote nothing
  }
  entries_.push_back(EpochEntry{epoch, start});
  return true;
}

PhysicalOffset EpochCache::end_of(std::size_t i, PhysicalOffset log_end) const {
  FERRY_ASSERT_LT(i, entries_.size());
  return i + 1 < entries_.size() ? entries_[i + 1].start : log_end;
}

std::optional<EpochEntry> EpochCache::entry_at(PhysicalOffset offset) const {
  for (std::size_t i = entries_.size(); i-- > 0;) {
    if (entries_[i].start <= offset) return entries_[i];
  }
  return std::nullopt;
}

std::optional<PhysicalOffset> EpochCache::consistent_point(PhysicalOffset log_end, const EpochCache& master,
                                                           PhysicalOffset master_end) const {
  for (std::size_t i = entries_.size(); i-- > 0;) {
    const EpochEntry& mine = entries_[i];
    for (std::size_t k = 0; k < master.entries_.size(); ++k) {
      const EpochEntry& theirs = master.entries_[k];
      if (theirs.epoch != mine.epoch) continue;
      if (theirs.start != mine.start) break;  // the same epoch number over different bytes
      return std::min(end_of(i, log_end), master.end_of(k, master_end));
    }
  }
  return std::nullopt;
}

void EpochCache::truncate_from_offset(PhysicalOffset offset) {
  while (!entries_.empty() && entries_.back().start >= offset) entries_.pop_back();
}

void EpochCache::truncate_from_epoch(MasterEpoch epoch) {
  while (!entries_.empty() && entries_.back().epoch >= epoch) entries_.pop_back();
}

void EpochCache::truncate_before_offset(PhysicalOffset offset) {
  std::size_t drop = 0;
  while (drop + 1 < entries_.size() && entries_[drop + 1].start <= offset) ++drop;
  entries_.erase(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(drop));
}

std::string EpochCache::encode() const {
  std::string lines;
  for (const EpochEntry& e : entries_) lines += fmt::format("{}-{}\n", e.epoch, e.start.value());
  return fmt::format("{}\n{}\n{}", entries_.size(), block_crc(lines), lines);
}

Result<EpochCache> EpochCache::decode(std::string_view text) {
  auto next_line = [&text]() -> std::optional<std::string_view> {
    if (text.empty()) return std::nullopt;
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // written on Windows
    return line;
  };
  auto count_line = next_line();
  auto crc_line = next_line();
  const auto count = count_line ? number<std::size_t>(*count_line) : std::nullopt;
  const auto crc_value = crc_line ? number<std::int64_t>(*crc_line) : std::nullopt;
  if (!count || !crc_value) return Error(Errc::corrupt, "epoch file: the first two lines are not the entry count and CRC");
  const std::int64_t crc = *crc_value;
  std::string lines;
  std::vector<EpochEntry> entries;
  while (auto line = next_line()) {
    if (line->empty()) continue;
    lines += std::string(*line) + "\n";
    const auto dash = line->find('-', 1);
    auto epoch = dash == std::string_view::npos ? std::nullopt : number<MasterEpoch>(line->substr(0, dash));
    auto start = dash == std::string_view::npos ? std::nullopt : number<std::int64_t>(line->substr(dash + 1));
    if (!epoch || !start || *start < 0) {
      return Error(Errc::corrupt, fmt::format("epoch file: line '{}' is not <epoch>-<start offset>", *line));
    }
    if (!entries.empty() && (*epoch <= entries.back().epoch || PhysicalOffset(*start) < entries.back().start)) {
      return Error(Errc::corrupt, fmt::format("epoch file: entry {}-{} is out of order", *epoch, *start));
    }
    entries.push_back(EpochEntry{*epoch, PhysicalOffset(*start)});
  }
  if (entries.size() != *count) {
    return Error(Errc::corrupt, fmt::format("epoch file: {} entries expected, {} found", *count, entries.size()));
  }
  if (crc != 0 && crc != block_crc(lines)) {
    return Error(Errc::corrupt, fmt::format("epoch file: CRC {} does not match the entries ({})", crc, block_crc(lines)));
  }
  return EpochCache(std::move(entries));
}

}  // namespace ferry::store
