// Hostile and oversized requests (issue "Hardening"): each is answered with a clear code and
// remark, costs the broker no more than a bound, stores nothing, and the broker keeps serving.
#include <fmt/format.h>

#include "tests/broker/broker_fixture.h"

namespace ferry::broker::testing {
namespace {

// `count` distinct short keys with empty values: "k0\x01\x02k1\x01\x02...".
std::string many_keys(std::size_t count) {
  std::string text;
  for (std::size_t i = 0; i < count; ++i) text += fmt::format("k{}\x01\x02", i);
  return text;
}

RemotingCommand send_with_properties_text(std::string text, std::int32_t request_code) {
  remoting::SendMessageRequestHeader h = send_header(Msg{});
  h.properties = std::move(text);
  RemotingCommand r = remoting::make_request(request_code, 0);
  r.ext_fields = request_code == rc::SEND_MESSAGE ? h.to_fields() : h.to_fields_v2();
  const std::string body = "hello";
  r.body.assign(body.begin(), body.end());
  return r;
}

TEST_F(BrokerTest, PropertiesOverTheRecordLimitAreRefusedBeforeTheyAreParsed) {
  boot();
  std::string huge = many_keys(140'000);  // over 1 MiB of distinct keys
  ASSERT_GT(huge.size(), std::size_t{1} << 20);
  const std::string expected = fmt::format("properties of {} bytes (max 32767)", huge.size());
  for (std::int32_t request_code : {rc::SEND_MESSAGE, rc::SEND_MESSAGE_V2}) {
    Call c = call(send_with_properties_text(huge, request_code));
    EXPECT_EQ(c.reply.code, code::MESSAGE_ILLEGAL) << "request code " << request_code << ": " << c.remark();
    EXPECT_EQ(c.remark(), expected) << "request code " << request_code;
  }
  // The same bound on a batch's own properties field.
  RemotingCommand batch = batch_request({Msg{}, Msg{}});
  remoting::SendMessageRequestHeader h = send_header(Msg{});
  h.batch = true;
  h.properties = huge;
  batch.ext_fields = h.to_fields_v2();
  Call b = call(std::move(batch));
  EXPECT_EQ(b.reply.code, code::MESSAGE_ILLEGAL) << b.remark();
  EXPECT_EQ(b.remark(), expected);

  // Nothing was stored, and the broker goes on serving.
  Pull p;
  Call empty = pull(p);
  EXPECT_TRUE(messages_of(empty.reply).empty());
  ASSERT_EQ(send(Msg{}).reply.code, code::SUCCESS);
  Call one = pull(p);
  ASSERT_EQ(one.reply.code, code::SUCCESS) << one.remark();
  EXPECT_EQ(messages_of(one.reply).size(), 1u);
}

TEST_F(BrokerTest, ManyKeysWithinTheLimitAreStoredAndReadBackInOrder) {
  boot();
  Msg m;
  for (int i = 0; i < 4'000; ++i) m.set(fmt::format("k{}", i), "v");  // about 31 KB of properties
  std::string text = *encode_properties(m.props);
  ASSERT_LT(text.size(), 32'000u) << "the test's message must fit a record with the broker's CLUSTER";
  ASSERT_EQ(send(m).reply.code, code::SUCCESS);
  Pull p;
  Call c = pull(p);
  ASSERT_EQ(c.reply.code, code::SUCCESS) << c.remark();
  std::vector<MessageExt> got = messages_of(c.reply);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].properties.get("k0"), "v");
  EXPECT_EQ(got[0].properties.get("k3999"), "v");
  EXPECT_EQ(got[0].properties.size(), m.props.size() + 1) << "every key, and the broker's CLUSTER";
}

}  // namespace
}  // namespace ferry::broker::testing
