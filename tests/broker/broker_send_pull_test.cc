// Send (V1, V2, batch) and pull back exactly what was sent; auto-creation; validation codes;
// tag filtering; delayed messages; malformed headers.
#include "common/msg_id.h"
#include "common/sys_flag.h"
#include "tests/broker/broker_fixture.h"
#include "tests/support/broker_inspector.h"

using ferry::testing::BrokerInspector;

namespace ferry::broker::testing {
namespace {

TEST_F(BrokerTest, SendV1V2AndBatchThenPullBackExactlyWhatWasSent) {
  boot();
  std::vector<Msg> sent;
  Msg a;
  a.body = "v1 body";
  a.tag("TagA").keys("k1 k2").set("UNIQ_KEY", "AABBCC");
  Call r1 = send(a, rc::SEND_MESSAGE);
  ASSERT_TRUE(r1.ok) << r1.error;
  ASSERT_EQ(r1.reply.code, code::SUCCESS) << r1.remark();
  EXPECT_EQ(r1.field("queueId"), "0");
  EXPECT_EQ(r1.field("queueOffset"), "0");
  EXPECT_EQ(r1.field("MSG_REGION"), "DefaultRegion");
  EXPECT_EQ(r1.field("TRACE_ON"), "true");
  sent.push_back(a);

  Msg b;
  b.body = std::string(3000, 'b');
  b.flag = 77;
  b.tag("TagB");
  Call r2 = send(b, rc::SEND_MESSAGE_V2);
  ASSERT_EQ(r2.reply.code, code::SUCCESS) << r2.remark();
  EXPECT_EQ(r2.field("queueOffset"), "1");
  sent.push_back(b);

  std::vector<Msg> batch(3);
  for (int i = 0; i < 3; ++i) {
    batch[i].body = "batch-" + std::to_string(i);
    batch[i].keys("bk" + std::to_string(i));
  }
  Call r3 = call(batch_request(batch));
  ASSERT_EQ(r3.reply.code, code::SUCCESS) << r3.remark();
  EXPECT_EQ(r3.field("queueOffset"), "2");
  const std::string ids = r3.field("msgId");
  EXPECT_EQ(std::count(ids.begin(), ids.end(), ','), 2) << ids;
  for (const Msg& m : batch) sent.push_back(m);

  Call p = pull(Pull{});
  ASSERT_EQ(p.reply.code, code::SUCCESS) << p.remark();
  // A pull may return fewer than are there (never other ones): nextBeginOffset follows what it
  // returned, and all_of() pulls on from there.
  EXPECT_EQ(p.field("nextBeginOffset"), std::to_string(messages_of(p.reply).size()));
  EXPECT_EQ(p.field("minOffset"), "0");
  EXPECT_EQ(p.field("maxOffset"), "5");
  EXPECT_EQ(p.field("suggestWhichBrokerId"), "0");
  const auto got = all_of("T");
  ASSERT_EQ(got.size(), sent.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(body_text(got[i]), sent[i].body);
    EXPECT_EQ(got[i].topic, "T");
    EXPECT_EQ(got[i].queue_offset.value(), static_cast<std::int64_t>(i));
    EXPECT_EQ(got[i].flag, sent[i].flag);
    for (const auto& [k, v] : sent[i].props) EXPECT_EQ(got[i].properties.get(k), std::optional<std::string_view>(v)) << k;
    EXPECT_EQ(got[i].properties.get("CLUSTER"), std::optional<std::string_view>("DefaultCluster"));
    EXPECT_EQ(got[i].born_host.to_string().substr(0, 10), node(client_node_).host().substr(0, 10));
  }
  // The reply's msgId is the offset id of the stored record.
  auto id = decode_offset_msg_id(r1.field("msgId"));
  ASSERT_TRUE(id.ok()) << r1.field("msgId");
  EXPECT_EQ(id->offset, got[0].physical_offset);
  EXPECT_EQ(id->store_host.to_string(), addr_);
  EXPECT_EQ(r1.field("msgId"), got[0].offset_msg_id);
}

TEST_F(BrokerTest, AutoCreateTakesMinOfHeaderAndTbw102AndRegistersIt) {
  boot();
  const TopicConfig* tbw = BrokerInspector(broker()).topics().find("TBW102");
  ASSERT_NE(tbw, nullptr);
  EXPECT_EQ(tbw->perm, 7);
  EXPECT_EQ(tbw->write_queue_nums, 8);
  const std::int64_t version_before = BrokerInspector(broker()).topics().data_version().counter;
  Msg m;
  m.topic = "NewTopic";
  m.queue_id = -1;  // the broker picks
  Call r = send(m);
  ASSERT_EQ(r.reply.code, code::SUCCESS) << r.remark();
  const TopicConfig* tc = BrokerInspector(broker()).topics().find("NewTopic");
  ASSERT_NE(tc, nullptr);
  EXPECT_EQ(tc->write_queue_nums, 4);  // min(4 from the header, 8)
  EXPECT_EQ(tc->read_queue_nums, 4);
  EXPECT_EQ(tc->perm, 6);
  EXPECT_LT(std::stoi(r.field("queueId")), 4);
  EXPECT_GT(BrokerInspector(broker()).topics().data_version().counter, version_before);
  // The NameServer hears about it soon.
  run_for(std::chrono::seconds(1));
  ASSERT_FALSE(names_->registrations.empty());
  const auto& last = names_->registrations.back().topic_config_serialize_wrapper;
  EXPECT_TRUE(last.topic_config_table.contains("NewTopic"));
  EXPECT_EQ(last.data_version.counter, BrokerInspector(broker()).topics().data_version().counter);
  EXPECT_TRUE(names_->crc_problems.empty());
}

TEST_F(BrokerTest, NoAutoCreateGivesTopicNotExist) {
  config_.auto_create_topic_enable = false;
  boot();
  Msg m;
  m.topic = "Unknown";
  Call r = send(m);
  EXPECT_EQ(r.reply.code, code::TOPIC_NOT_EXIST) << r.remark();
  EXPECT_EQ(BrokerInspector(broker()).topics().find("Unknown"), nullptr);
}

// Request-reply: a reply (SEND_REPLY_MESSAGE(_V2), 324/325) whose requester does not heartbeat
// here is answered SYSTEM_ERROR in RocketMQ's words, and stored on the reply topic all the same
// (storeReplyMessageEnable); one without REPLY_TO_CLIENT says so.
TEST_F(BrokerTest, AReplyForAnAbsentRequesterIsRefusedButStored) {
  boot();
  Msg reply;
  reply.topic = "DefaultCluster_REPLY_TOPIC";
  reply.queue_id = 0;
  reply.set("MSG_TYPE", "reply").set("CORRELATION_ID", "c-1").set("REPLY_TO_CLIENT", "10.9.9.9@gone").set("TTL", "3000");
  for (std::int32_t request_code : {rc::SEND_REPLY_MESSAGE, rc::SEND_REPLY_MESSAGE_V2}) {
    Call r = send(reply, request_code);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.reply.code, code::SYSTEM_ERROR) << r.remark();
    EXPECT_EQ(r.remark(), "push reply message fail, channel of 10.9.9.9@gone not found.");
  }
  const std::vector<MessageExt> stored = all_of("DefaultCluster_REPLY_TOPIC", 0);
  ASSERT_EQ(stored.size(), 2u);
  EXPECT_EQ(stored[0].properties.get("CORRELATION_ID").value_or(""), "c-1");
  EXPECT_EQ(stored[0].properties.get("CLUSTER").value_or(""), "DefaultCluster");
  Msg anonymous;
  anonymous.topic = "DefaultCluster_REPLY_TOPIC";
  anonymous.set("MSG_TYPE", "reply");
  Call r = send(anonymous, rc::SEND_REPLY_MESSAGE_V2);
  EXPECT_EQ(r.remark(), "reply message properties[REPLY_TO_CLIENT] is null");
}

TEST_F(BrokerTest, SendValidationCodes) {
  boot();
  Msg bad;
  bad.topic = "bad topic!";
  EXPECT_EQ(send(bad).reply.code, code::SYSTEM_ERROR);
  Msg sys;
  sys.topic = "TBW102";
  EXPECT_EQ(send(sys).reply.code, code::NO_PERMISSION);
  sys.topic = "SCHEDULE_TOPIC_XXXX";
  EXPECT_EQ(send(sys).reply.code, code::NO_PERMISSION);
  for (const char* topic : {"RMQ_SYS_TRANS_HALF_TOPIC", "RMQ_SYS_TRANS_OP_HALF_TOPIC", "TRANS_CHECK_MAX_TIME_TOPIC", "SELF_TEST_TOPIC",
                            "OFFSET_MOVED_EVENT"}) {
    sys.topic = topic;
    EXPECT_EQ(send(sys).reply.code, code::NO_PERMISSION) << topic;
  }
  // A client with message trace on (enableMsgTrace) sends its trace records to
  // RMQ_SYS_TRACE_TOPIC: taken (auto-created from TBW102 like any topic), as RocketMQ does.
  Msg trace;
  trace.topic = "RMQ_SYS_TRACE_TOPIC";
  trace.queue_id = 0;
  Call tr = send(trace);
  EXPECT_EQ(tr.reply.code, code::SUCCESS) << tr.remark();
  EXPECT_EQ(all_of("RMQ_SYS_TRACE_TOPIC", 0).size(), 1u);
  Msg q;
  q.queue_id = 4;  // T gets 4 queues
  Call qr = send(q);
  EXPECT_EQ(qr.reply.code, code::SYSTEM_ERROR) << qr.remark();
  EXPECT_NE(qr.remark().find("queueId"), std::string::npos) << qr.remark();
  Msg big;
  big.body = std::string(70 * 1024, 'x');  // over the 64 KiB limit of this config
  EXPECT_EQ(send(big).reply.code, code::MESSAGE_ILLEGAL);
  // Nothing of the refused ones was stored.
  Call ok = send(Msg{});
  ASSERT_EQ(ok.reply.code, code::SUCCESS);
  EXPECT_EQ(ok.field("queueOffset"), "0");
}

// With rejectTransactionMessage = true a half message is refused before anything is stored, never
// acknowledged and dropped; a prepared or rollback sysflag without TRAN_MSG always is (stored, it
// would have no queue entry).
TEST_F(BrokerTest, HalfMessagesAreRefusedNotAcknowledgedWhenRejected) {
  config_.reject_transaction_message = true;
  boot();
  Msg half;
  half.set("TRAN_MSG", "true").set("PGROUP", "PG");
  half.sys_flag = sysflag::kTransactionPreparedType;
  for (std::int32_t request_code : {rc::SEND_MESSAGE, rc::SEND_MESSAGE_V2}) {
    Call r = send(half, request_code);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.reply.code, code::NO_PERMISSION) << r.remark();
    EXPECT_NE(r.remark().find("sending transaction message is forbidden"), std::string::npos) << r.remark();
  }
  Msg by_property;  // the property alone, in any letter case, as Java's parseBoolean reads it
  by_property.set("TRAN_MSG", "TRUE");
  EXPECT_EQ(send(by_property).reply.code, code::NO_PERMISSION);
  for (std::int32_t type : {sysflag::kTransactionPreparedType, sysflag::kTransactionRollbackType}) {
    Msg flagged;  // the flag alone: stored, it would never reach a consumer
    flagged.sys_flag = type;
    EXPECT_EQ(send(flagged).reply.code, code::NO_PERMISSION) << type;
  }
  std::vector<Msg> batch(2);
  for (Msg& m : batch) m.sys_flag = sysflag::kTransactionPreparedType;
  Call b = call(batch_request(batch));
  EXPECT_EQ(b.reply.code, code::MESSAGE_ILLEGAL) << b.remark();
  // Nothing of them was stored; TRAN_MSG=false and a commit-typed record are plain sends.
  Msg not_half;
  not_half.set("TRAN_MSG", "false");
  Call ok = send(not_half);
  ASSERT_EQ(ok.reply.code, code::SUCCESS) << ok.remark();
  EXPECT_EQ(ok.field("queueOffset"), "0");
  Msg committed;
  committed.sys_flag = sysflag::kTransactionCommitType;
  Call c = send(committed);
  ASSERT_EQ(c.reply.code, code::SUCCESS) << c.remark();
  EXPECT_EQ(c.field("queueOffset"), "1");
  EXPECT_EQ(all_of("T").size(), 2u);
}

