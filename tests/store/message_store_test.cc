// MessageStore: put (single, batch, limits, exact file fill), dispatch to ConsumeQueue and
// index, get_messages statuses and tag filters, key queries, time search, flush, recovery.
#include <gtest/gtest.h>

#include <limits>

#include "common/msg_id.h"
#include "common/record_format.h"
#include "tests/store/one_node.h"
#include "tests/store/store_fixture.h"

namespace ferry::store {
namespace {

using testing::TestMessage;
using testing::OneNode;

class MessageStoreTest : public ::testing::Test {
 protected:
  void SetUp() override { reopen(); }
  // The store outlives the node's tasks (message_store.h): they die first.
  void TearDown() override {
    rt_.kill();
    store_.reset();
  }
  void reopen() {
    store_.reset();
    store_ = std::make_unique<MessageStore>(rt_.runtime(), config_);
    ASSERT_TRUE(rt_.run(store_->open()).ok());
  }
  PutResult put(const TestMessage& m) { return store_->put_message(m.request()); }

  OneNode rt_;
  StoreConfig config_ = testing::small_config();
  std::unique_ptr<MessageStore> store_;
};

// Controller mode without readUnCommitted: a message is stored (and replicated) at once but
// becomes visible — a queue unit, an arrival, readable — only once the confirm offset passes it.
TEST_F(MessageStoreTest, NothingPastTheVisibilityBoundIsReadable) {
  std::vector<std::string> arrivals;
  store_->set_arrival_listener([&](const std::string& t, QueueId q, QueueOffset max) {
    arrivals.push_back(fmt::format("{}:{}:{}", t, q.value(), max.value()));
  });
  store_->set_visibility_bound(PhysicalOffset(0));
  auto r0 = put(TestMessage{.body = "a"});
  auto r1 = put(TestMessage{.body = "b"});
  ASSERT_EQ(r1.status, PutStatus::ok) << r1.detail;
  EXPECT_EQ(r1.queue_offset.value(), 1);  // offsets are given at the put, visible or not
  EXPECT_TRUE(arrivals.empty());
  EXPECT_EQ(store_->get_messages("T", QueueId(0), QueueOffset(0), 32, nullptr).max_offset.value(), 0);

  store_->set_visibility_bound(r0.end());  // the first is confirmed
  EXPECT_EQ(arrivals, (std::vector<std::string>{"T:0:1"}));
  auto g = store_->get_messages("T", QueueId(0), QueueOffset(0), 32, nullptr);
  ASSERT_EQ(g.status, GetStatus::found);
  ASSERT_EQ(g.messages.size(), 1u);
  EXPECT_EQ(testing::body_of(g.messages[0]), "a");

  store_->set_visibility_bound(std::nullopt);  // no bound: everything stored is visible
  EXPECT_EQ(arrivals, (std::vector<std::string>{"T:0:1", "T:0:2"}));
  ASSERT_EQ(put(TestMessage{.body = "c"}).status, PutStatus::ok);
  EXPECT_EQ(store_->get_messages("T", QueueId(0), QueueOffset(0), 32, nullptr).max_offset.value(), 3);
}

// A restart (controller mode): what recovery finds past the queues' end was never confirmed
// (the bound held it), so a bound set before open() keeps it invisible; a put still numbers its
// message after the held ones (it would otherwise give their queue offsets again).
TEST_F(MessageStoreTest, ABoundSetBeforeOpenHoldsWhatRecoveryFindsPastTheQueues) {
  store_->set_visibility_bound(PhysicalOffset(0));
  auto r0 = put(TestMessage{.body = "a"});
  store_->set_visibility_bound(r0.end());
  ASSERT_EQ(put(TestMessage{.body = "b"}).status, PutStatus::ok);
  ASSERT_EQ(put(TestMessage{.body = "c"}).status, PutStatus::ok);
  ASSERT_EQ(store_->get_messages("T", QueueId(0), QueueOffset(0), 32, nullptr).max_offset.value(), 1);

  // Killed (no shutdown), started again with the bound in place before open().
  store_.reset();
  store_ = std::make_unique<MessageStore>(rt_.runtime(), config_);
  store_->set_visibility_bound(PhysicalOffset(0));
  ASSERT_TRUE(rt_.run(store_->open()).ok());
  EXPECT_EQ(store_->max_phy_offset().value(), 3 * r0.wrote_bytes) << "recovery keeps all three records";
  EXPECT_EQ(store_->get_messages("T", QueueId(0), QueueOffset(0), 32, nullptr).max_offset.value(), 1)
      << "the unconfirmed records became visible at open";
  auto r3 = put(TestMessage{.body = "d"});
  ASSERT_EQ(r3.status, PutStatus::ok) << r3.detail;
  EXPECT_EQ(r3.queue_offset.value(), 3) << "b and c hold queue offsets 1 and 2";
  EXPECT_EQ(put(TestMessage{.topic = "U", .body = "e"}).queue_offset.value(), 0);
  store_->set_visibility_bound(std::nullopt);  // the role's confirm offset covers them
  auto g = store_->get_messages("T", QueueId(0), QueueOffset(0), 32, nullptr);
  ASSERT_EQ(g.messages.size(), 4u);
  EXPECT_EQ(testing::body_of(g.messages[3]), "d");

  // Without a bound, what recovery finds is visible at once.
  reopen();
  EXPECT_EQ(store_->get_messages("T", QueueId(0), QueueOffset(0), 32, nullptr).max_offset.value(), 4);
}

// A cut (a replica rejoining a new master) drops held records; a put numbers its message after
// the held records that stay, not after those cut.
TEST_F(MessageStoreTest, AfterACutAPutNumbersAfterTheHeldRecordsThatStay) {
  store_->set_visibility_bound(PhysicalOffset(0));
  auto r0 = put(TestMessage{.body = "a"});
  auto r1 = put(TestMessage{.body = "b"});
  auto r2 = put(TestMessage{.body = "c"});
  ASSERT_EQ(r2.queue_offset.value(), 2);
  store_->set_visibility_bound(r0.end());
  ASSERT_TRUE(store_->truncate_to(r2.wrote_offset).ok());  // c goes, b stays held
  auto r3 = put(TestMessage{.body = "d"});
  EXPECT_EQ(r3.queue_offset.value(), 2) << "c's queue offset is free again; b keeps 1";
  store_->set_visibility_bound(std::nullopt);
  auto g = store_->get_messages("T", QueueId(0), QueueOffset(0), 32, nullptr);
  ASSERT_EQ(g.messages.size(), 3u);
  EXPECT_EQ(testing::body_of(g.messages[1]), "b");
  EXPECT_EQ(testing::body_of(g.messages[2]), "d");
  EXPECT_EQ(r1.queue_offset.value(), 1);
}

TEST_F(MessageStoreTest, PutAssignsOffsetsAndGetReturnsRecords) {
  std::vector<std::string> arrivals;
  store_->set_arrival_listener([&](const std::string& t, QueueId q, QueueOffset max) {
    arrivals.push_back(fmt::format("{}:{}:{}", t, q.value(), max.value()));
  });
  auto r0 = put(TestMessage{.body = "a"});
  auto r1 = put(TestMessage{.body = "b"});
  auto other = put(TestMessage{.queue_id = QueueId(1), .body = "c"});
  ASSERT_EQ(r0.status, PutStatus::ok) << r0.detail;
  EXPECT_EQ(r0.wrote_offset.value(), 0);
  EXPECT_EQ(r0.queue_offset.value(), 0);
  EXPECT_EQ(r1.wrote_offset.value(), r0.wrote_bytes);
  EXPECT_EQ(r1.queue_offset.value(), 1);
  EXPECT_EQ(other.queue_offset.value(), 0);
  EXPECT_EQ(store_->offset_msg_ids(r1), encode_offset_msg_id(config_.store_host, r1.wrote_offset));
  EXPECT_EQ(arrivals, (std::vector<std::string>{"T:0:1", "T:0:2", "T:1:1"}));

  auto g = store_->get_messages("T", QueueId(0), QueueOffset(0), 32, nullptr);
  ASSERT_EQ(g.status, GetStatus::found);
  ASSERT_EQ(g.messages.size(), 2u);
  EXPECT_EQ(g.next_begin_offset.value(), 2);
  EXPECT_EQ(g.min_offset.value(), 0);
  EXPECT_EQ(g.max_offset.value(), 2);
  const RecordRead rec = testing::decode(g.messages[1]);
  ASSERT_EQ(rec.kind, RecordKind::message) << rec.detail;
  EXPECT_EQ(testing::body_of(g.messages[1]), "b");
  EXPECT_EQ(rec.fields.queue_offset.value(), 1);
  EXPECT_EQ(rec.fields.physical_offset.value(), r1.wrote_offset.value());
  EXPECT_EQ(rec.fields.store_timestamp_ms, rt_.wall_ms());
  EXPECT_EQ(rec.fields.store_host, config_.store_host);
  // The record is exactly what message_at returns.
  auto v = store_->message_at(r1.wrote_offset);
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(std::equal(v->bytes().begin(), v->bytes().end(), g.messages[1].bytes().begin()));
}

TEST_F(MessageStoreTest, GetStatusesAndNextOffsets) {
  auto g = store_->get_messages("T", QueueId(0), QueueOffset(0), 1, nullptr);
  EXPECT_EQ(g.status, GetStatus::no_matched_logic_queue);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(put(TestMessage{}).status, PutStatus::ok);
  g = store_->get_messages("T", QueueId(0), QueueOffset(3), 1, nullptr);
  EXPECT_EQ(g.status, GetStatus::offset_overflow_one);
  EXPECT_EQ(g.next_begin_offset.value(), 3);
  g = store_->get_messages("T", QueueId(0), QueueOffset(9), 1, nullptr);
  EXPECT_EQ(g.status, GetStatus::offset_overflow_badly);
  EXPECT_EQ(g.next_begin_offset.value(), 3);
  g = store_->get_messages("T", QueueId(0), QueueOffset(1), 1, nullptr);
  EXPECT_EQ(g.status, GetStatus::found);
  EXPECT_EQ(g.messages.size(), 1u);
  EXPECT_EQ(g.next_begin_offset.value(), 2);
  ASSERT_TRUE(store_->find_queue("T", QueueId(0))->correct_min_offset(PhysicalOffset(1)).ok());
  g = store_->get_messages("T", QueueId(0), QueueOffset(0), 1, nullptr);
  EXPECT_EQ(g.status, GetStatus::offset_too_small);
  EXPECT_EQ(g.next_begin_offset.value(), 1);
}

TEST_F(MessageStoreTest, TagFilterUsesTheHashAndSkipsNonMatches) {
  ASSERT_EQ(put(TestMessage{.body = "1"}.tags("A")).status, PutStatus::ok);
  ASSERT_EQ(put(TestMessage{.body = "2"}.tags("B")).status, PutStatus::ok);
  ASSERT_EQ(put(TestMessage{.body = "3"}).status, PutStatus::ok);
  ASSERT_EQ(put(TestMessage{.body = "4"}.tags("A")).status, PutStatus::ok);
  auto unit = store_->find_queue("T", QueueId(0))->read(QueueOffset(0));
  EXPECT_EQ(unit->tags_code, 65) << "Java \"A\".hashCode()";
  EXPECT_EQ(store_->find_queue("T", QueueId(0))->read(QueueOffset(2))->tags_code, 0);
  auto sub = SubscriptionFilter::compile(ExpressionType::tag, "A");
  ASSERT_TRUE(sub.ok());
  auto g = store_->get_messages("T", QueueId(0), QueueOffset(0), 32, &*sub);
  ASSERT_EQ(g.status, GetStatus::found);
  ASSERT_EQ(g.messages.size(), 2u);
  EXPECT_EQ(testing::body_of(g.messages[0]), "1");
  EXPECT_EQ(testing::body_of(g.messages[1]), "4");
  EXPECT_EQ(g.next_begin_offset.value(), 4);
  auto none = SubscriptionFilter::compile(ExpressionType::tag, "C");
  g = store_->get_messages("T", QueueId(0), QueueOffset(0), 32, &*none);
  EXPECT_EQ(g.status, GetStatus::no_matched_message);
  EXPECT_EQ(g.next_begin_offset.value(), 4) << "past what was scanned";
}

// An SQL92 filter decides on the record's properties; the units it skips advance the offset.
// An expression that reads no property is decided once: TRUE is "*", FALSE selects nothing.
TEST_F(MessageStoreTest, AnSql92FilterSelectsByTheRecordsProperties) {
  for (int i = 0; i < 10; ++i) {
    TestMessage m{.body = std::to_string(i)};
    if (i % 3 != 0) m.set("a", std::to_string(i));
    ASSERT_EQ(put(m.tags(i % 2 == 0 ? "even" : "odd")).status, PutStatus::ok);
  }
  auto sql = SubscriptionFilter::compile(ExpressionType::sql92, "a > 4 AND TAGS = 'odd'");
  ASSERT_TRUE(sql.ok()) << sql.error().to_string();
  auto g = store_->get_messages("T", QueueId(0), QueueOffset(0), 32, &*sql);
  ASSERT_EQ(g.status, GetStatus::found);
  std::vector<std::string> bodies;
  for (const FileView& v : g.messages) bodies.push_back(testing::body_of(v));
  EXPECT_EQ(bodies, (std::vector<std::string>{"5", "7"})) << "9 has no property a";
  EXPECT_EQ(g.next_begin_offset.value(), 10);
  auto later = store_->get_messages("T", QueueId(0), QueueOffset(8), 32, &*sql);
  EXPECT_EQ(later.status, GetStatus::no_matched_message);
  EXPECT_EQ(later.next_begin_offset.value(), 10) << "past what was scanned";

  auto all = SubscriptionFilter::compile(ExpressionType::sql92, "TRUE");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->selects_all());
  EXPECT_EQ(store_->get_messages("T", QueueId(0), QueueOffset(0), 32, &*all).messages.size(), 10u);
  auto nothing = SubscriptionFilter::compile(ExpressionType::sql92, "1 = 2");
  ASSERT_TRUE(nothing.ok());
  EXPECT_EQ(store_->get_messages("T", QueueId(0), QueueOffset(0), 32, &*nothing).status,
            GetStatus::no_matched_message);
}

// A tag filter that matches nothing costs one pull a bounded scan, however large the maxMsgNums
// the client asks for: at most pull_filter_bytes_max of ConsumeQueue (800 units by default; more
// only as pull_transfer_count_max units would need), and the next pull goes on from there.
TEST_F(MessageStoreTest, AFilterThatMatchesNothingScansABoundedSliceEachPull) {
  for (int i = 0; i < 2'000; ++i) ASSERT_EQ(put(TestMessage{.body = "m"}.tags("A")).status, PutStatus::ok);
  auto none = SubscriptionFilter::compile(ExpressionType::tag, "C");
  ASSERT_TRUE(none.ok());
  const std::int64_t slice = config_.pull_filter_bytes_max / 20;
  ASSERT_EQ(slice, 800);
  QueueOffset at(0);
  int pulls = 0;
  while (at.value() < 2'000) {
    const GetMessageResult g =
        store_->get_messages("T", QueueId(0), at, std::numeric_limits<std::int32_t>::max(), &*none);
    ASSERT_EQ(g.status, GetStatus::no_matched_message) << "at " << at.value();
    ASSERT_GT(g.next_begin_offset, at) << "every pull makes progress";
    ASSERT_LE(g.next_begin_offset.value() - at.value(), slice) << "a pull from " << at.value() << " scanned too far";
    at = g.next_begin_offset;
    ++pulls;
  }
  EXPECT_EQ(pulls, 3) << "800 + 800 + 400 units";
}

TEST_F(MessageStoreTest, BatchGetsConsecutiveOffsetsInOneFile) {
  std::vector<TestMessage> msgs(3);
  for (int i = 0; i < 3; ++i) msgs[i].body = std::string(100, static_cast<char>('a' + i));
  std::vector<PutRequest> batch;
  for (const auto& m : msgs) batch.push_back(m.request());
  ASSERT_EQ(put(TestMessage{.body = std::string(400, 'x')}).status, PutStatus::ok);
  auto r = store_->put_messages(batch);
  ASSERT_EQ(r.status, PutStatus::ok) << r.detail;
  EXPECT_EQ(r.message_count, 3);
  EXPECT_EQ(r.queue_offset.value(), 1);
  EXPECT_EQ(r.wrote_offset.value(), 1024) << "the batch did not fit after the first record";
  const std::string ids = store_->offset_msg_ids(r);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), ','), 2);
  auto g = store_->get_messages("T", QueueId(0), QueueOffset(1), 32, nullptr);
  ASSERT_EQ(g.messages.size(), 3u);
  EXPECT_EQ(testing::body_of(g.messages[2]), std::string(100, 'c'));
  // A batch for two queues is refused. (Requests view their messages' bytes: keep them alive.)
  const TestMessage queue0;
  const TestMessage queue1{.queue_id = QueueId(1)};
  std::vector<PutRequest> mixed{queue0.request(), queue1.request()};
  EXPECT_EQ(store_->put_messages(mixed).status, PutStatus::message_illegal);
}

