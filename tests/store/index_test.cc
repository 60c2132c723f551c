// IndexFile byte layout (the worked example of docs/store.md), chains, hash collisions,
// non-ASCII keys, full files, torn chains; IndexService naming, roll-over, queries, cleanup;
// yyyyMMddHHmmssSSS names.
#include <gtest/gtest.h>

#include "common/big_endian.h"
#include "store/index_file.h"
#include "store/index_service.h"
#include "tests/store/one_node.h"
#include "store/time_name.h"

namespace ferry::store {
namespace {

using testing::OneNode;

constexpr WallMs kT0 = 1'700'000'000'000;  // 2023-11-14 22:13:20.000 UTC
const IndexGeometry kSmall{8, 6};          // 8 slots, entries 1..5 usable

std::int32_t be32_at(const std::vector<std::uint8_t>& b, std::int64_t pos) {
  return static_cast<std::int32_t>(load_be32(b.data() + pos));
}
std::int64_t be64_at(const std::vector<std::uint8_t>& b, std::int64_t pos) {
  return static_cast<std::int64_t>(load_be64(b.data() + pos));
}

TEST(TimeName, FormatsAndParsesUtc) {
  EXPECT_EQ(time_file_name(kT0), "20231114221320000");
  EXPECT_EQ(time_file_name(0), "19700101000000000");
  EXPECT_EQ(time_file_name(1'709'164'800'123), "20240229000000123");  // leap day
  EXPECT_EQ(parse_time_file_name("20231114221320000"), kT0);
  EXPECT_EQ(parse_time_file_name("20240229000000123"), 1'709'164'800'123);
  EXPECT_FALSE(parse_time_file_name("20230229000000000"));  // not a leap year
  EXPECT_FALSE(parse_time_file_name("2023111422132000"));
  EXPECT_FALSE(parse_time_file_name("2023111422136000x"));
  EXPECT_FALSE(parse_time_file_name("20231314221320000"));
}

TEST(IndexFile, WorkedExampleLayout) {
  OneNode rt;
  auto f = IndexFile::create(rt.fs(), "idx", kSmall);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(kSmall.file_size(), 40 + 8 * 4 + 6 * 20);
  // "T#Aa" and "T#BB" share Java hash 2538191 (slot 7); "T#x" hashes to 81929 (slot 1).
  ASSERT_TRUE(*(*f)->put("T#Aa", PhysicalOffset(100), kT0));
  ASSERT_TRUE(*(*f)->put("T#x", PhysicalOffset(200), kT0 + 1500));
  ASSERT_TRUE(*(*f)->put("T#BB", PhysicalOffset(300), kT0 + 2500));
  const auto& b = rt.bytes("idx");
  // Header.
  EXPECT_EQ(be64_at(b, 0), kT0);
  EXPECT_EQ(be64_at(b, 8), kT0 + 2500);
  EXPECT_EQ(be64_at(b, 16), 100);
  EXPECT_EQ(be64_at(b, 24), 300);
  EXPECT_EQ(be32_at(b, 32), 2) << "two slots hold chains";
  EXPECT_EQ(be32_at(b, 36), 4) << "next entry number";
  // Slots: slot 1 -> entry 2, slot 7 -> entry 3 (newest of its chain).
  EXPECT_EQ(be32_at(b, 40 + 1 * 4), 2);
  EXPECT_EQ(be32_at(b, 40 + 7 * 4), 3);
  EXPECT_EQ(be32_at(b, 40 + 0 * 4), 0);
  // Entry 0 is never used; entry 3 = {hash, 300, 2 s, prev 1}.
  const std::int64_t entries = 40 + 8 * 4;
  for (int i = 0; i < 20; ++i) EXPECT_EQ(b[entries + i], 0);
  EXPECT_EQ(be32_at(b, entries + 3 * 20), 2538191);
  EXPECT_EQ(be64_at(b, entries + 3 * 20 + 4), 300);
  EXPECT_EQ(be32_at(b, entries + 3 * 20 + 12), 2);
  EXPECT_EQ(be32_at(b, entries + 3 * 20 + 16), 1);
  EXPECT_EQ(be32_at(b, entries + 1 * 20 + 16), 0) << "entry 1 ends its chain";
}

TEST(IndexFile, QueryReturnsHashMatchesNewestFirstWithinTime) {
  OneNode rt;
  auto f = IndexFile::create(rt.fs(), "idx", kSmall);
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE(*(*f)->put("T#Aa", PhysicalOffset(100), kT0));
  ASSERT_TRUE(*(*f)->put("T#x", PhysicalOffset(200), kT0 + 1500));
  ASSERT_TRUE(*(*f)->put("T#BB", PhysicalOffset(300), kT0 + 2500));
  std::vector<PhysicalOffset> out;
  ASSERT_TRUE((*f)->query("T#Aa", 10, 0, INT64_MAX, out).ok());
  ASSERT_EQ(out.size(), 2u) << "a hash collision is returned; the caller re-checks the key";
  EXPECT_EQ(out[0].value(), 300);
  EXPECT_EQ(out[1].value(), 100);
  out.clear();
  ASSERT_TRUE((*f)->query("T#Aa", 1, 0, INT64_MAX, out).ok());
  EXPECT_EQ(out.size(), 1u);
  out.clear();
  ASSERT_TRUE((*f)->query("T#BB", 10, kT0 + 1000, INT64_MAX, out).ok());
  ASSERT_EQ(out.size(), 1u) << "entry 1 is older than the range";
  EXPECT_EQ(out[0].value(), 300);
  out.clear();
  ASSERT_TRUE((*f)->query("T#nothing", 10, 0, INT64_MAX, out).ok());
  EXPECT_TRUE(out.empty());
  EXPECT_TRUE((*f)->time_overlaps(kT0 - 10, kT0));
  EXPECT_FALSE((*f)->time_overlaps(kT0 + 3000, kT0 + 4000));
}

TEST(IndexFile, NonAsciiKeysHashLikeJava) {
  OneNode rt;
  auto f = IndexFile::create(rt.fs(), "idx", kSmall);
  ASSERT_TRUE(f.ok());
  // Java: "T#你好".hashCode() == 3188908, "T#🙂".hashCode() == 4309044 (surrogate pair); both
  // land in slot 4 of 8 but only hash matches are returned.
  ASSERT_TRUE(*(*f)->put("T#你好", PhysicalOffset(10), kT0));
  ASSERT_TRUE(*(*f)->put("T#🙂", PhysicalOffset(20), kT0));
  const auto& b = rt.bytes("idx");
  EXPECT_EQ(be32_at(b, 40 + 4 * 4), 2);
  EXPECT_EQ(be32_at(b, 40 + 8 * 4 + 1 * 20), 3188908);
  EXPECT_EQ(be32_at(b, 40 + 8 * 4 + 2 * 20), 4309044);
  std::vector<PhysicalOffset> out;
  ASSERT_TRUE((*f)->query("T#你好", 10, 0, INT64_MAX, out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].value(), 10);
}

TEST(IndexFile, FullFileRefusesAndReopenKeepsHeader) {
  OneNode rt;
  {
    auto f = IndexFile::create(rt.fs(), "idx", kSmall);
    ASSERT_TRUE(f.ok());
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(*(*f)->put("T#k", PhysicalOffset(i), kT0));
    EXPECT_TRUE((*f)->full());
    auto refused = (*f)->put("T#k", PhysicalOffset(99), kT0);
    ASSERT_TRUE(refused.ok());
    EXPECT_FALSE(*refused);
  }
  auto f = IndexFile::open(rt.fs(), "idx", kSmall);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*f)->header().index_count, 6);
  std::vector<PhysicalOffset> out;
  ASSERT_TRUE((*f)->query("T#k", 10, 0, INT64_MAX, out).ok());
  EXPECT_EQ(out.size(), 5u);
  EXPECT_FALSE(IndexFile::open(rt.fs(), "idx", IndexGeometry{16, 6}).ok()) << "size mismatch";
}