TEST_F(BrokerTest, MalformedHeadersGetAnErrorNamingTheField) {
  boot();
  RemotingCommand s = send_request(Msg{}, rc::SEND_MESSAGE_V2);
  s.ext_fields.erase("b");  // the topic
  Call r = call(s);
  EXPECT_EQ(r.reply.code, code::SYSTEM_ERROR);
  EXPECT_NE(r.remark().find("b"), std::string::npos) << r.remark();
  RemotingCommand v1 = send_request(Msg{}, rc::SEND_MESSAGE);
  v1.ext_fields.set("queueId", "zero");
  Call r1 = call(v1);
  EXPECT_EQ(r1.reply.code, code::SYSTEM_ERROR);
  EXPECT_NE(r1.remark().find("queueId"), std::string::npos) << r1.remark();
  RemotingCommand p = pull_request(Pull{});
  p.ext_fields.erase("queueOffset");
  Call pr = call_pull(p);
  EXPECT_EQ(pr.reply.code, code::SYSTEM_ERROR);
  EXPECT_NE(pr.remark().find("queueOffset"), std::string::npos) << pr.remark();
  RemotingCommand badbatch = batch_request({Msg{}});
  badbatch.body.resize(badbatch.body.size() - 1);
  Call br = call(badbatch);
  EXPECT_EQ(br.reply.code, code::MESSAGE_ILLEGAL);
  EXPECT_NE(br.remark().find("batch message 0"), std::string::npos) << br.remark();
  RemotingCommand props = send_request(Msg{});
  props.ext_fields.set("i", "novalue");
  EXPECT_EQ(call(props).reply.code, code::MESSAGE_ILLEGAL);
  // The broker still serves.
  EXPECT_EQ(send(Msg{}).reply.code, code::SUCCESS);
}

