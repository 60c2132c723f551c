// The Raft message codec: every carried type reads back field for field, entries share one batch,
// a barrier's bytes are zeros, and damaged input is refused without leaking.
#include "controller/raft_codec.h"

#include <cstring>

#include <gtest/gtest.h>

namespace ferry::controller {
namespace {

TEST(RaftCodec, AppendEntriesReadsBackWithOneSharedBatch) {
  std::string a = "first", b = "second!";
  raft_entry entries[2] = {};
  entries[0].term = 3;
  entries[0].type = RAFT_COMMAND;
  entries[0].buf = raft_buffer{a.data(), a.size()};
  entries[1].term = 4;
  entries[1].type = RAFT_COMMAND;
  entries[1].buf = raft_buffer{b.data(), b.size()};
  raft_message m{};
  m.type = RAFT_IO_APPEND_ENTRIES;
  m.append_entries = raft_append_entries{4, 10, 3, 9, entries, 2};
  auto bytes = encode_raft_message(2, m);
  ASSERT_TRUE(bytes.ok());
  auto back = decode_raft_message(*bytes);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  raft_message& got = back->message();
  EXPECT_EQ(back->sender(), 2u);
  EXPECT_EQ(got.type, RAFT_IO_APPEND_ENTRIES);
  EXPECT_EQ(got.append_entries.term, 4u);
  EXPECT_EQ(got.append_entries.prev_log_index, 10u);
  EXPECT_EQ(got.append_entries.prev_log_term, 3u);
  EXPECT_EQ(got.append_entries.leader_commit, 9u);
  ASSERT_EQ(got.append_entries.n_entries, 2u);
  EXPECT_EQ(got.append_entries.entries[1].term, 4u);
  EXPECT_EQ(std::string(static_cast<char*>(got.append_entries.entries[1].buf.base),
                        got.append_entries.entries[1].buf.len), "second!");
  EXPECT_EQ(got.append_entries.entries[0].batch, got.append_entries.entries[1].batch);
}

TEST(RaftCodec, VotesResultsAndTimeoutNowReadBack) {
  raft_message vote{};
  vote.type = RAFT_IO_REQUEST_VOTE;
  vote.request_vote = raft_request_vote{7, 3, 40, 6, true, true};
  auto v = decode_raft_message(*encode_raft_message(3, vote));
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->message().request_vote.last_log_index, 40u);
  EXPECT_TRUE(v->message().request_vote.disrupt_leader);
  EXPECT_TRUE(v->message().request_vote.pre_vote);

  raft_message result{};
  result.type = RAFT_IO_REQUEST_VOTE_RESULT;
  result.request_vote_result = raft_request_vote_result{7, true, raft_tribool_false};
  auto r = decode_raft_message(*encode_raft_message(1, result));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->message().request_vote_result.vote_granted);
  EXPECT_EQ(r->message().request_vote_result.pre_vote, raft_tribool_false);

  raft_message ae_result{};
  ae_result.type = RAFT_IO_APPEND_ENTRIES_RESULT;
  ae_result.append_entries_result = raft_append_entries_result{9, 12, 11};
  auto a = decode_raft_message(*encode_raft_message(1, ae_result));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->message().append_entries_result.rejected, 12u);

  raft_message now{};
  now.type = RAFT_IO_TIMEOUT_NOW;
  now.timeout_now = raft_timeout_now{9, 50, 8};
  auto t = decode_raft_message(*encode_raft_message(1, now));
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->message().timeout_now.last_log_term, 8u);
}

TEST(RaftCodec, ABarriersUnsetBytesGoOutAsZeros) {
  unsigned char garbage[8];
  std::memset(garbage, 0xAB, sizeof garbage);
  raft_entry e{};
  e.term = 2;
  e.type = RAFT_BARRIER;
  e.buf = raft_buffer{garbage, sizeof garbage};
  Bytes out = entry_bytes(e);
  ASSERT_EQ(out.size(), 8u);
  for (std::uint8_t b : out) EXPECT_EQ(b, 0);
}

TEST(RaftCodec, EveryTruncationIsRefusedAndSnapshotsAreNotCarried) {
  std::string a = "payload";
  raft_entry entries[1] = {};
  entries[0].term = 1;
  entries[0].type = RAFT_COMMAND;
  entries[0].buf = raft_buffer{a.data(), a.size()};
  raft_message m{};
  m.type = RAFT_IO_APPEND_ENTRIES;
  m.append_entries = raft_append_entries{1, 0, 0, 0, entries, 1};
  auto bytes = *encode_raft_message(1, m);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(decode_raft_message(Bytes(bytes.data(), n)).ok()) << n;
  }
  bytes.push_back(0);
  EXPECT_FALSE(decode_raft_message(bytes).ok());
  bytes.pop_back();
  bytes[1] = 99;
  EXPECT_FALSE(decode_raft_message(bytes).ok());

  raft_message snap{};
  snap.type = RAFT_IO_INSTALL_SNAPSHOT;
  auto refused = encode_raft_message(1, snap);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, Errc::unsupported);
}

}  // namespace
}  // namespace ferry::controller