// A crash can garble the header (rewritten by every put) into in-range values; open() checks it
// against its first and last entries and reports the file corrupt (it is then re-indexed).
TEST(IndexFile, HeaderThatDisagreesWithItsEntriesIsCorrupt) {
  OneNode rt;
  {
    auto f = IndexFile::create(rt.fs(), "idx", kSmall);
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE(*(*f)->put("T#a", PhysicalOffset(100), kT0));
    ASSERT_TRUE(*(*f)->put("T#b", PhysicalOffset(200), kT0 + 2500));
    ASSERT_TRUE(*(*f)->put("T#c", PhysicalOffset(300), kT0 + 4000));
  }
  ASSERT_TRUE(IndexFile::open(rt.fs(), "idx", kSmall).ok()) << "an intact file opens";
  auto& b = rt.bytes("idx");
  const std::vector<std::uint8_t> intact = b;
  struct Garble {
    const char* what;
    std::size_t at;  // header field offset
    std::int64_t value;
    bool wide;
  };
  const Garble cases[] = {
      {"indexCount one lower", 36, 3, false},       // hides the newest entry
      {"endPhyOffset", 24, 250, true},              // not the last entry's offset
      {"beginPhyOffset", 16, 50, true},             // not the first entry's offset
      {"endTimestamp", 8, kT0 + 9000, true},        // last timeDiff would be 9, is 4
  };
  for (const Garble& g : cases) {
    SCOPED_TRACE(g.what);
    b = intact;
    if (g.wide) {
      store_be64(b.data() + g.at, static_cast<std::uint64_t>(g.value));
    } else {
      store_be32(b.data() + g.at, static_cast<std::uint32_t>(g.value));
    }
    auto f = IndexFile::open(rt.fs(), "idx", kSmall);
    ASSERT_FALSE(f.ok());
    EXPECT_TRUE(f.error().is(Errc::corrupt));
    EXPECT_NE(f.error().detail.find("header disagrees with its entries"), std::string::npos) << f.error().detail;
  }
}

