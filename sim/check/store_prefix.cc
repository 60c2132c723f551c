#include "sim/check/store_prefix.h"

#include <fmt/format.h>

namespace ferry::sim::check {

Verdict check_store_prefix(const History& h) {
  Verdict v;
  v.name = "store-prefix";
  std::int64_t restarts = 0, wiped = 0, bytes = 0, records = 0, mismatches = 0, synced_lost = 0;
  for (const StoreRestartRecord& r : h.store_restarts) {
    if (r.wiped) {
      ++wiped;
      continue;
    }
    ++restarts;
    bytes += r.bytes_compared;
    records += r.records_compared;
    if (r.first_mismatch) {
      ++mismatches;
      v.violation(fmt::format("{} restarted (seen at {} ms) with a CommitLog that is not a prefix of what it held: at offset {} "
                              "(below the recovered end {}) {}",
                              r.broker, ms_of(r.at), r.first_mismatch->value(), r.recovered_end.value(), r.detail),
                  r.at);
    }
    if (r.recovered_end < r.before_synced) {
      ++synced_lost;
      v.violation(fmt::format("{} restarted (seen at {} ms) and lost synced data: recovery ended its CommitLog at {}, below "
                              "the {} flushed before the crash ({} synced bytes lost; the log had reached {})",
                              r.broker, ms_of(r.at), r.recovered_end.value(), r.before_synced.value(),
                              r.before_synced - r.recovered_end, r.before_max.value()),
                  r.at);
    }
  }
  v.figures["restarts"] = restarts;
  v.figures["wiped"] = wiped;
  v.figures["bytes_compared"] = bytes;
  v.figures["records_compared"] = records;
  v.figures["mismatches"] = mismatches;
  v.figures["synced_lost"] = synced_lost;
  v.passed = v.violations == 0;
  return v;
}

CheckerSpec store_prefix_checker() {
  return CheckerSpec{"store-prefix", "after any crash a broker's CommitLog is a prefix of what it appended, holding every synced record", true, {}, Records(Record::store_restarts),
                     [](const History& h, const OptionValues&) { return check_store_prefix(h); }};
}

}  // namespace ferry::sim::check
