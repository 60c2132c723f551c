// The simulated disk: durability on crash (lost, kept, torn by sector), ENOSPC, EIO on sync,
// the namespace and views, the write counter and the path list.
#include <gtest/gtest.h>

#include "tests/support/sim_test_util.h"
#include "tests/support/co_assert.h"

namespace ferry::sim::testing {
namespace {

Task<Status> write_at(File* f, std::uint64_t offset, std::string text) {
  const auto bytes = bytes_of(text);
  co_return f->pwrite(offset, view_of(bytes));
}

// Writes "A"x1000, syncs, writes "B"x1000 after it, and does not sync again.
Task<Status> write_sync_write(Runtime* rt) {
  SIM_CO_TRY(rt->fs().create_dirs("data"));
  auto f = rt->fs().open("data/log", OpenOptions{.create = true});
  if (!f.ok()) co_return std::move(f).error();
  SIM_CO_TRY(co_await write_at(f->get(), 0, std::string(1000, 'A')));
  SIM_CO_TRY(co_await (*f)->sync());
  SIM_CO_TRY(co_await write_at(f->get(), 1000, std::string(1000, 'B')));
  auto empty = rt->fs().open("data/never-synced", OpenOptions{.create = true});
  if (!empty.ok()) co_return std::move(empty).error();
  co_return Status();
}

TEST(SimDisk, CrashLosesUnsyncedWritesAndKeepsSyncedOnes) {
  World world(test_options(1));
  const NodeId n = world.add_node("n");
  auto r = world.run_task(n, write_sync_write(&world.node(n)), 1s);
  ASSERT_TRUE(r.ok()) << r.report.message;
  ASSERT_TRUE(r.value->ok()) << r.value->error().to_string();
  EXPECT_EQ(read_file(world.node(n), "data/log"), std::string(1000, 'A') + std::string(1000, 'B'));

  world.power_off(n);
  world.start(n);
  EXPECT_EQ(read_file(world.node(n), "data/log"), std::string(1000, 'A'));
  EXPECT_TRUE(world.node(n).fs().exists("data/never-synced")) << "namespace operations are durable at once";
}

TEST(SimDisk, FileHandlesOfACrashedLifeFail) {
  World world(test_options(2));
  const NodeId n = world.add_node("n");
  auto f = world.node(n).fs().open("x", OpenOptions{.create = true});
  ASSERT_TRUE(f.ok());
  world.power_off(n);
  world.start(n);
  const auto b = bytes_of("late");
  EXPECT_EQ((*f)->pwrite(0, view_of(b)).error().code, Errc::io_error);
}

// A sync makes durable what was written before it started, not what comes after, even within
// the same sector.
Task<void> sync_then_overwrite(Runtime* rt, std::shared_ptr<Status> synced) {
  auto f = rt->fs().open("tail", OpenOptions{.create = true});
  CO_ASSERT(f.ok(), "open: {}", f.error().to_string());
  std::shared_ptr<File> file = std::move(*f);
  (void)co_await write_at(file.get(), 0, std::string(100, 'A'));
  struct Syncer {
    static Task<void> run(std::shared_ptr<File> file, std::shared_ptr<Status> out) { *out = co_await file->sync(); }
  };
  rt->spawn(Syncer::run(file, synced), "syncer");
  co_await rt->sleep(1ns);  // the sync has started (and snapshotted), not finished
  (void)co_await write_at(file.get(), 100, std::string(100, 'B'));
  co_await rt->sleep(10ms);
}

TEST(SimDisk, SyncCoversOnlyWritesBeforeIt) {
  World world(test_options(3));
  const NodeId n = world.add_node("n");
  auto synced = std::make_shared<Status>(Errc::busy);
  ASSERT_TRUE(world.run_task(n, sync_then_overwrite(&world.node(n), synced), 1s).ok());
  ASSERT_TRUE(synced->ok()) << synced->error().to_string();
  world.power_off(n);
  world.start(n);
  EXPECT_EQ(read_file(world.node(n), "tail"), std::string(100, 'A'));
}

// Durable: sector 0 = 'S'. Unsynced: sectors 0..63 overwritten with 'a' + i % 26.
Task<void> torn_workload(Runtime* rt) {
  auto f = rt->fs().open("torn", OpenOptions{.create = true});
  CO_ASSERT(f.ok(), "open: {}", f.error().to_string());
  (void)co_await write_at(f->get(), 0, std::string(512 * 8, 'S'));
  const Status synced_first = co_await (*f)->sync();
  CO_ASSERT(synced_first.ok(), "sync: {}", synced_first.error().to_string());
  for (int i = 0; i < 64; ++i) (void)co_await write_at(f->get(), 512 * i, std::string(512, static_cast<char>('a' + i % 26)));
}

TEST(SimDisk, TornWritesKeepWholeSectors) {
  int kept_total = 0, lost_total = 0;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    WorldOptions o = test_options(seed);
    o.disk.torn_write_on_crash_ppm = 1'000'000;
    World world(o);
    const NodeId n = world.add_node("n");
    ASSERT_TRUE(world.run_task(n, torn_workload(&world.node(n)), 1s).ok());
    world.power_off(n);
    world.start(n);
    const std::string data = read_file(world.node(n), "torn");
    ASSERT_EQ(data.size() % 512, 0u);
    ASSERT_GE(data.size(), 512u * 8) << "the synced size survives";
    for (std::size_t s = 0; s < data.size() / 512; ++s) {
      const std::string sector = data.substr(s * 512, 512);
      const char written = static_cast<char>('a' + s % 26);
      const char before = s < 8 ? 'S' : '\0';
      if (sector == std::string(512, written)) {
        ++kept_total;
      } else {
        EXPECT_EQ(sector, std::string(512, before)) << "sector " << s << " is neither old nor new (seed " << seed << ")";
        ++lost_total;
      }
    }
  }
  EXPECT_GT(kept_total, 0) << "torn writes keep some unsynced sectors";
  EXPECT_GT(lost_total, 0) << "torn writes lose some unsynced sectors";
}

// Garbage in a torn sector never touches bytes that were already durable in that sector.
Task<void> shared_sector_workload(Runtime* rt) {
  auto f = rt->fs().open("shared", OpenOptions{.create = true});
  CO_ASSERT(f.ok(), "open: {}", f.error().to_string());
  (void)co_await write_at(f->get(), 0, std::string(100, 'S'));
  const Status synced_first = co_await (*f)->sync();
  CO_ASSERT(synced_first.ok(), "sync: {}", synced_first.error().to_string());
  (void)co_await write_at(f->get(), 100, std::string(2000, 'u'));
}

TEST(SimDisk, CorruptTornSectorsKeepTheirDurableBytes) {
  int corrupted = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    WorldOptions o = test_options(seed);
    o.disk.torn_write_on_crash_ppm = 1'000'000;
    o.disk.torn_sector_keep_ppm = 1'000'000;
    o.disk.corrupt_torn_sector_ppm = 1'000'000;
    World world(o);
    const NodeId n = world.add_node("n");
    ASSERT_TRUE(world.run_task(n, shared_sector_workload(&world.node(n)), 1s).ok());
    world.power_off(n);
    world.start(n);
    const std::string data = read_file(world.node(n), "shared");
    ASSERT_GE(data.size(), 100u);
    EXPECT_EQ(data.substr(0, 100), std::string(100, 'S')) << "synced bytes survive (seed " << seed << ")";
    if (data.substr(100) != std::string(data.size() - 100, 'u')) ++corrupted;
  }
  EXPECT_GT(corrupted, 0) << "the unsynced bytes were garbled";
}

