// mqdashboard's pieces that need no cluster: the lag history's bounds, how a message body is
// shown (text or base64), and the users file and Basic login (tools/mqdashboard).
#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/temp_dir.h"
#include "tools/mqdashboard/lag_history.h"
#include "tools/mqdashboard/message_json.h"
#include "tools/mqdashboard/users.h"

namespace ferry::dashboard {
namespace {

void write_file(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

TEST(LagHistoryTest, KeepsTheNewestPointsOfABoundedNumberOfGroups) {
  LagHistory h(2, 3);
  for (int i = 0; i < 5; ++i) h.record("g1", LagPoint{i * 1000, i * 10});
  h.record("g2", LagPoint{0, 7});
  h.record("g3", LagPoint{0, 9});  // a third group: over the bound, not kept
  const std::vector<LagPoint> g1 = h.points("g1");
  ASSERT_EQ(g1.size(), 3u);
  EXPECT_EQ(g1.front().at_ms, 2000);
  EXPECT_EQ(g1.back().lag, 40);
  EXPECT_EQ(h.points("g2").size(), 1u);
  EXPECT_TRUE(h.points("g3").empty());
  EXPECT_EQ(h.groups(), 2u);
  EXPECT_EQ(h.groups_dropped(), 1u);
}

TEST(MessageJsonTest, TextBodiesStayTextAndOthersGoBase64) {
  EXPECT_TRUE(valid_utf8("plain ascii"));
  EXPECT_TRUE(valid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x9A\xA2"));
  EXPECT_FALSE(valid_utf8("\xC3"));              // truncated
  EXPECT_FALSE(valid_utf8("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(valid_utf8("\xED\xA0\x80"));      // a surrogate
  EXPECT_FALSE(valid_utf8("\xF4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(valid_utf8(std::string("\x00\xFF", 2)));
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");

  MessageExt m;
  m.topic = "T";
  m.body = {0x00, 0xFF, 0x10};
  m.set_keys(std::string_view("k1 k2"));
  JsonOut j;
  write_message(j, m, true);
  const std::string json = j.take();
  EXPECT_NE(json.find("\"bodyEncoding\":\"base64\",\"body\":\"AP8Q\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"keys\":[\"k1\",\"k2\"]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"KEYS\":\"k1 k2\""), std::string::npos) << json;
}

TEST(UsersTest, BasicLoginGivesEachUserTheirAccess) {
  ferry::testing::TempDir dir;
  write_file(dir / "users.properties", "# comment\nadmin=s3cret:x,1\nviewer=pw\n");
  Result<Users> users = Users::read(dir / "users.properties");
  ASSERT_TRUE(users.ok()) << users.error().to_string();
  std::string name;
  EXPECT_EQ(users->check("Basic " + base64("admin:s3cret:x"), &name), Access::admin);  // ':' in a password is fine
  EXPECT_EQ(name, "admin");
  EXPECT_EQ(users->check("Basic " + base64("viewer:pw"), &name), Access::viewer);
  EXPECT_EQ(users->check("Basic " + base64("viewer:pw2"), &name), Access::denied);
  EXPECT_EQ(users->check("Basic " + base64("nobody:pw"), &name), Access::denied);
  EXPECT_EQ(users->check("Basic !!!!", &name), Access::denied);
  EXPECT_EQ(users->check("Bearer abc", &name), Access::denied);
  EXPECT_EQ(users->check("", &name), Access::denied);

  write_file(dir / "bad.properties", "a=b,2\n");
  Result<Users> bad = Users::read(dir / "bad.properties");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().detail.find("bad.properties:1: user a: role \"2\""), std::string::npos) << bad.error().detail;
  write_file(dir / "empty.properties", "# nobody\n");
  EXPECT_FALSE(Users::read(dir / "empty.properties").ok());
  EXPECT_FALSE(Users::read(dir / "missing.properties").ok());
}

}  // namespace
}  // namespace ferry::dashboard