TEST(IndexFile, TornChainsEndTheWalk) {
  OneNode rt;
  auto f = IndexFile::create(rt.fs(), "idx", kSmall);
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE(*(*f)->put("T#x", PhysicalOffset(1), kT0));
  ASSERT_TRUE(*(*f)->put("T#x", PhysicalOffset(2), kT0));
  // Make entry 2 point forward to itself (garbage): the walk must stop, not loop.
  auto& b = rt.bytes("idx");
  store_be32(b.data() + 40 + 8 * 4 + 2 * 20 + 16, 2);
  std::vector<PhysicalOffset> out;
  ASSERT_TRUE((*f)->query("T#x", 10, 0, INT64_MAX, out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].value(), 2);
}

TEST(IndexService, IndexesKeysAndUniqKeyAndRollsFiles) {
  OneNode rt;
  rt.set_wall_ms(kT0);
  IndexService svc(rt.fs(), rt.clock(), "store", kSmall);
  ASSERT_TRUE(svc.load().ok());
  // 3 keys per message (uniq + 2 keys): the second message does not fit the first file's 5.
  ASSERT_TRUE(svc.build({"T", "k1 k2", "U1", PhysicalOffset(0), kT0, 0}).ok());
  ASSERT_TRUE(svc.build({"T", "k2  k3", "U2", PhysicalOffset(100), kT0 + 1000, 0}).ok());
  EXPECT_EQ(svc.file_count(), 2u);
  EXPECT_TRUE(rt.fs().exists("store/index/20231114221320000"));
  EXPECT_TRUE(rt.fs().exists("store/index/20231114221320001")) << "names increase even at the same ms";
  auto r = svc.query("T", "k2", 10, 0, INT64_MAX);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->offsets.size(), 2u);
  EXPECT_EQ(r->offsets[0].value(), 100);
  EXPECT_EQ(r->offsets[1].value(), 0);
  EXPECT_EQ(r->last_update_phy_offset.value(), 100);
  EXPECT_EQ(r->last_update_timestamp_ms, kT0 + 1000);
  r = svc.query("T", "U1", 10, 0, INT64_MAX);
  ASSERT_EQ(r->offsets.size(), 1u);
  r = svc.query("Other", "k2", 10, 0, INT64_MAX);
  EXPECT_TRUE(r->offsets.empty());
  // Replays are skipped; rolled-back transactions are not indexed.
  ASSERT_TRUE(svc.build({"T", "k2", "", PhysicalOffset(100), kT0 + 1000, 0}).ok());
  ASSERT_TRUE(svc.build({"T", "k9", "", PhysicalOffset(200), kT0, 0x3 << 2}).ok());
  EXPECT_EQ(svc.query("T", "k2", 10, 0, INT64_MAX)->offsets.size(), 2u);
  EXPECT_TRUE(svc.query("T", "k9", 10, 0, INT64_MAX)->offsets.empty());
  // Reload sees the same.
  ASSERT_TRUE(rt.run(svc.flush()).ok());
  IndexService again(rt.fs(), rt.clock(), "store", kSmall);
  ASSERT_TRUE(again.load().ok());
  EXPECT_EQ(again.query("T", "k3", 10, 0, INT64_MAX)->offsets.size(), 1u);
  // Cleanup removes files entirely below the log start, never the newest.
  auto removed = again.remove_files_before(PhysicalOffset(150));
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, 1u);
  EXPECT_EQ(again.file_count(), 1u);
}

TEST(IndexService, NamesStayOrderedWhenTheClockGoesBack) {
  OneNode rt;
  rt.set_wall_ms(kT0);
  IndexService svc(rt.fs(), rt.clock(), "s", IndexGeometry{8, 2});  // one key per file
  ASSERT_TRUE(svc.load().ok());
  ASSERT_TRUE(svc.build({"T", "a", "", PhysicalOffset(0), kT0, 0}).ok());
  rt.set_wall_ms(kT0 - 60'000);
  ASSERT_TRUE(svc.build({"T", "b", "", PhysicalOffset(10), kT0, 0}).ok());
  auto names = rt.fs().list("s/index");
  ASSERT_TRUE(names.ok());
  ASSERT_EQ(names->size(), 2u);
  EXPECT_EQ((*names)[0], "20231114221320000");
  EXPECT_EQ((*names)[1], "20231114221320001");
  rt.create_file("s/index/garbage", {});
  IndexService bad(rt.fs(), rt.clock(), "s", IndexGeometry{8, 2});
  auto st = bad.load();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().detail.find("garbage"), std::string::npos);
}

}  // namespace
}  // namespace ferry::store