TEST(SimDisk, NoSpaceWritesNothing) {
  WorldOptions o = test_options(4);
  o.disk.capacity_bytes = 4096;
  World world(o);
  const NodeId n = world.add_node("n");
  FileSystem& fs = world.node(n).fs();
  auto f = fs.open("f", OpenOptions{.create = true});
  ASSERT_TRUE(f.ok());
  const auto big = bytes_of(std::string(4000, 'x'));
  ASSERT_TRUE((*f)->pwrite(0, view_of(big)).ok());
  const auto more = bytes_of(std::string(200, 'y'));
  const Status full = (*f)->pwrite(3990, view_of(more));
  EXPECT_EQ(full.error().code, Errc::no_space);
  EXPECT_EQ((*f)->size(), 4000u);
  EXPECT_EQ(read_file(world.node(n), "f"), std::string(4000, 'x')) << "nothing of the failing write is applied";
  EXPECT_EQ((*f)->truncate(5000).error().code, Errc::no_space);
  EXPECT_EQ(fs.space()->free_bytes, 96u);
  ASSERT_TRUE(fs.remove("f").ok());
  EXPECT_EQ(fs.space()->free_bytes, 4096u);
}

Task<Status> write_and_sync(Runtime* rt, std::string path, std::string text) {
  auto f = rt->fs().open(path, OpenOptions{.create = true});
  if (!f.ok()) co_return std::move(f).error();
  SIM_CO_TRY(co_await write_at(f->get(), 0, text));
  co_return co_await (*f)->sync();
}

