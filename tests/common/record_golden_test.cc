// Golden tests of the CommitLog record codec against stored_records.jsonl, records built
// independently of Ferry (see the vectors README): decode each record and check every field the
// vector spells out; re-encode from the vector's fields (not from our decode) and compare bytes.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>
#include <vector>

#include "common/crc.h"
#include "common/host_port.h"
#include "common/message_decoder.h"
#include "common/msg_id.h"
#include "common/properties.h"
#include "common/record_reader.h"
#include "common/record_writer.h"
#include "common/sys_flag.h"
#include "tests/support/vectors.h"

namespace ferry {
namespace {

struct Vector {
  rapidjson::Document doc;
  std::vector<std::uint8_t> bytes;
};

std::vector<Vector> load_vectors() {
  std::vector<Vector> out;
  for (const std::string& line : test::read_vector_lines("stored_records.jsonl")) {
    Vector v;
    v.doc.Parse(line.c_str(), line.size());
    EXPECT_FALSE(v.doc.HasParseError()) << line;
    if (v.doc.HasParseError()) continue;
    if (!v.doc.IsObject() || !v.doc.HasMember("recordHex") || !v.doc["recordHex"].IsString()) {
      ADD_FAILURE() << "a stored_records.jsonl line has no recordHex string: " << line;
      continue;
    }
    v.bytes = test::from_hex(v.doc["recordHex"].GetString());
    out.push_back(std::move(v));
  }
  return out;
}

// Every test starts from the three records; a missing or short fixture file fails here, before a
// test indexes into it.
class RecordGolden : public ::testing::Test {
 protected:
  void SetUp() override {
    vectors_ = load_vectors();
    ASSERT_EQ(vectors_.size(), 3u) << "stored_records.jsonl should hold 3 records";
  }
  std::vector<Vector> vectors_;
};

std::string str(const rapidjson::Value& v) { return {v.GetString(), v.GetStringLength()}; }

HostPort host(const rapidjson::Value& v) {
  auto h = HostPort::parse(str(v));
  EXPECT_TRUE(h.ok()) << str(v);
  return h.value_or(HostPort{});
}

Properties props_of(const rapidjson::Value& obj) {
  Properties p;
  for (const auto& m : obj.GetObject()) p.set(str(m.name), str(m.value));
  return p;
}

TEST_F(RecordGolden, DecodesEveryField) {
  for (const Vector& v : vectors_) {
    const auto& d = v.doc;
    SCOPED_TRACE(str(d["topic"]));
    RecordRead r = decode_record(v.bytes, {.check_crc = true});
    ASSERT_EQ(r.kind, RecordKind::message) << r.detail;
    EXPECT_EQ(r.size_bytes, v.bytes.size());
    const RecordFields& f = r.fields;
    EXPECT_EQ(f.topic, str(d["topic"]));
    EXPECT_EQ(f.queue_id, QueueId(d["queueId"].GetInt()));
    EXPECT_EQ(f.queue_offset, QueueOffset(d["queueOffset"].GetInt64()));
    EXPECT_EQ(f.physical_offset, PhysicalOffset(d["physicalOffset"].GetInt64()));
    EXPECT_EQ(as_text(f.body), str(d["bodyUtf8"]));
    EXPECT_EQ(f.body_crc, d["bodyCrc"].GetInt());
    EXPECT_EQ(body_crc(f.body), d["bodyCrc"].GetInt());
    EXPECT_EQ(f.reconsume_times, d["reconsumeTimes"].GetInt());
    EXPECT_EQ(f.born_timestamp_ms, d["bornTimestamp"].GetInt64());
    EXPECT_EQ(f.store_timestamp_ms, d["storeTimestamp"].GetInt64());
    EXPECT_EQ(f.born_host.to_string(), str(d["bornHost"]));
    EXPECT_EQ(f.store_host.to_string(), str(d["storeHost"]));
    EXPECT_EQ(f.sys_flag, 0);
    EXPECT_EQ(f.flag, 0);
    EXPECT_EQ(f.prepared_transaction_offset, 0);

    auto props = decode_properties(f.properties);
    ASSERT_TRUE(props.ok()) << props.error().to_string();
    EXPECT_EQ(*props, props_of(d["properties"]));  // same entries in the same order

    auto ext = to_message_ext(f, r.size_bytes);
    ASSERT_TRUE(ext.ok()) << ext.error().to_string();
    EXPECT_EQ(ext->offset_msg_id, str(d["offsetMsgId"]));
    EXPECT_EQ(ext->store_size, static_cast<std::int32_t>(v.bytes.size()));
    auto id = decode_offset_msg_id(str(d["offsetMsgId"]));
    ASSERT_TRUE(id.ok());
    EXPECT_EQ(id->store_host, host(d["storeHost"]));
    EXPECT_EQ(id->offset, PhysicalOffset(d["physicalOffset"].GetInt64()));
    if (d["properties"].HasMember("UNIQ_KEY")) {
      EXPECT_EQ(ext->msg_id(), str(d["properties"]["UNIQ_KEY"]));
    } else {
      EXPECT_EQ(ext->msg_id(), str(d["offsetMsgId"]));
    }
  }
}

TEST_F(RecordGolden, ReencodesFromVectorFieldsByteForByte) {
  for (const Vector& v : vectors_) {
    const auto& d = v.doc;
    SCOPED_TRACE(str(d["topic"]));
    // Built from the JSON fields only. flag, sysFlag and preparedTransactionOffset are not
    // spelled out in the vectors; they are 0 in every record.
    std::string topic = str(d["topic"]);
    std::string body = str(d["bodyUtf8"]);
    auto props = encode_properties(props_of(d["properties"]));
    ASSERT_TRUE(props.ok());
    RecordFields f;
    f.body = as_bytes(body);
    f.body_crc = body_crc(f.body);
    f.queue_id = QueueId(d["queueId"].GetInt());
    f.queue_offset = QueueOffset(d["queueOffset"].GetInt64());
    f.physical_offset = PhysicalOffset(d["physicalOffset"].GetInt64());
    f.born_timestamp_ms = d["bornTimestamp"].GetInt64();
    f.born_host = host(d["bornHost"]);
    f.store_timestamp_ms = d["storeTimestamp"].GetInt64();
    f.store_host = host(d["storeHost"]);
    f.sys_flag = with_host_flags(0, f.born_host, f.store_host);
    f.reconsume_times = d["reconsumeTimes"].GetInt();
    f.topic = topic;
    f.properties = *props;
    EXPECT_EQ(f.body_crc, d["bodyCrc"].GetInt());

    auto size = record_size(f);
    ASSERT_TRUE(size.ok()) << size.error().to_string();
    ASSERT_EQ(*size, v.bytes.size());
    std::vector<std::uint8_t> out(*size + 5, 0xEE);  // a larger buffer: writes exactly `size`
    EXPECT_EQ(encode_record(f, out), *size);
    EXPECT_EQ(std::vector<std::uint8_t>(out.begin(), out.begin() + static_cast<long>(*size)),
              v.bytes);
    EXPECT_EQ(out[*size], 0xEE);
  }
}

TEST_F(RecordGolden, PullReplyOfConcatenatedRecords) {
  const auto& vectors = vectors_;
  std::vector<std::uint8_t> reply;
  for (const Vector& v : vectors) reply.insert(reply.end(), v.bytes.begin(), v.bytes.end());
  auto msgs = decode_messages(reply, {.check_crc = true});
  ASSERT_TRUE(msgs.ok()) << msgs.error().to_string();
  ASSERT_EQ(msgs->size(), vectors.size());
  for (std::size_t i = 0; i < vectors.size(); ++i) {
    EXPECT_EQ((*msgs)[i].topic, str(vectors[i].doc["topic"]));
    EXPECT_EQ((*msgs)[i].offset_msg_id, str(vectors[i].doc["offsetMsgId"]));
  }
  // A reply cut inside its last record is an error naming that record.
  reply.pop_back();
  auto cut = decode_messages(reply, {});
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error().code, Errc::corrupt);
  EXPECT_NE(cut.error().detail.find("record 2"), std::string::npos) << cut.error().detail;
  EXPECT_NE(cut.error().detail.find("torn"), std::string::npos) << cut.error().detail;
}

TEST_F(RecordGolden, MessagesMaxBoundsAReply) {
  const auto& vectors = vectors_;
  std::vector<std::uint8_t> reply;
  for (const Vector& v : vectors) reply.insert(reply.end(), v.bytes.begin(), v.bytes.end());
  auto msgs = decode_messages(reply, {.messages_max = 2});
  ASSERT_FALSE(msgs.ok());
  EXPECT_EQ(msgs.error().code, Errc::invalid_argument);
}

}  // namespace
}  // namespace ferry
