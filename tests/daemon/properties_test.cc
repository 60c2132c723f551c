// What both daemons share for their configuration (src/daemon): the properties syntax
// (properties_file.h) and its values (config_binder.h), rewriting a file in place
// (properties_rewrite.h), and the read-only folder the ACL watcher reads (conf_folder.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "daemon/conf_folder.h"
#include "daemon/config_binder.h"
#include "daemon/properties_file.h"
#include "daemon/properties_rewrite.h"
#include "runtime/asio/asio_runtime.h"
#include "tests/support/temp_dir.h"

namespace ferry::daemon {
namespace {

PropertiesFile props(std::string_view text) {
  auto p = parse_properties(text, "b.conf");
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().to_string());
  return p.ok() ? *p : PropertiesFile{};
}

TEST(PropertiesFile, CommentsBlankLinesAndTrimming) {
  const auto p = props("# comment\n\n  ! also a comment\n  a = 1 \r\n\tb=x=y\nc=\n   \n");
  ASSERT_EQ(p.entries.size(), 3u);
  EXPECT_EQ(p.entries[0].key, "a");
  EXPECT_EQ(p.entries[0].value, "1");
  EXPECT_EQ(p.entries[0].line, 4u);
  EXPECT_EQ(p.entries[1].key, "b");
  EXPECT_EQ(p.entries[1].value, "x=y");
  EXPECT_EQ(p.entries[2].value, "");
  EXPECT_EQ(p.entries[2].line, 6u);
}

TEST(PropertiesFile, EmptyTextAndNoTrailingNewline) {
  EXPECT_TRUE(props("").entries.empty());
  const auto p = props("a=1");
  ASSERT_EQ(p.entries.size(), 1u);
  EXPECT_EQ(p.entries[0].value, "1");
}

TEST(PropertiesFile, LaterDuplicateWinsAndIsReported) {
  const auto p = props("a=1\nb=2\na=3\n");
  ASSERT_EQ(p.entries.size(), 2u);
  EXPECT_EQ(p.entries[0].value, "3");
  EXPECT_EQ(p.entries[0].line, 3u);
  ASSERT_EQ(p.duplicates.size(), 1u);
  EXPECT_NE(p.duplicates[0].find("b.conf:1: key a given again on line 3"), std::string::npos) << p.duplicates[0];
}

TEST(PropertiesFile, MalformedLinesNameFileAndLine) {
  auto p = parse_properties("a=1\nlistenPort 10911\n", "x.conf");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().detail, "x.conf:2: expected key=value, got \"listenPort 10911\"");
  p = parse_properties("\n = 3\n", "x.conf");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().detail.find("x.conf:2: empty key"), std::string::npos);
  p = parse_properties("a=1 \\\n 2\n", "x.conf");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().detail.find("x.conf:1: a: line continuations"), std::string::npos);
}

TEST(PropertiesFile, MissingFileIsNotFound) {
  auto p = read_properties("/nonexistent/dir/broker.conf");
  ASSERT_FALSE(p.ok());
  EXPECT_TRUE(p.error().is(Errc::not_found));
  EXPECT_NE(p.error().detail.find("/nonexistent/dir/broker.conf"), std::string::npos);
}

TEST(ConfigValues, IntsAndBools) {
  EXPECT_EQ(*parse_int_in("42", 0, 100), 42);
  EXPECT_EQ(*parse_int_in("+7", 0, 100), 7);
  EXPECT_EQ(*parse_int_in("-3", -5, 100), -3);
  EXPECT_FALSE(parse_int_in("", 0, 100).ok());
  EXPECT_FALSE(parse_int_in("4x", 0, 100).ok());
  EXPECT_FALSE(parse_int_in("0x10", 0, 100).ok());
  EXPECT_FALSE(parse_int_in("101", 0, 100).ok());
  EXPECT_FALSE(parse_int_in("99999999999999999999", 0, 100).ok());
  EXPECT_TRUE(*parse_bool("TRUE"));
  EXPECT_FALSE(*parse_bool("false"));
  EXPECT_FALSE(parse_bool("yes").ok());
  EXPECT_FALSE(parse_bool("1").ok());
}

