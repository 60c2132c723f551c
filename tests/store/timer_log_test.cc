// TimerLog and TimerWheel (store/timer): the entry format and its checks, appends across files,
// slots of a window, rolling beyond it, skipping empty stretches.
#include <gtest/gtest.h>

#include <array>

#include "store/timer/timer_log.h"
#include "store/timer/timer_wheel.h"
#include "tests/store/one_node.h"

namespace ferry::store::timer {
namespace {

using testing::OneNode;

TEST(TimerEntry, RoundTripsAndItsChecksCatchDamage) {
  const Entry e{.slot_ms = 1'700'000'001'000, .deliver_ms = 1'700'000'009'000, .log_offset = 4096, .prev = 80, .size = 310};
  std::array<std::uint8_t, kEntryBytes> buf{};
  encode_entry(e, buf.data());
  auto back = decode_entry(buf.data(), 120);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(*back, e);
  EXPECT_TRUE(back->rolled());
  buf[17] ^= 0x01;  // a bit of the log offset flips
  auto damaged = decode_entry(buf.data(), 120);
  ASSERT_FALSE(damaged.ok());
  EXPECT_NE(damaged.error().detail.find("timer log entry at 120: CRC"), std::string::npos) << damaged.error().detail;
  // A well-formed entry that links forward (prev at or past itself) is no entry either.
  encode_entry(Entry{.slot_ms = 1000, .deliver_ms = 1000, .log_offset = 0, .prev = 120, .size = 10}, buf.data());
  auto forward = decode_entry(buf.data(), 120);
  ASSERT_FALSE(forward.ok());
  EXPECT_NE(forward.error().detail.find("prev 120"), std::string::npos) << forward.error().detail;
}

TEST(TimerLog, AppendsAcrossFilesReadsBackAndCutsToALength) {
  OneNode rt;
  TimerLog log(rt.fs(), "store/timerlog", 4);  // 160-byte files
  ASSERT_TRUE(log.load().ok());
  for (std::int64_t i = 0; i < 10; ++i) {
    auto pos = log.append(Entry{.slot_ms = 1000 * i, .deliver_ms = 1000 * i, .log_offset = 100 * i, .prev = kNoEntry, .size = 50});
    ASSERT_TRUE(pos.ok());
    EXPECT_EQ(*pos, i * kEntryBytes);
  }
  EXPECT_EQ(log.max_offset(), 10 * kEntryBytes);
  EXPECT_EQ(log.files().file_count(), 3u);
  auto seventh = log.read(7 * kEntryBytes);
  ASSERT_TRUE(seventh.ok());
  EXPECT_EQ(seventh->log_offset, 700);
  EXPECT_EQ(log.read(10 * kEntryBytes).error().code, Errc::not_found);
  ASSERT_TRUE(log.truncate(6 * kEntryBytes).ok());
  EXPECT_EQ(log.max_offset(), 6 * kEntryBytes);
  EXPECT_EQ(log.files().file_count(), 2u);
  auto next = log.append(Entry{.slot_ms = 0, .deliver_ms = 0, .log_offset = 1, .prev = kNoEntry, .size = 1});
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(*next, 6 * kEntryBytes);
  auto removed = log.remove_files_before(4 * kEntryBytes);
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, 1u);
  EXPECT_EQ(log.min_offset(), 4 * kEntryBytes);
}

TEST(TimerWheel, FilesBySlotRollsBeyondTheWindowAndSkipsEmptyStretches) {
  // 1 s slots, 3000 of them (three blocks): a window of 3000 s from 10:00:00.
  const std::int64_t start = 36'000'000;
  TimerWheel w(1000, 3000, start + 400);
  EXPECT_EQ(w.current(), start);
  EXPECT_EQ(w.last_slot(), start + 2'999'000);
  EXPECT_EQ(w.slot_for(start + 5'700), start + 5'000);
  EXPECT_EQ(w.slot_for(start - 60'000), start) << "a slot already passed is filed under the current one";
  EXPECT_EQ(w.slot_for(start + 9'000'000), start + 2'999'000) << "beyond the window: its last slot";
  EXPECT_FALSE(w.next_due().has_value());

  w.add(start + 2'500'000, 0);  // in the third block
  w.add(start + 5'000, 40);
  w.add(start + 5'000, 80);
  EXPECT_EQ(w.head(start + 5'000).last, 80);
  EXPECT_EQ(w.head(start + 5'000).count, 2);
  EXPECT_EQ(w.pending(), 3);
  EXPECT_EQ(w.next_due(), start + 5'000);
  w.skip_to(start + 5'000);
  const TimerWheel::Head h = w.take();
  EXPECT_EQ(h.last, 80);
  EXPECT_EQ(h.count, 2);
  EXPECT_EQ(w.current(), start + 6'000);
  EXPECT_EQ(w.pending(), 1);
  // The next entry is two blocks on: found, and the window's end moved with current().
  EXPECT_EQ(w.next_due(), start + 2'500'000);
  EXPECT_EQ(w.last_slot(), start + 3'005'000);
  w.skip_to(start + 2'500'000);
  // Slots that wrapped around the table are new slots: filing under the window's end works.
  w.add(w.last_slot(), 120);
  EXPECT_EQ(w.take().count, 1);
  EXPECT_EQ(w.next_due(), start + 2'500'000 + 2'999'000);
  EXPECT_EQ(w.memory_bytes(), static_cast<std::int64_t>(3000 * sizeof(TimerWheel::Head) + 3 * sizeof(std::int64_t)));
}

}  // namespace
}  // namespace ferry::store::timer
