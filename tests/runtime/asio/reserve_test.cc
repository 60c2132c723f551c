// reserve_blocks (src/runtime/asio/reserve.h): a file grown for a mapping has real blocks under
// every byte, whichever way they were reserved, so a full disk is an error value and never a
// SIGBUS through the mapping.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "runtime/asio/reserve.h"
#include "tests/support/temp_dir.h"

namespace ferry::asio_rt {
namespace {

class ReserveTest : public ::testing::TestWithParam<ReserveMethod> {
 protected:
  void SetUp() override {
    fd_ = ::open((dir_ / "f").c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd_, 0);
  }
  void TearDown() override {
    if (fd_ >= 0) ::close(fd_);
  }
  struct stat stat_now() {
    struct stat st {};
    EXPECT_EQ(::fstat(fd_, &st), 0);
    return st;
  }

  ferry::testing::TempDir dir_{"reserve"};  // one per test and parameter
  int fd_ = -1;
};

TEST_P(ReserveTest, EveryByteOfTheGrownFileHasABlock) {
  constexpr std::uint64_t kLen = 4 << 20;
  ASSERT_EQ(reserve_blocks(fd_, 0, kLen, GetParam()), 0);
  struct stat st = stat_now();
  EXPECT_EQ(static_cast<std::uint64_t>(st.st_size), kLen);
  EXPECT_GE(static_cast<std::uint64_t>(st.st_blocks) * 512, kLen) << "sparse: " << st.st_blocks << " blocks";

  // Growing again keeps what is below the old size and reserves only the new range.
  const char data[] = "stored";
  ASSERT_EQ(::pwrite(fd_, data, sizeof data, 100), static_cast<ssize_t>(sizeof data));
  ASSERT_EQ(reserve_blocks(fd_, kLen, kLen, GetParam()), 0);
  st = stat_now();
  EXPECT_EQ(static_cast<std::uint64_t>(st.st_size), 2 * kLen);
  EXPECT_GE(static_cast<std::uint64_t>(st.st_blocks) * 512, 2 * kLen) << "sparse: " << st.st_blocks << " blocks";
  char back[sizeof data] = {};
  ASSERT_EQ(::pread(fd_, back, sizeof back, 100), static_cast<ssize_t>(sizeof back));
  EXPECT_STREQ(back, data);
  EXPECT_EQ(reserve_blocks(fd_, 0, kLen, GetParam()), 0) << "a range below the size is already reserved";
}

INSTANTIATE_TEST_SUITE_P(Methods, ReserveTest,
                         ::testing::Values(ReserveMethod::fallocate_or_zeros, ReserveMethod::zeros),
                         [](const auto& info) {
                           return std::string(info.param == ReserveMethod::zeros ? "Zeros" : "Fallocate");
                         });

}  // namespace
}  // namespace ferry::asio_rt