TEST(SimDisk, EioOnSyncLeavesDataUnsynced) {
  WorldOptions o = test_options(5);
  o.disk.eio_on_sync_ppm = 1'000'000;
  World world(o);
  const NodeId n = world.add_node("n");
  auto r = world.run_task(n, write_and_sync(&world.node(n), "f", "lost"), 1s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value->error().code, Errc::io_error);
  world.power_off(n);
  world.start(n);
  EXPECT_EQ(read_file(world.node(n), "f"), "");

  DiskOptions healthy = world.node(n).disk().options();
  healthy.eio_on_sync_ppm = 0;
  world.node(n).disk().set_options(healthy);
  r = world.run_task(n, write_and_sync(&world.node(n), "f", "kept"), 1s);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.value->ok());
  world.power_off(n);
  world.start(n);
  EXPECT_EQ(read_file(world.node(n), "f"), "kept");
}

// Linux's fsync-error semantics: the failed sync's dirty pages are marked clean without reaching
// the disk. A retried sync "succeeds", reads still show the data, and a power loss loses it.
Task<Status> write_sync_retry(Runtime* rt, SimDisk* disk, std::shared_ptr<Status> first) {
  auto f = rt->fs().open("f", OpenOptions{.create = true});
  if (!f.ok()) co_return std::move(f).error();
  SIM_CO_TRY(co_await write_at(f->get(), 0, "gone"));
  *first = co_await (*f)->sync();
  DiskOptions healthy = disk->options();
  healthy.eio_on_sync_ppm = 0;
  disk->set_options(healthy);
  co_return co_await (*f)->sync();
}

TEST(SimDisk, AFailedSyncLosesTheDataItCoveredEvenIfARetrySucceeds) {
  WorldOptions o = test_options(15);
  o.disk.eio_on_sync_ppm = 1'000'000;
  World world(o);
  const NodeId n = world.add_node("n");
  auto first = std::make_shared<Status>();
  auto r = world.run_task(n, write_sync_retry(&world.node(n), &world.node(n).disk(), first), 1s);
  ASSERT_TRUE(r.ok()) << r.report.message;
  EXPECT_EQ(first->error().code, Errc::io_error);
  EXPECT_TRUE(r.value->ok()) << "the retried sync reports success, as Linux does";
  EXPECT_EQ(read_file(world.node(n), "f"), "gone") << "the page cache still shows the write";
  world.kill(n);
  world.start(n);
  EXPECT_EQ(read_file(world.node(n), "f"), "gone") << "a process kill keeps the page cache";
  world.power_off(n);
  world.start(n);
  // The retried sync made the size durable, not the bytes: the file reads as zeros.
  EXPECT_EQ(read_file(world.node(n), "f"), std::string(4, '\0')) << "the write never reached the disk";
}

