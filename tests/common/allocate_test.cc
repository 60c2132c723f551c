#include <gtest/gtest.h>

#include <charconv>
#include <set>

#include "common/allocate.h"
#include "common/md5.h"
#include "common/hex.h"
#include "tests/support/vectors.h"

namespace ferry {
namespace {

std::size_t to_size(std::string_view s) {
  std::size_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  EXPECT_TRUE(ec == std::errc() && p == s.data() + s.size()) << s;
  return v;
}

std::vector<std::size_t> parse_list(std::string_view s) {
  // The vector writes indices separated by commas or spaces; empty = none.
  std::vector<std::size_t> out;
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t j = s.find_first_of(", ", i);
    if (j == std::string_view::npos) j = s.size();
    if (j > i) out.push_back(to_size(s.substr(i, j - i)));
    i = j + 1;
  }
  return out;
}

std::vector<MessageQueue> queues(std::size_t n) {
  std::vector<MessageQueue> out;
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back({"T", "broker-a", QueueId(static_cast<std::int32_t>(i))});
  }
  return out;
}

std::vector<std::string> clients(std::size_t n) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(fmt::format("client-{:02}", i));
  return out;
}

TEST(Allocate, AveragelyGoldenVectors) {
  auto lines = test::read_vector_lines("allocate_averagely.tsv");
  ASSERT_GE(lines.size(), 160u) << "allocate_averagely.tsv is short";
  for (const std::string& line : lines) {
    auto cols = test::split_tabs(line);
    ASSERT_GE(cols.size(), 3u) << line;
    std::size_t nq = to_size(cols[0]);
    std::size_t nc = to_size(cols[1]);
    std::size_t i = to_size(cols[2]);
    std::vector<std::size_t> want = cols.size() > 3 ? parse_list(cols[3]) : std::vector<std::size_t>{};
    EXPECT_EQ(allocate_averagely_indices(nq, nc, i), want) << line;
    // And through the MessageQueue form.
    auto qs = queues(nq);
    auto cs = clients(nc);
    std::vector<MessageQueue> want_q;
    for (std::size_t k : want) want_q.push_back(qs[k]);
    EXPECT_EQ(allocate_averagely(qs, cs, cs[i]), want_q) << line;
  }
}

// Every strategy gives every queue to exactly one client.
void expect_partition(std::vector<MessageQueue> (*strategy)(std::span<const MessageQueue>,
                                                            std::span<const std::string>,
                                                            std::string_view)) {
  for (std::size_t nq = 0; nq <= 12; ++nq) {
    for (std::size_t nc = 1; nc <= 6; ++nc) {
      auto qs = queues(nq);
      auto cs = clients(nc);
      std::multiset<MessageQueue> seen;
      for (const auto& c : cs) {
        for (auto& q : strategy(qs, cs, c)) seen.insert(q);
      }
      EXPECT_EQ(seen, std::multiset<MessageQueue>(qs.begin(), qs.end())) << nq << "/" << nc;
    }
  }
}

TEST(Allocate, EveryStrategyPartitionsTheQueues) {
  expect_partition(&allocate_averagely);
  expect_partition(&allocate_by_circle);
  expect_partition([](std::span<const MessageQueue> q, std::span<const std::string> c,
                      std::string_view cur) { return allocate_consistent_hash(q, c, cur); });
}

TEST(Allocate, ByCircle) {
  auto qs = queues(5);
  auto cs = clients(2);
  EXPECT_EQ(allocate_by_circle(qs, cs, cs[0]), (std::vector<MessageQueue>{qs[0], qs[2], qs[4]}));
  EXPECT_EQ(allocate_by_circle(qs, cs, cs[1]), (std::vector<MessageQueue>{qs[1], qs[3]}));
}

TEST(Allocate, UnknownClientGetsNothing) {
  auto qs = queues(4);
  auto cs = clients(2);
  EXPECT_TRUE(allocate_averagely(qs, cs, "stranger").empty());
  EXPECT_TRUE(allocate_by_circle(qs, cs, "stranger").empty());
  EXPECT_TRUE(allocate_consistent_hash(qs, cs, "stranger").empty());
}

TEST(AllocateDeathTest, UnsortedInputIsABug) {
  auto qs = queues(3);
  std::swap(qs[0], qs[2]);
  auto cs = clients(2);
  EXPECT_DEATH((void)allocate_averagely(qs, cs, cs[0]), "queues not sorted");
}

TEST(Allocate, ConsistentHashIsStableWhenAClientJoins) {
  auto qs = queues(64);
  auto cs = clients(4);
  auto more = clients(5);
  // A queue either stays with its owner or moves to the new client.
  for (std::size_t c = 0; c < cs.size(); ++c) {
    auto before = allocate_consistent_hash(qs, cs, cs[c]);
    auto after = allocate_consistent_hash(qs, more, cs[c]);
    for (const auto& q : after) {
      EXPECT_NE(std::find(before.begin(), before.end(), q), before.end()) << q.to_string();
    }
  }
}

TEST(Allocate, ConsistentHashPointIsMd5Prefix) {
  // MD5("") = d41d8cd98f00b204e9800998ecf8427e.
  EXPECT_EQ(consistent_hash_point(""), 0xd41d8cd9u);
  EXPECT_EQ(MessageQueue({"T", "b", QueueId(1)}).to_string(),
            "MessageQueue [topic=T, brokerName=b, queueId=1]");
}

TEST(Md5, Rfc1321Vectors) {
  auto hex = [](std::string_view s) { return to_hex(md5(as_bytes(s))); };
  EXPECT_EQ(hex(""), "D41D8CD98F00B204E9800998ECF8427E");
  EXPECT_EQ(hex("a"), "0CC175B9C0F1B6A831C399E269772661");
  EXPECT_EQ(hex("abc"), "900150983CD24FB0D6963F7D28E17F72");
  EXPECT_EQ(hex("message digest"), "F96B697D7CB7938D525A2F31AAF161D0");
  EXPECT_EQ(hex("abcdefghijklmnopqrstuvwxyz"), "C3FCD3D76192E4007DFB496CCA67E13B");
  EXPECT_EQ(hex("12345678901234567890123456789012345678901234567890123456789012345678901234567890"),
            "57EDF4A22BE3C955AC49DA2E2107B67A");
  EXPECT_EQ(hex(std::string(56, 'x')).size(), 32u);  // padding spills into a second block
}

}  // namespace
}  // namespace ferry