TEST_F(MessageStoreTest, RecordThatExactlyFillsAFileLeavesEightBytesForTheBlank) {
  const auto size_for = [](std::size_t body) { return record::record_size(false, false, body, 1, 0); };
  const std::size_t overhead = size_for(0);
  ASSERT_EQ(put(TestMessage{.body = std::string(508 - overhead, 'x')}).wrote_bytes, 508);
  // 1024 - 508 - 8 = 508: the second record fits exactly, leaving 8 bytes.
  auto r = put(TestMessage{.body = std::string(508 - overhead, 'y')});
  ASSERT_EQ(r.status, PutStatus::ok);
  EXPECT_EQ(r.wrote_offset.value(), 508);
  EXPECT_EQ(store_->max_phy_offset().value(), 1016);
  r = put(TestMessage{.body = "z"});
  EXPECT_EQ(r.wrote_offset.value(), 1024);
  const auto& file0 = rt_.bytes("store/commitlog/00000000000000000000");
  EXPECT_EQ(load_be32(file0.data() + 1016), 8u);
  EXPECT_EQ(load_be32(file0.data() + 1020), record::kBlankMagic);
  auto g = store_->get_messages("T", QueueId(0), QueueOffset(0), 32, nullptr);
  ASSERT_EQ(g.messages.size(), 3u);
  EXPECT_EQ(testing::body_of(g.messages[2]), "z");
}