// A lying write cache (DiskOptions::lying_sync): the sync reports success, nothing becomes
// durable, and a power loss takes what it "covered"; with the lie off, the same sync keeps it.
TEST(SimDisk, ALyingSyncSucceedsAndAPowerLossStillLosesItsWrites) {
  WorldOptions o = test_options(18);
  o.disk.lying_sync = true;
  World world(o);
  const NodeId n = world.add_node("n");
  auto r = world.run_task(n, write_and_sync(&world.node(n), "f", "lied"), 1s);
  ASSERT_TRUE(r.ok()) << r.report.message;
  EXPECT_TRUE(r.value->ok()) << "a lying disk reports the sync done: " << r.value->error().to_string();
  EXPECT_EQ(world.node(n).disk().stats().lied_syncs, 1u);
  EXPECT_EQ(read_file(world.node(n), "f"), "lied") << "the page cache shows the write";
  world.power_off(n);
  world.start(n);
  EXPECT_EQ(read_file(world.node(n), "f"), "") << "the synced write was lost: the sync lied";

  DiskOptions honest = world.node(n).disk().options();
  honest.lying_sync = false;
  world.node(n).disk().set_options(honest);
  r = world.run_task(n, write_and_sync(&world.node(n), "f", "kept"), 1s);
  ASSERT_TRUE(r.ok() && r.value->ok());
  world.power_off(n);
  world.start(n);
  EXPECT_EQ(read_file(world.node(n), "f"), "kept") << "an honest sync's write survives the power loss";
  EXPECT_EQ(world.node(n).disk().stats().lied_syncs, 1u);
}

// What a lying sync left dirty is made durable by the next honest one (the cache is flushed then).
Task<Status> lie_then_sync(Runtime* rt, SimDisk* disk) {
  auto f = rt->fs().open("f", OpenOptions{.create = true});
  if (!f.ok()) co_return std::move(f).error();
  SIM_CO_TRY(co_await write_at(f->get(), 0, "first"));
  SIM_CO_TRY(co_await (*f)->sync());
  DiskOptions honest = disk->options();
  honest.lying_sync = false;
  disk->set_options(honest);
  SIM_CO_TRY(co_await write_at(f->get(), 5, "+second"));
  co_return co_await (*f)->sync();
}

TEST(SimDisk, AnHonestSyncAfterTheLieMakesEverythingBeforeItDurable) {
  WorldOptions o = test_options(19);
  o.disk.lying_sync = true;
  World world(o);
  const NodeId n = world.add_node("n");
  auto r = world.run_task(n, lie_then_sync(&world.node(n), &world.node(n).disk()), 1s);
  ASSERT_TRUE(r.ok() && r.value->ok()) << r.report.message;
  world.power_off(n);
  world.start(n);
  EXPECT_EQ(read_file(world.node(n), "f"), "first+second");
}

TEST(SimDisk, ProcessKillKeepsUnsyncedWritesUntilAPowerLoss) {
  World world(test_options(16));
  const NodeId n = world.add_node("n");
  auto r = world.run_task(n, write_sync_write(&world.node(n)), 1s);
  ASSERT_TRUE(r.ok() && r.value->ok());
  world.kill(n);
  world.start(n);
  EXPECT_EQ(read_file(world.node(n), "data/log"), std::string(1000, 'A') + std::string(1000, 'B'));
  world.power_off(n);
  world.start(n);
  EXPECT_EQ(read_file(world.node(n), "data/log"), std::string(1000, 'A')) << "still unsynced after the kill";
}