TEST_F(BrokerTest, TagFilteredPull) {
  boot();
  for (const char* t : {"TagA", "TagB", "TagA", "TagC"}) {
    Msg m;
    m.body = t;
    m.tag(t);
    ASSERT_EQ(send(m).reply.code, code::SUCCESS);
  }
  Pull p;
  p.subscription = "TagA || TagC";
  const auto got = all_of(p);  // one pull may return fewer
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].queue_offset.value(), 0);
  EXPECT_EQ(got[1].queue_offset.value(), 2);
  EXPECT_EQ(got[2].queue_offset.value(), 3);
  // A filter that matches nothing: PULL_RETRY_IMMEDIATELY, nextBeginOffset past what the pull
  // scanned (it may scan fewer than there are); following it reaches the queue's end, 4.
  Pull none;
  none.subscription = "TagZ";
  for (int i = 0; i < 8 && none.offset < 4; ++i) {
    Call n = pull(none);
    ASSERT_EQ(n.reply.code, code::PULL_RETRY_IMMEDIATELY) << n.remark();
    const std::int64_t next = std::stoll(n.field("nextBeginOffset"));
    ASSERT_GT(next, none.offset) << "the scan moved nowhere";
    none.offset = next;
  }
  EXPECT_EQ(none.offset, 4);
  Pull bad;
  bad.subscription = "||";
  EXPECT_EQ(pull(bad).reply.code, code::SUBSCRIPTION_PARSE_FAILED);
}