TEST_F(MessageStoreTest, SizeLimits) {
  auto r = put(TestMessage{.body = std::string(513, 'x')});
  EXPECT_EQ(r.status, PutStatus::message_illegal);
  r = put(TestMessage{.body = std::string(500, 'x')});  // body fits, the record does not
  EXPECT_EQ(r.status, PutStatus::message_illegal);
  EXPECT_EQ(store_->max_phy_offset().value(), 0) << "nothing was written";
  std::string huge_props(40000, 'v');
  const TestMessage plain;  // outlives the request that views it
  PutRequest req = plain.request();
  req.properties = huge_props;
  EXPECT_EQ(store_->put_message(req).status, PutStatus::properties_size_exceeded);
  TestMessage long_topic;
  long_topic.topic = std::string(128, 't');
  EXPECT_EQ(put(long_topic).status, PutStatus::message_illegal);
}

TEST_F(MessageStoreTest, QueryByKeyRechecksKeysIncludingNonAscii) {
  ASSERT_EQ(put(TestMessage{.body = "1"}.keys("Aa 订单-42").uniq("U1")).status, PutStatus::ok);
  ASSERT_EQ(put(TestMessage{.body = "2"}.keys("BB")).status, PutStatus::ok);  // same hash as Aa
  ASSERT_EQ(put(TestMessage{.topic = "Other", .body = "3"}.keys("Aa")).status, PutStatus::ok);
  auto q = store_->query_by_key("T", "Aa", 10, 0, INT64_MAX);
  ASSERT_TRUE(q.ok());
  ASSERT_EQ(q->messages.size(), 1u) << "the BB collision is dropped by the re-check";
  EXPECT_EQ(testing::body_of(q->messages[0]), "1");
  q = store_->query_by_key("T", "订单-42", 10, 0, INT64_MAX);
  ASSERT_EQ(q->messages.size(), 1u);
  q = store_->query_by_key("T", "U1", 10, 0, INT64_MAX);
  ASSERT_EQ(q->messages.size(), 1u);
  EXPECT_GT(q->index_last_update_phy_offset.value(), 0);
}