// Reads: EIO by probability; a slow read stalls the whole node (its timers run late, in order).
Task<void> tick(Runtime* rt, std::vector<std::int64_t>* at_ms) {
  for (int i = 0; i < 3; ++i) {
    co_await rt->sleep(1ms);
    at_ms->push_back(to_ms(rt->now() - MonoTime{}));
  }
}

TEST(SimDisk, ReadErrorsAndSlowReads) {
  WorldOptions o = test_options(17);
  World world(o);
  const NodeId n = world.add_node("n");
  SimNode& node = world.node(n);
  auto f = node.fs().open("f", OpenOptions{.create = true});
  ASSERT_TRUE(f.ok());
  const auto b = bytes_of("data");
  ASSERT_TRUE((*f)->pwrite(0, view_of(b)).ok());

  DiskOptions bad = node.disk().options();
  bad.eio_on_read_ppm = 1'000'000;
  node.disk().set_options(bad);
  std::uint8_t buf[4];
  EXPECT_EQ((*f)->pread(0, MutableBytes(buf, 4)).error().code, Errc::io_error);
  EXPECT_EQ((*f)->view(0, 4).error().code, Errc::io_error);
  EXPECT_EQ(node.disk().stats().read_errors, 2u);

  DiskOptions slow = node.disk().options();
  slow.eio_on_read_ppm = 0;
  slow.slow_read_ppm = 1'000'000;
  slow.slow_read_latency = 50ms;
  node.disk().set_options(slow);
  std::vector<std::int64_t> ticks;
  node.spawn(tick(&node, &ticks));
  ASSERT_TRUE((*f)->pread(0, MutableBytes(buf, 4)).ok());  // at t=0: the loop is blocked until 50 ms
  world.run_for(100ms);
  // The task's first step (due at 0) waited for the stall to end at 50 ms; its timers follow.
  EXPECT_EQ(ticks, (std::vector<std::int64_t>{51, 52, 53}));
  EXPECT_EQ(node.disk().stats().slow_reads, 1u);
}

TEST(SimDisk, SlowSyncTakesItsLatency) {
  WorldOptions o = test_options(6);
  o.disk.sync_latency = 2ms;
  o.disk.slow_sync_ppm = 1'000'000;
  o.disk.slow_sync_latency = 500ms;
  World world(o);
  const NodeId n = world.add_node("n");
  auto r = world.run_task(n, write_and_sync(&world.node(n), "f", "slow"), 10s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(world.now(), MonoTime(502ms));
}

TEST(SimDisk, NamespaceRules) {
  World world(test_options(7));
  const NodeId n = world.add_node("n");
  FileSystem& fs = world.node(n).fs();
  ASSERT_TRUE(fs.create_dirs("store/commitlog").ok());
  for (const char* name : {"store/commitlog/b", "store/commitlog/a", "store/commitlog/C", "store/x"}) {
    ASSERT_TRUE(fs.open(name, OpenOptions{.create = true}).ok()) << name;
  }
  EXPECT_EQ(*fs.list("store/commitlog"), (std::vector<std::string>{"C", "a", "b"}));
  EXPECT_EQ(*fs.list("store"), (std::vector<std::string>{"commitlog", "x"}));
  EXPECT_EQ(*fs.list("./store//"), (std::vector<std::string>{"commitlog", "x"}));
  EXPECT_EQ(fs.open("../etc/passwd", {}).error().code, Errc::invalid_argument);
  EXPECT_EQ(fs.open("/etc/passwd", {}).error().code, Errc::invalid_argument);
  EXPECT_EQ(fs.open("missing", {}).error().code, Errc::not_found);
  EXPECT_EQ(fs.open("nodir/f", OpenOptions{.create = true}).error().code, Errc::not_found);
  EXPECT_EQ(fs.open("store/x", OpenOptions{.create = true, .exclusive = true}).error().code, Errc::already_exists);
  EXPECT_EQ(fs.remove("store").error().code, Errc::invalid_argument) << "not empty";
  EXPECT_EQ(fs.list("nowhere").error().code, Errc::not_found);

  auto f = fs.open("store/x", {});
  const auto data = bytes_of("new");
  ASSERT_TRUE((*f)->pwrite(0, view_of(data)).ok());
  ASSERT_TRUE(fs.rename("store/x", "store/commitlog/a").ok());
  EXPECT_FALSE(fs.exists("store/x"));
  EXPECT_EQ(*fs.file_size("store/commitlog/a"), 3u) << "rename replaces the target";
  world.power_off(n);
  world.start(n);
  EXPECT_EQ(*world.node(n).fs().list("store"), (std::vector<std::string>{"commitlog"})) << "rename is durable at once";
  EXPECT_EQ(*world.node(n).fs().file_size("store/commitlog/a"), 0u) << "its unsynced contents are not";
}

TEST(SimDisk, ViewsPinTheirBytes) {
  World world(test_options(8));
  const NodeId n = world.add_node("n");
  FileSystem& fs = world.node(n).fs();
  auto f = fs.open("v", OpenOptions{.create = true});
  const auto first = bytes_of("0123456789");
  ASSERT_TRUE((*f)->pwrite(0, view_of(first)).ok());
  auto v = (*f)->view(2, 100);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->size(), 8u) << "clipped to the file size";
  const auto edit = bytes_of("X");
  ASSERT_TRUE((*f)->pwrite(3, view_of(edit)).ok());
  EXPECT_EQ(v->bytes()[1], 'X') << "a view is not a snapshot";
  const auto big = bytes_of(std::string(1 << 20, 'g'));
  ASSERT_TRUE((*f)->pwrite(10, view_of(big)).ok());  // grows past the buffer: copy on grow
  ASSERT_TRUE(fs.remove("v").ok());
  f->reset();
  EXPECT_EQ(std::string(v->bytes().begin(), v->bytes().end()), "2X456789") << "still readable after grow and remove";
}

