// raise_open_files_limit (daemon/open_files.h): a daemon starts with its soft descriptor
// limit at the hard limit, and says what it found and did.
#include <sys/resource.h>

#include <gtest/gtest.h>

#include "daemon/open_files.h"

namespace ferry::daemon {
namespace {

TEST(OpenFilesTest, TheSoftLimitIsRaisedToTheHardOneAndReported) {
  struct rlimit lim {};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &lim), 0);
  if (lim.rlim_max != RLIM_INFINITY && lim.rlim_max < 512) GTEST_SKIP() << "hard limit " << lim.rlim_max << " too low to test";
  struct rlimit lowered = lim;
  lowered.rlim_cur = 256;  // what a default shell often gives is 1024; lower still, to see it move
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &lowered), 0);

  const OpenFilesReport r = raise_open_files_limit();
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.before, 256u);
  struct rlimit after {};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &after), 0);
  EXPECT_EQ(after.rlim_cur, lim.rlim_max) << "the soft limit is the hard one";
  EXPECT_EQ(r.now, r.hard);
  EXPECT_NE(r.text().find("soft limit 256 raised to"), std::string::npos) << r.text();

  const OpenFilesReport again = raise_open_files_limit();
  EXPECT_EQ(again.before, again.now) << "nothing left to raise";
  EXPECT_EQ(again.text().find("raised"), std::string::npos) << again.text();
}

TEST(OpenFilesTest, ALowLimitIsAWarningThatSaysWhatToDo) {
  OpenFilesReport r;
  r.before = r.now = r.hard = 1024;
  EXPECT_TRUE(r.low());
  EXPECT_NE(r.text().find("may run out of descriptors"), std::string::npos) << r.text();
  r.now = r.hard = 1 << 20;
  EXPECT_FALSE(r.low());
  EXPECT_EQ(r.text().find("may run out"), std::string::npos) << r.text();
}

}  // namespace
}  // namespace ferry::daemon