TEST_F(MessageStoreTest, SearchByTimeAndEarliestStoreTime) {
  const WallMs t0 = rt_.wall_ms();
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(put(TestMessage{}).status, PutStatus::ok);
    rt_.set_wall_ms(rt_.wall_ms() + 1000);
  }
  EXPECT_EQ(store_->offset_by_time("T", QueueId(0), t0 + 2500)->value(), 3);
  EXPECT_EQ(store_->offset_by_time("T", QueueId(0), t0)->value(), 0);
  EXPECT_EQ(store_->offset_by_time("T", QueueId(0), t0 + 99'000)->value(), 5);
  EXPECT_EQ(*store_->earliest_store_time("T", QueueId(0)), t0);
  EXPECT_FALSE(store_->earliest_store_time("T", QueueId(7)).ok());
}

TEST_F(MessageStoreTest, DiskFullRefusesWritesButReadsGoOn) {
  ASSERT_EQ(put(TestMessage{}).status, PutStatus::ok);
  rt_.set_capacity_bytes(rt_.used_bytes() + rt_.used_bytes() / 20);  // > 90% used
  EXPECT_EQ(put(TestMessage{}).status, PutStatus::ok) << "the disk is read every 10 s, not per put";
  EXPECT_EQ(store_->refresh_disk(), DiskPressure::full);
  auto r = put(TestMessage{});
  EXPECT_EQ(r.status, PutStatus::service_not_available);
  EXPECT_NE(r.detail.find("disk full"), std::string::npos) << r.detail;
  EXPECT_EQ(store_->get_messages("T", QueueId(0), QueueOffset(0), 8, nullptr).status, GetStatus::found);
}

// A record that cannot be indexed (here: no space left for a new topic's ConsumeQueue file) is
// not a crash: the put stands (the record is in the CommitLog), the store refuses new writes
// saying why, retries, and once space returns indexes the record and takes writes again.
TEST_F(MessageStoreTest, AnIndexingFailureRefusesWritesUntilARetrySucceeds) {
  ASSERT_EQ(put(TestMessage{.body = "1"}).status, PutStatus::ok);  // the CommitLog and index files exist
  store_->start();
  EXPECT_FALSE(store_->write_refusal().has_value());
  rt_.set_capacity_bytes(rt_.used_bytes());  // not one byte more: a new ConsumeQueue file cannot be made

  const PutResult stored = put(TestMessage{.topic = "New", .body = "2"});
  ASSERT_EQ(stored.status, PutStatus::ok) << stored.detail << " (the record is in the CommitLog)";
  const std::optional<std::string> why = store_->write_refusal();
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("indexing the CommitLog at offset"), std::string::npos) << *why;
  const PutResult refused = put(TestMessage{.body = "3"});
  EXPECT_EQ(refused.status, PutStatus::service_not_available);
  EXPECT_EQ(refused.detail, *why);
  EXPECT_EQ(store_->get_messages("New", QueueId(0), QueueOffset(0), 32, nullptr).messages.size(), 0u)
      << "not readable before it is indexed";
  EXPECT_EQ(store_->get_messages("T", QueueId(0), QueueOffset(0), 32, nullptr).messages.size(), 1u) << "reads go on";

  rt_.run_for(3 * MessageStore::kDispatchRetryInterval);
  EXPECT_TRUE(store_->write_refusal().has_value()) << "still no space: still refused";

  rt_.set_capacity_bytes(std::uint64_t{1} << 30);
  rt_.run_for(2 * MessageStore::kDispatchRetryInterval);
  EXPECT_FALSE(store_->write_refusal().has_value()) << store_->write_refusal().value_or("");
  const GetMessageResult g = store_->get_messages("New", QueueId(0), QueueOffset(0), 32, nullptr);
  ASSERT_EQ(g.messages.size(), 1u);
  EXPECT_EQ(testing::body_of(g.messages[0]), "2");
  const PutResult again = put(TestMessage{.body = "4"});
  ASSERT_EQ(again.status, PutStatus::ok) << again.detail;
  EXPECT_EQ(again.queue_offset.value(), 1) << "the refused put took no queue offset";
}