// The read-only folder the daemons hand the ACL watcher (daemon::ConfFolder: the runtime's
// FileSystem over the folder behind a ReadOnlyFileSystem): reads, refuses every change and escape.
TEST(ConfFolderTest, ReadsAndRefusesChanges) {
  ferry::testing::TempDir dir("rodir");
  { std::ofstream(dir / "plain_acl.yml") << "accounts:\n"; }
  {
    AsioRuntime::Options options;
    options.node_name = "conf";
    options.data_root = dir / "data";
    AsioRuntime rt(std::move(options));
    ConfFolder folder(rt, dir / "plain_acl.yml");
    FileSystem& fs = folder.files();
    auto f = fs.open("plain_acl.yml", OpenOptions{});
    ASSERT_TRUE(f.ok()) << f.error().to_string();
    EXPECT_EQ((*f)->size(), 10u);
    std::vector<std::uint8_t> buf(32);
    auto n = (*f)->pread(0, MutableBytes(buf.data(), buf.size()));
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(std::string(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(*n)), "accounts:\n");
    EXPECT_FALSE((*f)->pwrite(0, as_bytes("x")).ok());
    EXPECT_FALSE((*f)->truncate(0).ok());
    EXPECT_FALSE((*f)->view(0, 4).ok()) << "a file an operator may rewrite is never mapped";
    EXPECT_TRUE(rt.block_on((*f)->sync()).ok()) << "nothing to make durable";
    EXPECT_FALSE(fs.open("plain_acl.yml", OpenOptions{.create = true}).ok());
    EXPECT_FALSE(fs.open("../etc/passwd", OpenOptions{}).ok());
    EXPECT_FALSE(fs.open("/etc/passwd", OpenOptions{}).ok());
    auto missing = fs.open("nope.yml", OpenOptions{});
    ASSERT_FALSE(missing.ok());
    EXPECT_TRUE(missing.error().is(Errc::not_found));
    EXPECT_FALSE(fs.remove("plain_acl.yml").ok());
    EXPECT_FALSE(fs.rename("plain_acl.yml", "x").ok());
    EXPECT_FALSE(fs.create_dirs("sub").ok());
    EXPECT_TRUE(fs.exists("plain_acl.yml"));
    // An operator rewrites the file (shorter) while it is open: the open handle reads what is
    // there now without faulting, and a new open sees the new size.
    { std::ofstream(dir / "plain_acl.yml", std::ios::trunc) << "a:\n"; }
    auto short_read = (*f)->pread(0, MutableBytes(buf.data(), buf.size()));
    ASSERT_TRUE(short_read.ok());
    EXPECT_EQ(*short_read, 3u);
    auto again = fs.open("plain_acl.yml", OpenOptions{});
    ASSERT_TRUE(again.ok());
    EXPECT_EQ((*again)->size(), 3u);
  }
  EXPECT_TRUE(std::filesystem::exists(dir / "plain_acl.yml"));
  EXPECT_EQ(split_folder("/etc/ferry/plain_acl.yml"), (std::pair<std::string, std::string>{"/etc/ferry", "plain_acl.yml"}));
  EXPECT_EQ(split_folder("plain_acl.yml"), (std::pair<std::string, std::string>{".", "plain_acl.yml"}));
  EXPECT_EQ(split_folder("/x.yml"), (std::pair<std::string, std::string>{"/", "x.yml"}));
}

// properties_rewrite: a run-time change keeps the rest of the file and replaces every line of
// the key (the last one is what a reader keeps), appending keys the file lacks.
TEST(PropertiesRewriteTest, ReplacesEveryLineOfAKeyKeepsTheRestAndAppendsNewKeys) {
  const std::string before = "# broker\nbrokerName = broker-a\nbrokerPermission=6\n\n! old\nbrokerPermission=2\n";
  const std::string after =
      rewrite_properties_text(before, {{"brokerPermission", "4"}, {"slaveReadEnable", "true"}});
  EXPECT_EQ(after, "# broker\nbrokerName = broker-a\nbrokerPermission=4\n\n! old\nbrokerPermission=4\nslaveReadEnable=true\n");
  auto parsed = parse_properties(after, "broker.conf");
  ASSERT_TRUE(parsed.ok()) << parsed.error().to_string();
  EXPECT_EQ(rewrite_properties_text("a=1", {}), "a=1\n");  // a missing final newline is added
}

}  // namespace
}  // namespace ferry::daemon