TEST(SimDisk, WipedDiskIsEmpty) {
  World world(test_options(9));
  const NodeId n = world.add_node("n");
  ASSERT_TRUE(world.node(n).fs().open("f", OpenOptions{.create = true}).ok());
  world.restart(n, CrashKind::power_loss, 1s, /*wipe_disk=*/true);
  EXPECT_FALSE(world.node(n).up());
  world.run_for(2s);
  ASSERT_TRUE(world.node(n).up());
  EXPECT_FALSE(world.node(n).fs().exists("f"));
}

TEST(SimDisk, CountsWritesAndListsPathsSorted) {
  World world(test_options(10));
  const NodeId n = world.add_node("n");
  FileSystem& fs = world.node(n).fs();
  ASSERT_TRUE(fs.create_dirs("d/e").ok());
  auto b = fs.open("d/b", OpenOptions{.create = true});
  auto a = fs.open("a", OpenOptions{.create = true});
  ASSERT_TRUE(b.ok());
  ASSERT_TRUE(a.ok());
  const auto text = bytes_of("xy");
  ASSERT_TRUE((*b)->pwrite(0, view_of(text)).ok());
  ASSERT_TRUE((*a)->pwrite(5, view_of(text)).ok());
  ASSERT_TRUE((*a)->truncate(1).ok());
  EXPECT_EQ(world.node(n).disk().stats().writes, 2u) << "pwrite calls only, not truncations";
  DiskOptions tiny = world.node(n).disk().options();
  tiny.capacity_bytes = world.node(n).disk().used_bytes();
  world.node(n).disk().set_options(tiny);
  EXPECT_FALSE((*a)->pwrite(1, view_of(text)).ok());
  EXPECT_EQ(world.node(n).disk().stats().writes, 2u) << "a refused write is not counted";
  EXPECT_EQ(world.node(n).disk().paths(), (std::vector<std::string>{"a", "d/b"})) << "files only, sorted";
}

}  // namespace
}  // namespace ferry::sim::testing