// A slave cuts its log back (another master's epoch) while a sync is in flight: a wait past
// the cut ends at once with flush_disk_timeout, and the group commit stops at the new end
// instead of chasing one the log no longer has.
TEST_F(MessageStoreTest, ACutEndsTheWaitsAndFlushRequestsPastIt) {
  store_->start();
  sim::DiskOptions slow = rt_.disk().options();
  slow.sync_latency = std::chrono::milliseconds(10);
  rt_.disk().set_options(slow);
  auto a = put(TestMessage{.body = "a"});
  auto b = put(TestMessage{.body = "b"});
  std::vector<PutStatus> outcomes;
  auto waiter = [](MessageStore* s, PhysicalOffset end, std::vector<PutStatus>* out) -> Task<void> {
    out->push_back(co_await s->wait_durable(end));
  };
  rt_.executor().spawn(waiter(store_.get(), b.end(), &outcomes));
  rt_.run_for(std::chrono::milliseconds(1));  // the group commit's sync is in flight
  ASSERT_TRUE(outcomes.empty());
  ASSERT_TRUE(store_->truncate_to(a.end()).ok());
  rt_.run_for(std::chrono::milliseconds(100));
  EXPECT_EQ(outcomes, (std::vector<PutStatus>{PutStatus::flush_disk_timeout}));
  EXPECT_EQ(store_->max_phy_offset(), a.end());
  EXPECT_EQ(store_->commit_log().flushed_offset(), a.end());
  // The store goes on: a new put past the cut becomes durable.
  auto c = put(TestMessage{.body = "c"});
  ASSERT_EQ(c.status, PutStatus::ok) << c.detail;
  EXPECT_EQ(c.wrote_offset, a.end());
  outcomes.clear();
  rt_.executor().spawn(waiter(store_.get(), c.end(), &outcomes));
  rt_.run_for(std::chrono::milliseconds(100));
  EXPECT_EQ(outcomes, (std::vector<PutStatus>{PutStatus::ok}));
}