TEST_F(BrokerTest, TheBrokerFiltersByTagHashOnlyAsRocketMQ) {
  // "Aa" and "BB" share a Java hashCode, the ConsumeQueue's tagsCode: a broker that filters by
  // hash, as RocketMQ's does, returns both to a subscription of "Aa"; the client drops "BB" on the
  // exact tag (tests/client/push_consumer_test.cc, TagFilterDeliversOnlyExactTags). "TagA" is filtered out.
  boot();
  for (const char* t : {"Aa", "BB", "TagA", "Aa"}) {
    Msg m;
    m.body = t;
    m.tag(t);
    ASSERT_EQ(send(m).reply.code, code::SUCCESS);
  }
  Pull p;
  p.subscription = "Aa";
  const auto got = all_of(p);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].queue_offset.value(), 0);
  EXPECT_EQ(got[1].queue_offset.value(), 1);
  EXPECT_EQ(got[1].tags().value_or(""), "BB");
  EXPECT_EQ(got[2].queue_offset.value(), 3);
}

TEST_F(BrokerTest, PullStatusCodesAndOffsets) {
  boot();
  ASSERT_EQ(send(Msg{.queue_id = 3}).reply.code, code::SUCCESS);  // creates T
  // Empty queue at 0: 19; elsewhere: 21 to 0.
  Call empty = pull(Pull{});
  EXPECT_EQ(empty.reply.code, code::PULL_NOT_FOUND);
  EXPECT_EQ(empty.field("nextBeginOffset"), "0");
  Pull far;
  far.offset = 5;
  Call moved = pull(far);
  EXPECT_EQ(moved.reply.code, code::PULL_OFFSET_MOVED);
  EXPECT_EQ(moved.field("nextBeginOffset"), "0");
  for (int i = 0; i < 3; ++i) ASSERT_EQ(send(Msg{}).reply.code, code::SUCCESS);
  Pull at_max;
  at_max.offset = 3;
  Call nf = pull(at_max);
  EXPECT_EQ(nf.reply.code, code::PULL_NOT_FOUND);
  EXPECT_EQ(nf.field("nextBeginOffset"), "3");
  EXPECT_EQ(nf.field("maxOffset"), "3");
  Call over = pull(far);
  EXPECT_EQ(over.reply.code, code::PULL_OFFSET_MOVED);
  EXPECT_EQ(over.field("nextBeginOffset"), "3");
  // No subscription in the request and no heartbeats: 24.
  Pull nosub;
  nosub.subscription.reset();
  EXPECT_EQ(pull(nosub).reply.code, code::SUBSCRIPTION_NOT_EXIST);
  Pull unknown;
  unknown.topic = "Nope";
  EXPECT_EQ(pull(unknown).reply.code, code::TOPIC_NOT_EXIST);
  Pull badq;
  badq.queue_id = 9;
  EXPECT_EQ(pull(badq).reply.code, code::SYSTEM_ERROR);
}

