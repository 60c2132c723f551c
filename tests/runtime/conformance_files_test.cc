// Runtime conformance, file system: write/sync/read back, sizes, truncate, allocate, atomic
// rename, remove, sorted list, pinned views, and failures as values.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/read_only_file_system.h"
#include "tests/runtime/conformance_fixture.h"

namespace ferry::testing {
namespace {

using namespace std::chrono_literals;

constexpr OpenOptions kCreate{.create = true};

// Reads [offset, offset + len) (or less at the end of the file) as a string.
std::string read_string(const File& f, std::uint64_t offset, std::size_t len) {
  std::vector<std::uint8_t> buf(len);
  auto n = f.pread(offset, buf);
  if (!n.ok()) return "<error " + std::string(errc_name(n.error().code)) + ">";
  return std::string(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(*n));
}

Status write_string(File& f, std::uint64_t offset, const std::string& s) {
  return f.pwrite(offset, Bytes(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()));
}

Task<void> write_sync_read_case(FileSystem* fs, Checks* checks) {
  TASK_CHECK_OK(checks, fs->create_dirs("d/e"));
  TASK_CHECK_OK(checks, fs->create_dirs("d/e"));  // existing directories are fine
  auto f = fs->open("d/e/f1", kCreate);
  TASK_CHECK_OK(checks, f);
  if (!f.ok()) co_return;
  File& file = **f;
  TASK_CHECK(checks, file.size() == 0);
  TASK_CHECK(checks, file.path() == "d/e/f1");
  TASK_CHECK_OK(checks, write_string(file, 0, "hello world"));
  TASK_CHECK_OK(checks, write_string(file, 100, "tail"));  // leaves a gap of zeros
  TASK_CHECK(checks, file.size() == 104);
  TASK_CHECK_OK(checks, co_await file.sync());
  TASK_CHECK(checks, read_string(file, 0, 11) == "hello world");
  TASK_CHECK(checks, read_string(file, 11, 89) == std::string(89, '\0'));
  TASK_CHECK(checks, read_string(file, 100, 50) == "tail");  // short read at the end
  TASK_CHECK(checks, read_string(file, 104, 10).empty());
  TASK_CHECK(checks, read_string(file, 5000, 10).empty());
  auto size = fs->file_size("d/e/f1");
  TASK_CHECK_OK(checks, size);
  if (size.ok()) TASK_CHECK(checks, *size == 104);

  // Large writes across growth, then a reopen sees everything.
  std::vector<std::uint8_t> big(300 * 1024);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<std::uint8_t>(i * 13 + 1);
  TASK_CHECK_OK(checks, file.pwrite(104, big));
  TASK_CHECK(checks, file.size() == 104 + big.size());
  TASK_CHECK_OK(checks, co_await file.sync());
  f = Error(Errc::closed, "closed by the test");

  auto again = fs->open("d/e/f1", OpenOptions{});
  TASK_CHECK_OK(checks, again);
  if (!again.ok()) co_return;
  TASK_CHECK(checks, (*again)->size() == 104 + big.size());
  TASK_CHECK(checks, read_string(**again, 0, 11) == "hello world");
  std::vector<std::uint8_t> back(big.size());
  auto n = (*again)->pread(104, back);
  TASK_CHECK(checks, n.ok() && *n == big.size() && back == big);
  again = Error(Errc::closed, "closed by the test");

  auto emptied = fs->open("d/e/f1", OpenOptions{.truncate = true});
  TASK_CHECK_OK(checks, emptied);
  if (emptied.ok()) TASK_CHECK(checks, (*emptied)->size() == 0);
}

TEST_P(RuntimeConformance, FileWriteSyncReadBack) {
  Checks checks;
  ASSERT_TRUE(run(write_sync_read_case(&rt().fs(), &checks)));
  EXPECT_THAT(checks.failures(), ::testing::IsEmpty());
}

Task<void> truncate_case(FileSystem* fs, Checks* checks) {
  auto f = fs->open("t", kCreate);
  TASK_CHECK_OK(checks, f);
  if (!f.ok()) co_return;
  File& file = **f;
  TASK_CHECK_OK(checks, write_string(file, 0, std::string(100, 'x')));
  TASK_CHECK_OK(checks, file.truncate(40));
  TASK_CHECK(checks, file.size() == 40);
  TASK_CHECK(checks, read_string(file, 30, 20) == std::string(10, 'x'));
  TASK_CHECK_OK(checks, file.truncate(80));  // grows with zeros, not the old bytes
  TASK_CHECK(checks, file.size() == 80);
  TASK_CHECK(checks, read_string(file, 0, 80) == std::string(40, 'x') + std::string(40, '\0'));
  TASK_CHECK_OK(checks, file.truncate(0));
  TASK_CHECK(checks, file.size() == 0);
  TASK_CHECK_OK(checks, co_await file.sync());
  auto size = fs->file_size("t");
  TASK_CHECK(checks, size.ok() && *size == 0);
}

TEST_P(RuntimeConformance, FileTruncateShrinksAndGrowsWithZeros) {
  Checks checks;
  ASSERT_TRUE(run(truncate_case(&rt().fs(), &checks)));
  EXPECT_THAT(checks.failures(), ::testing::IsEmpty());
}

Task<void> allocate_case(FileSystem* fs, Checks* checks) {
  auto f = fs->open("alloc", kCreate);
  TASK_CHECK_OK(checks, f);
  if (!f.ok()) co_return;
  File& file = **f;
  TASK_CHECK_OK(checks, write_string(file, 0, "head"));
  constexpr std::uint64_t kSize = 1 << 20;
  TASK_CHECK_OK(checks, co_await file.allocate(kSize));
  TASK_CHECK(checks, file.size() >= kSize);
  TASK_CHECK(checks, read_string(file, 0, 4) == "head");
  TASK_CHECK(checks, read_string(file, kSize - 16, 16) == std::string(16, '\0'));
  TASK_CHECK_OK(checks, write_string(file, kSize - 4, "end!"));
  TASK_CHECK(checks, read_string(file, kSize - 4, 4) == "end!");
  const std::uint64_t before = file.size();
  TASK_CHECK_OK(checks, co_await file.allocate(10));  // already big enough: no change
  TASK_CHECK(checks, file.size() == before);
}

TEST_P(RuntimeConformance, FileAllocateReservesZeroedSpace) {
  Checks checks;
  ASSERT_TRUE(run(allocate_case(&rt().fs(), &checks)));
  EXPECT_THAT(checks.failures(), ::testing::IsEmpty());
}

Task<void> rename_case(FileSystem* fs, Checks* checks) {
  for (const auto& [name, content] : {std::pair<std::string, std::string>{"x", "old"}, {"x.tmp", "new!"}}) {
    auto f = fs->open(name, kCreate);
    TASK_CHECK_OK(checks, f);
    if (!f.ok()) co_return;
    TASK_CHECK_OK(checks, write_string(**f, 0, content));
    TASK_CHECK_OK(checks, co_await (*f)->sync());
  }
  TASK_CHECK_OK(checks, fs->rename("x.tmp", "x"));  // atomically replaces "x"
  TASK_CHECK(checks, !fs->exists("x.tmp"));
  TASK_CHECK(checks, fs->exists("x"));
  auto f = fs->open("x", OpenOptions{});
  TASK_CHECK_OK(checks, f);
  if (f.ok()) TASK_CHECK(checks, read_string(**f, 0, 100) == "new!");
  TASK_CHECK_OK(checks, co_await fs->sync_dir(""));
  TASK_CHECK_ERRC(checks, fs->rename("missing", "y"), Errc::not_found);
}

TEST_P(RuntimeConformance, RenameReplacesTheTargetAtomically) {
  Checks checks;
  ASSERT_TRUE(run(rename_case(&rt().fs(), &checks)));
  EXPECT_THAT(checks.failures(), ::testing::IsEmpty());
}

Task<void> remove_case(FileSystem* fs, Checks* checks) {
  TASK_CHECK(checks, !fs->exists("r"));
  {
    auto f = fs->open("r", kCreate);
    TASK_CHECK_OK(checks, f);
  }
  TASK_CHECK(checks, fs->exists("r"));
  TASK_CHECK_OK(checks, fs->remove("r"));
  TASK_CHECK(checks, !fs->exists("r"));
  TASK_CHECK_ERRC(checks, fs->remove("r"), Errc::not_found);
  TASK_CHECK_OK(checks, fs->create_dirs("empty"));
  TASK_CHECK(checks, fs->exists("empty"));
  TASK_CHECK_OK(checks, fs->remove("empty"));  // an empty directory
  TASK_CHECK(checks, !fs->exists("empty"));
  co_return;
}

TEST_P(RuntimeConformance, RemoveAndExists) {
  Checks checks;
  ASSERT_TRUE(run(remove_case(&rt().fs(), &checks)));
  EXPECT_THAT(checks.failures(), ::testing::IsEmpty());
}

Task<void> list_case(FileSystem* fs, Checks* checks, std::vector<std::string>* names) {
  TASK_CHECK_OK(checks, fs->create_dirs("dir/z"));
  for (const char* name : {"b", "a", "C", "a1", "_x", "00000000000000001024", "00000000000000000000"}) {
    auto f = fs->open(std::string("dir/") + name, kCreate);
    TASK_CHECK_OK(checks, f);
  }
  auto listed = fs->list("dir");
  TASK_CHECK_OK(checks, listed);
  if (listed.ok()) *names = *listed;
  TASK_CHECK_ERRC(checks, fs->list("no-such-dir"), Errc::not_found);
  auto empty = fs->list("dir/z");
  TASK_CHECK(checks, empty.ok() && empty->empty());
  co_return;
}

TEST_P(RuntimeConformance, ListReturnsNamesSortedBytewise) {
  Checks checks;
  std::vector<std::string> names;
  ASSERT_TRUE(run(list_case(&rt().fs(), &checks, &names)));
  EXPECT_THAT(checks.failures(), ::testing::IsEmpty());
  EXPECT_EQ(names, (std::vector<std::string>{"00000000000000000000", "00000000000000001024", "C", "_x", "a", "a1",
                                             "b", "z"}));
}

Task<void> view_case(FileSystem* fs, Checks* checks) {
  auto f = fs->open("v", kCreate);
  TASK_CHECK_OK(checks, f);
  if (!f.ok()) co_return;
  TASK_CHECK_OK(checks, write_string(**f, 0, "pinned bytes"));
  auto v = (*f)->view(0, 12);
  TASK_CHECK_OK(checks, v);
  auto clipped = (*f)->view(7, 1000);  // clipped to the file size
  TASK_CHECK(checks, clipped.ok() && to_string(clipped->bytes()) == "bytes");
  TASK_CHECK_OK(checks, write_string(**f, 0, "P"));  // a view is not a snapshot
  // Growing the file far past its first extent keeps the old view valid.
  std::vector<std::uint8_t> big(2 << 20, 0x5a);
  TASK_CHECK_OK(checks, (*f)->pwrite(4096, big));
  auto far = (*f)->view(4096 + big.size() - 3, 3);
  TASK_CHECK(checks, far.ok() && to_string(far->bytes()) == "ZZZ");
  f = Error(Errc::closed, "closed by the test");
  TASK_CHECK_OK(checks, fs->remove("v"));
  if (v.ok()) TASK_CHECK(checks, to_string(v->bytes()) == "Pinned bytes");  // still readable
  if (far.ok()) TASK_CHECK(checks, to_string(far->bytes()) == "ZZZ");
}

TEST_P(RuntimeConformance, ViewPinsDataAfterTheFileIsClosedAndRemoved) {
  Checks checks;
  ASSERT_TRUE(run(view_case(&rt().fs(), &checks)));
  EXPECT_THAT(checks.failures(), ::testing::IsEmpty());
}

Task<void> errors_case(FileSystem* fs, Checks* checks) {
  TASK_CHECK_ERRC(checks, fs->open("missing", OpenOptions{}), Errc::not_found);
  TASK_CHECK_ERRC(checks, fs->open("no-dir/file", kCreate), Errc::not_found);
  TASK_CHECK_ERRC(checks, fs->open("../escape", kCreate), Errc::invalid_argument);
  TASK_CHECK_ERRC(checks, fs->open("a/../../escape", kCreate), Errc::invalid_argument);
  TASK_CHECK_ERRC(checks, fs->open("/etc/passwd", OpenOptions{}), Errc::invalid_argument);
  TASK_CHECK_OK(checks, fs->open("ex", kCreate));
  TASK_CHECK_ERRC(checks, fs->open("ex", OpenOptions{.create = true, .exclusive = true}), Errc::already_exists);
  TASK_CHECK_OK(checks, fs->open("ex", kCreate));  // create without exclusive opens the existing file
  TASK_CHECK_ERRC(checks, fs->file_size("missing"), Errc::not_found);
  TASK_CHECK(checks, !fs->exists("../x"));
  co_return;
}

TEST_P(RuntimeConformance, FileErrorsAreValues) {
  Checks checks;
  ASSERT_TRUE(run(errors_case(&rt().fs(), &checks)));
  EXPECT_THAT(checks.failures(), ::testing::IsEmpty());
}

Task<void> space_case(FileSystem* fs, Checks* checks) {
  auto space = fs->space();
  TASK_CHECK_OK(checks, space);
  if (space.ok()) {
    TASK_CHECK(checks, space->capacity_bytes > 0);
    TASK_CHECK(checks, space->free_bytes <= space->capacity_bytes);
  }
  TASK_CHECK_OK(checks, fs->create_dirs("s/t"));
  TASK_CHECK_OK(checks, co_await fs->sync_dir("s/t"));
  TASK_CHECK_OK(checks, co_await fs->sync_dir("s"));
}

TEST_P(RuntimeConformance, SpaceAndSyncDir) {
  Checks checks;
  ASSERT_TRUE(run(space_case(&rt().fs(), &checks)));
  EXPECT_THAT(checks.failures(), ::testing::IsEmpty());
}

// OpenOptions::read_only, and the ReadOnlyFileSystem decorator over the runtime's FileSystem:
// reads work, every change is refused as a value, and nothing on disk changes.
Task<void> read_only_case(FileSystem* fs, Checks* checks) {
  {
    TASK_CHECK_OK(checks, fs->create_dirs("ro"));
    auto w = fs->open("ro/conf.yml", kCreate);
    TASK_CHECK_OK(checks, w);
    if (!w.ok()) co_return;
    TASK_CHECK_OK(checks, write_string(**w, 0, "accounts:\n"));
    TASK_CHECK_OK(checks, co_await (*w)->sync());
  }
  auto bad = fs->open("ro/conf.yml", OpenOptions{.create = true, .read_only = true});
  TASK_CHECK(checks, !bad.ok() && bad.error().is(Errc::invalid_argument));
  ReadOnlyFileSystem ro(*fs);
  auto f = ro.open("ro/conf.yml", OpenOptions{});
  TASK_CHECK_OK(checks, f);
  if (!f.ok()) co_return;
  TASK_CHECK(checks, (*f)->size() == 10);
  TASK_CHECK(checks, read_string(**f, 0, 32) == "accounts:\n");
  const Status w = write_string(**f, 0, "x");
  TASK_CHECK(checks, !w.ok() && w.error().is(Errc::invalid_argument));
  const Status t = (*f)->truncate(0);
  TASK_CHECK(checks, !t.ok() && t.error().is(Errc::invalid_argument));
  const Status a = co_await (*f)->allocate(4096);
  TASK_CHECK(checks, !a.ok() && a.error().is(Errc::invalid_argument));
  TASK_CHECK_OK(checks, co_await (*f)->sync());
  for (const OpenOptions& o : {OpenOptions{.create = true}, OpenOptions{.truncate = true},
                               OpenOptions{.create = true, .exclusive = true}}) {
    auto refused = ro.open("ro/conf.yml", o);
    TASK_CHECK(checks, !refused.ok() && refused.error().is(Errc::invalid_argument));
  }
  auto missing = ro.open("ro/none.yml", OpenOptions{});
  TASK_CHECK(checks, !missing.ok() && missing.error().is(Errc::not_found));
  TASK_CHECK(checks, !ro.remove("ro/conf.yml").ok());
  TASK_CHECK(checks, !ro.rename("ro/conf.yml", "ro/x").ok());
  TASK_CHECK(checks, !ro.create_dirs("ro/sub").ok());
  TASK_CHECK_OK(checks, co_await ro.sync_dir("ro"));
  TASK_CHECK(checks, ro.exists("ro/conf.yml"));
  auto names = ro.list("ro");
  TASK_CHECK(checks, names.ok() && *names == std::vector<std::string>{"conf.yml"});
  auto size = ro.file_size("ro/conf.yml");
  TASK_CHECK(checks, size.ok() && *size == 10);
  TASK_CHECK(checks, read_string(**f, 0, 32) == "accounts:\n");  // nothing changed underneath
}

TEST_P(RuntimeConformance, ReadOnlyOpensAndTheReadOnlyDecorator) {
  Checks checks;
  ASSERT_TRUE(run(read_only_case(&rt().fs(), &checks)));
  EXPECT_THAT(checks.failures(), ::testing::IsEmpty());
}

}  // namespace
}  // namespace ferry::testing