// A slave whose master lost what it had sent (a lying disk, then a power loss) receives the
// master's new records over offsets where its own log holds the old ones: a record there numbered
// past the queue's end is refused with a clear error (no gap assertion), what is indexed stays
// readable, and the store takes no more replicated bytes.
TEST_F(MessageStoreTest, ARecordOfAnotherHistoryIsRefusedNotIndexed) {
  ASSERT_EQ(put(TestMessage{.queue_id = QueueId(0), .body = "a"}).status, PutStatus::ok);
  ASSERT_EQ(put(TestMessage{.queue_id = QueueId(1), .body = "b"}).status, PutStatus::ok);
  StoreConfig other_config = config_;
  other_config.root = config_.root + "-master";
  MessageStore master(rt_.runtime(), other_config);
  ASSERT_TRUE(rt_.run(master.open()).ok());
  for (const char* body : {"x", "y", "z"}) {
    ASSERT_EQ(master.put_message(TestMessage{.queue_id = QueueId(0), .body = body}.request()).status, PutStatus::ok);
  }
  const PhysicalOffset end = store_->max_phy_offset();
  auto tail = master.commit_log().view(end, static_cast<std::int32_t>(master.max_phy_offset() - end));
  ASSERT_TRUE(tail.ok());
  const std::vector<std::uint8_t> bytes(tail->bytes().begin(), tail->bytes().end());
  // The record at `end` is the master's "z", queue offset 2; this store's queue 0 ends at 1.
  EXPECT_TRUE(store_->append_replicated(end, Bytes(bytes.data(), bytes.size())).ok()) << "the bytes are stored";
  const std::optional<std::string> refusal = store_->write_refusal();
  ASSERT_TRUE(refusal.has_value());
  EXPECT_NE(refusal->find("queue offset 2 but the queue ends at 1"), std::string::npos) << *refusal;
  EXPECT_NE(refusal->find("two histories"), std::string::npos) << *refusal;
  auto g = store_->get_messages("T", QueueId(0), QueueOffset(0), 32, nullptr);
  ASSERT_EQ(g.messages.size(), 1u);
  EXPECT_EQ(testing::body_of(g.messages[0]), "a");
  const Status more = store_->append_replicated(store_->max_phy_offset(), Bytes(bytes.data(), bytes.size()));
  ASSERT_FALSE(more.ok());
  EXPECT_TRUE(more.error().is(Errc::corrupt)) << more.error().to_string();
}

// truncate_to_indexed() (a slave before it resumes, a promotion) cuts a partial record a link
// left behind, and says so in cuts() as truncate_to() does: what was synced may lie past it
// (observers that digest the log forget what lay past a cut).
TEST_F(MessageStoreTest, TruncateToIndexedCutsAPartialRecordAndCountsTheCut) {
  StoreConfig other_config = config_;
  other_config.root = config_.root + "-master";
  MessageStore master(rt_.runtime(), other_config);
  ASSERT_TRUE(rt_.run(master.open()).ok());
  const PutResult first = master.put_message(TestMessage{.body = "whole"}.request());
  ASSERT_EQ(first.status, PutStatus::ok);
  ASSERT_EQ(master.put_message(TestMessage{.body = "partial"}.request()).status, PutStatus::ok);
  const PhysicalOffset half = first.end() + (master.max_phy_offset() - first.end()) / 2;
  auto bytes_view = master.commit_log().view(PhysicalOffset(0), static_cast<std::int32_t>(half.value()));
  ASSERT_TRUE(bytes_view.ok());
  const std::vector<std::uint8_t> bytes(bytes_view->bytes().begin(), bytes_view->bytes().end());
  ASSERT_EQ(store_->max_phy_offset().value(), 0);
  ASSERT_TRUE(store_->append_replicated(PhysicalOffset(0), Bytes(bytes.data(), bytes.size())).ok());
  EXPECT_EQ(store_->cuts().count, 0u);
  ASSERT_TRUE(store_->truncate_to_indexed().ok());
  EXPECT_EQ(store_->max_phy_offset(), first.end());
  EXPECT_EQ(store_->cuts().count, 1u);
  EXPECT_EQ(store_->cuts().last, first.end());
  EXPECT_EQ(store_->max_offset("T", QueueId(0)).value(), 1) << "the whole record stays, indexed";
  ASSERT_TRUE(store_->truncate_to_indexed().ok());
  EXPECT_EQ(store_->cuts().count, 1u) << "nothing to cut: no cut counted";
}