TEST_F(BrokerTest, DelayedMessageGoesToTheScheduleTopic) {
  boot();
  Msg m;
  m.body = "later";
  m.set("DELAY", "3");
  m.queue_id = 1;
  Call r = send(m);
  ASSERT_EQ(r.reply.code, code::SUCCESS) << r.remark();
  EXPECT_EQ(r.field("queueId"), "1");
  Pull p;
  p.topic = "SCHEDULE_TOPIC_XXXX";
  p.queue_id = 2;  // level 3
  Call got = pull(p);
  ASSERT_EQ(got.reply.code, code::SUCCESS) << got.remark();
  const auto msgs = messages_of(got.reply);
  ASSERT_EQ(msgs.size(), 1u);
  EXPECT_EQ(msgs[0].properties.get("REAL_TOPIC"), std::optional<std::string_view>("T"));
  EXPECT_EQ(msgs[0].properties.get("REAL_QID"), std::optional<std::string_view>("1"));
  // The ConsumeQueue's tagsCode is the delivery time: store time + 10 s.
  auto unit = broker().store().find_queue("SCHEDULE_TOPIC_XXXX", QueueId(2))->read(QueueOffset(0));
  ASSERT_TRUE(unit.ok());
  EXPECT_EQ(unit->tags_code, msgs[0].store_timestamp_ms + 10'000);
  // Nothing reached T itself before it was due. (The pull above may have taken past the due time
  // - a reply may come late, up to the call's timeout - and the message then is in T, stored no
  // earlier than due.)
  const std::int64_t due = unit->tags_code;
  Call in_t = pull(Pull{.queue_id = 1});
  if (in_t.reply.code != code::PULL_NOT_FOUND) {
    ASSERT_EQ(in_t.reply.code, code::SUCCESS) << in_t.remark();
    for (const MessageExt& delivered : messages_of(in_t.reply)) {
      EXPECT_GE(delivered.store_timestamp_ms, due) << "T got \"" << body_text(delivered) << "\" before it was due";
    }
  }
}

TEST_F(BrokerTest, QueryByKeyAndViewById) {
  boot();
  Msg m;
  m.keys("order-1 order-2");
  m.body = "findme";
  Call s = send(m);
  ASSERT_EQ(s.reply.code, code::SUCCESS);
  RemotingCommand q = remoting::make_request(rc::QUERY_MESSAGE, 0);
  q.ext_fields = remoting::ExtFields{{"topic", "T"}, {"key", "order-2"}, {"maxNum", "32"}, {"beginTimestamp", "0"},
                                     {"endTimestamp", "9223372036854775807"}};
  Call qr = call(q);
  ASSERT_EQ(qr.reply.code, code::SUCCESS) << qr.remark();
  auto found = messages_of(qr.reply);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(body_text(found[0]), "findme");
  q.ext_fields.set("key", "order-3");
  EXPECT_EQ(call(q).reply.code, code::QUERY_NOT_FOUND);

  auto id = decode_offset_msg_id(s.field("msgId"));
  ASSERT_TRUE(id.ok());
  Call vr = call(view_request(id->offset.value()));
  ASSERT_EQ(vr.reply.code, code::SUCCESS) << vr.remark();
  auto viewed = messages_of(vr.reply);
  ASSERT_EQ(viewed.size(), 1u);
  EXPECT_EQ(body_text(viewed[0]), "findme");
  EXPECT_EQ(call(view_request(999'999)).reply.code, code::SYSTEM_ERROR);
}

}  // namespace
}  // namespace ferry::broker::testing