TEST_F(MessageStoreTest, SyncFlushGroupCommitsConcurrentWaiters) {
  store_->start();
  auto a = put(TestMessage{});
  auto b = put(TestMessage{});
  std::vector<PutStatus> outcomes;
  auto waiter = [](MessageStore* s, PhysicalOffset end, std::vector<PutStatus>* out) -> Task<void> {
    out->push_back(co_await s->wait_durable(end));
  };
  const auto syncs_before = rt_.disk_stats().syncs;
  rt_.executor().spawn(waiter(store_.get(), a.end(), &outcomes));
  rt_.executor().spawn(waiter(store_.get(), b.end(), &outcomes));
  rt_.run_for(std::chrono::milliseconds(1));
  EXPECT_EQ(outcomes, (std::vector<PutStatus>{PutStatus::ok, PutStatus::ok}));
  EXPECT_EQ(rt_.disk_stats().syncs - syncs_before, 1u) << "one sync for both writers";
  EXPECT_GE(store_->commit_log().flushed_offset().value(), b.end().value());
  // A failing disk: a failed sync is fatal for what it covered (a retried fsync would report
  // success over lost pages), so the waiter is answered at once, not after the 5 s timeout.
  auto c = put(TestMessage{});
  rt_.set_syncs_fail(true);
  outcomes.clear();
  rt_.executor().spawn(waiter(store_.get(), c.end(), &outcomes));
  rt_.run_for(std::chrono::milliseconds(1));
  EXPECT_EQ(outcomes, (std::vector<PutStatus>{PutStatus::flush_disk_timeout}));
  EXPECT_LT(store_->commit_log().flushed_offset().value(), c.end().value());
  // The disk "recovers": nothing written since the failure may be reported durable, and the
  // store refuses writes (clearly) until it is restarted; reads go on.
  rt_.set_syncs_fail(false);
  outcomes.clear();
  rt_.executor().spawn(waiter(store_.get(), c.end(), &outcomes));
  rt_.run_for(std::chrono::milliseconds(1));
  EXPECT_EQ(outcomes, (std::vector<PutStatus>{PutStatus::flush_disk_timeout}));
  auto refused = put(TestMessage{});
  EXPECT_EQ(refused.status, PutStatus::service_not_available);
  EXPECT_NE(refused.detail.find("sync failed"), std::string::npos) << refused.detail;
  EXPECT_EQ(store_->get_messages("T", QueueId(0), QueueOffset(0), 8, nullptr).status, GetStatus::found);
  Status stopped = rt_.run(store_->shutdown());
  ASSERT_FALSE(stopped.ok()) << "a shutdown cannot make the lost writes durable";
  EXPECT_NE(stopped.error().detail.find("may be lost"), std::string::npos) << stopped.error().detail;
}

TEST_F(MessageStoreTest, AsyncFlushWaitsForFourPagesOrTenSeconds) {
  store_->start();
  ASSERT_EQ(put(TestMessage{}).status, PutStatus::ok);
  rt_.run_for(std::chrono::milliseconds(600));
  EXPECT_EQ(store_->commit_log().flushed_offset().value(), 0) << "less than 4 pages dirty";
  rt_.run_for(std::chrono::seconds(10));
  EXPECT_EQ(store_->commit_log().flushed_offset(), store_->max_phy_offset()) << "thorough flush";
  ASSERT_TRUE(rt_.run(store_->shutdown()).ok());
}

TEST_F(MessageStoreTest, CleanRestartKeepsEverything) {
  for (int i = 0; i < 10; ++i) ASSERT_EQ(put(TestMessage{.body = std::to_string(i)}.keys("k")).status, PutStatus::ok);
  ASSERT_TRUE(rt_.run(store_->shutdown()).ok());
  EXPECT_FALSE(rt_.fs().exists("store/abort"));
  reopen();
  EXPECT_TRUE(store_->recovery().clean_shutdown);
  EXPECT_EQ(store_->max_offset("T", QueueId(0)).value(), 10);
  EXPECT_EQ(store_->reput_offset(), store_->max_phy_offset());
  auto r = put(TestMessage{.body = "10"});
  EXPECT_EQ(r.queue_offset.value(), 10);
  auto g = store_->get_messages("T", QueueId(0), QueueOffset(8), 32, nullptr);
  ASSERT_EQ(g.messages.size(), 3u);
  EXPECT_EQ(testing::body_of(g.messages[2]), "10");
  EXPECT_EQ(store_->query_by_key("T", "k", 64, 0, INT64_MAX)->messages.size(), 10u);
}

TEST_F(MessageStoreTest, CrashWithACorruptTailTruncatesAndRebuilds) {
  std::vector<PutResult> results;
  for (int i = 0; i < 6; ++i) {
    results.push_back(put(TestMessage{.body = std::string(200, static_cast<char>('a' + i))}.keys(fmt::format("k{}", i))));
    ASSERT_EQ(results.back().status, PutStatus::ok);
  }
  // Crash: no shutdown (the abort file stays); the last record's body gets a flipped byte.
  store_.reset();
  const PhysicalOffset last = results.back().wrote_offset;
  auto& file = rt_.bytes(fmt::format("store/commitlog/{:020d}", last.value() / 1024 * 1024));
  file[static_cast<std::size_t>(last.value() % 1024 + 100)] ^= 0x5A;
  reopen();
  const RecoveryInfo& info = store_->recovery();
  EXPECT_FALSE(info.clean_shutdown);
  EXPECT_EQ(info.commit_log.end, last);
  EXPECT_NE(info.commit_log.reason.find("CRC"), std::string::npos) << info.commit_log.reason;
  EXPECT_EQ(store_->max_phy_offset(), last);
  EXPECT_EQ(store_->max_offset("T", QueueId(0)).value(), 5);
  EXPECT_TRUE(store_->query_by_key("T", "k5", 10, 0, INT64_MAX)->messages.empty());
  EXPECT_EQ(store_->query_by_key("T", "k4", 10, 0, INT64_MAX)->messages.size(), 1u);
  // The next message takes the dropped one's offsets.
  auto r = put(TestMessage{.body = "new"}.keys("k5"));
  EXPECT_EQ(r.wrote_offset, last);
  EXPECT_EQ(r.queue_offset.value(), 5);
  auto q = store_->query_by_key("T", "k5", 10, 0, INT64_MAX);
  ASSERT_EQ(q->messages.size(), 1u);
  EXPECT_EQ(testing::body_of(q->messages[0]), "new");
}

TEST_F(MessageStoreTest, CrashRebuildsLostConsumeQueueUnits) {
  for (int i = 0; i < 6; ++i) ASSERT_EQ(put(TestMessage{}).status, PutStatus::ok);
  store_.reset();
  // Lose the queue's files entirely (never flushed): dispatch rebuilds them from the log.
  std::vector<std::string> cq_files;
  for (const std::string& path : rt_.paths()) {
    if (path.rfind("store/consumequeue/", 0) == 0) cq_files.push_back(path);
  }
  for (const auto& p : cq_files) ASSERT_TRUE(rt_.fs().remove(p).ok());
  reopen();
  EXPECT_EQ(store_->max_offset("T", QueueId(0)).value(), 6);
  EXPECT_EQ(put(TestMessage{}).queue_offset.value(), 6);
}

TEST_F(MessageStoreTest, RecoveryDropsARecordWhosePropertiesLostASector) {
  config_.message_size_max_bytes = 900;
  reopen();
  // Learn the record overhead (header, topic, properties) for this message shape elsewhere.
  StoreConfig probe_config = config_;
  probe_config.root = "probe";
  MessageStore probe(rt_.runtime(), probe_config);
  ASSERT_TRUE(rt_.run(probe.open()).ok());
  const std::int64_t overhead =
      probe.put_message(TestMessage{.body = std::string(100, 'p')}.keys("key1").request()).wrote_bytes - 100;
  // A record from 0 to 515: its properties cross the 512-byte sector boundary by 3 bytes.
  const auto body = static_cast<std::size_t>(515 - overhead);
  auto a = put(TestMessage{.body = std::string(body, 'a')}.keys("key1"));
  ASSERT_EQ(a.wrote_offset.value(), 0);
  ASSERT_EQ(a.wrote_bytes, 515);
  ASSERT_EQ(put(TestMessage{.body = "b"}.keys("key2")).status, PutStatus::ok);
  // The crash lost the sector from 512: the tail of A's properties and all of B read as zeros.
  auto file = rt_.fs().open("store/commitlog/00000000000000000000", OpenOptions{});
  ASSERT_TRUE(file.ok());
  const std::vector<std::uint8_t> zeros(512, 0);
  ASSERT_TRUE((*file)->pwrite(512, zeros).ok());
  file->reset();
  reopen();  // no shutdown: the abort file says crash
  EXPECT_FALSE(store_->recovery().clean_shutdown);
  EXPECT_EQ(store_->max_phy_offset().value(), 0) << store_->recovery().commit_log.reason;
  EXPECT_NE(store_->recovery().commit_log.reason.find("torn record"), std::string::npos)
      << store_->recovery().commit_log.reason;
  EXPECT_EQ(store_->max_offset("T", QueueId(0)).value(), 0);
}

// A slave appends replicated bytes cut anywhere: a sync may make a record durable up to the
// middle of its properties, and a crash lose the rest, which reads as zeros from there, not from a
// sector boundary. (Found by FERRY_SIM_SWARM=4 sim_ha_test: the slave served the record with the
// last 20 bytes of its properties zeroed.)
TEST_F(MessageStoreTest, PropertiesWithANulByteAreRefused) {
  TestMessage m{.body = "x"};
  m.set("a", std::string("v\0", 2));
  const PutResult r = put(m);
  EXPECT_EQ(r.status, PutStatus::message_illegal);
  EXPECT_NE(r.detail.find("NUL byte"), std::string::npos) << r.detail;
  EXPECT_EQ(store_->max_phy_offset().value(), 0) << "nothing stored";
}

TEST_F(MessageStoreTest, RecoveryDropsARecordWhosePropertiesLostTheirTailAnywhere) {
  auto a = put(TestMessage{.body = std::string(300, 'a')}.keys("key1"));
  ASSERT_EQ(a.status, PutStatus::ok);
  const std::int64_t end = a.wrote_offset.value() + a.wrote_bytes;
  ASSERT_EQ(put(TestMessage{.body = "b"}.keys("key2")).status, PutStatus::ok);
  auto file = rt_.fs().open("store/commitlog/00000000000000000000", OpenOptions{});
  ASSERT_TRUE(file.ok());
  // A's last 7 bytes (inside its properties, far from any sector boundary) and all of B: zeros.
  const std::vector<std::uint8_t> zeros(static_cast<std::size_t>(600), 0);
  ASSERT_TRUE((*file)->pwrite(end - 7, zeros).ok());
  file->reset();
  reopen();
  EXPECT_EQ(store_->max_phy_offset().value(), 0) << store_->recovery().commit_log.reason;
  EXPECT_NE(store_->recovery().commit_log.reason.find("end in zeros"), std::string::npos)
      << store_->recovery().commit_log.reason;
}

}  // namespace
}  // namespace ferry::store
