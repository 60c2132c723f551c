// The two header serializations on their own: what the JSON reader tolerates, what both readers
// refuse (with the reason in the text), and the command helpers.
#include <gtest/gtest.h>

#include <string>

#include "common/big_endian.h"
#include "remoting/header_binary.h"
#include "remoting/header_json.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"

namespace ferry::remoting {
namespace {

void expect_json_error(std::string_view text, std::string_view reason) {
  auto r = read_json_header(text);
  ASSERT_FALSE(r.ok()) << text;
  EXPECT_EQ(r.error().code, Errc::corrupt);
  EXPECT_NE(r.error().detail.find(reason), std::string::npos) << r.error().detail;
}

TEST(JsonHeader, AnyKeyOrderUnknownKeysAndNullRemark) {
  auto r = read_json_header(
      R"({"extFields":{"topic":"T"},"serializeTypeCurrentRPC":"JSON","flag":3,"opaque":-9,)"
      R"("version":395,"language":"GO","remark":null,"code":105})");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->code, 105);
  EXPECT_EQ(r->language, LanguageCode::GO);
  EXPECT_EQ(r->version, 395);
  EXPECT_EQ(r->opaque, -9);
  EXPECT_EQ(r->flag, 3);
  EXPECT_TRUE(r->is_response());
  EXPECT_TRUE(r->is_oneway());
  EXPECT_FALSE(r->remark.has_value());
  EXPECT_EQ(r->ext_fields, (ExtFields{{"topic", "T"}}));
}

TEST(JsonHeader, RawNumbersAndBooleansInExtFieldsKeepTheirText) {
  auto r = read_json_header(
      R"({"code":11,"extFields":{"queueId":0,"commitOffset":-1,"g":1795991228539,)"
      R"("k":false,"t":true,"d":1.5e3,"n":null,"s":"x"}})");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const ExtFields expected{{"queueId", "0"}, {"commitOffset", "-1"}, {"g", "1795991228539"},
                           {"k", "false"},   {"t", "true"},        {"d", "1.5e3"},
                           {"s", "x"}};
  EXPECT_EQ(r->ext_fields, expected) << "a null value is dropped";
}

TEST(JsonHeader, DefaultsForMissingOptionalMembers) {
  auto r = read_json_header(R"({"code":0})");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->language, LanguageCode::JAVA);
  EXPECT_EQ(r->version, 0);
  EXPECT_EQ(r->opaque, 0);
  EXPECT_TRUE(r->ext_fields.empty());
  EXPECT_TRUE(read_json_header(R"({"code":0,"extFields":null,"remark":"why"})").ok());
  EXPECT_EQ(read_json_header(R"({"code":0,"remark":"why"})")->remark, "why");
}

TEST(JsonHeader, LanguageByNumberAndQuotedNumbers) {
  auto r = read_json_header(R"({"code":"310","language":12,"opaque":"7"})");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->code, 310);
  EXPECT_EQ(r->language, LanguageCode::RUST);
  EXPECT_EQ(r->opaque, 7);
}

TEST(JsonHeader, Refusals) {
  expect_json_error(R"({"code":1)", "malformed JSON");
  expect_json_error(R"({"code":1} trailing)", "malformed JSON");
  expect_json_error(R"([1,2])", "root is not an object");
  expect_json_error(R"({"opaque":1})", "missing code");
  expect_json_error(R"({"code":1.5})", "code is not an int32");
  expect_json_error(R"({"code":4294967296})", "code is not an int32");
  expect_json_error(R"({"code":true})", "code is not an int32");
  expect_json_error(R"({"code":1,"language":"COBOL"})", "unknown language \"COBOL\"");
  expect_json_error(R"({"code":1,"language":99})", "unknown language \"99\"");
  expect_json_error(R"({"code":1,"remark":{}})", "remark is not a string");
  expect_json_error(R"({"code":1,"extFields":[1]})", "extFields is not an object");
  expect_json_error(R"({"code":1,"extFields":{"a":{"b":1}}})", "extFields value of \"a\"");
  expect_json_error(std::string(100, '[') + std::string(100, ']'), "nesting deeper than 64");
  expect_json_error(std::string("{\"code\":1}\0", 11), "NUL byte");
}

TEST(JsonHeader, TooManyExtFields) {
  std::string text = R"({"code":1,"extFields":{)";
  for (std::size_t i = 0; i <= kExtFieldsMax; ++i) {
    if (i > 0) text += ',';
    text += "\"k";
    text += std::to_string(i);
    text += "\":\"v\"";
  }
  text += "}}";
  expect_json_error(text, "more than 1024 extFields");
}

TEST(JsonHeader, WriterEscapesAndKeepsBytes) {
  RemotingCommand c = make_request(10, 1);
  using namespace std::string_literals;
  c.remark = "quote\" back\\ nl\n nul\0 é"s;
  c.ext_fields.set("k", std::string("\x01\x02", 2));
  std::vector<std::uint8_t> out;
  write_json_header(c, out);
  const std::string text(out.begin(), out.end());
  EXPECT_NE(text.find(R"("k":"\u0001\u0002")"), std::string::npos) << text;
  auto back = read_json_header(text);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(back->remark, c.remark);
  EXPECT_EQ(back->ext_fields, c.ext_fields);
}

// ---- binary ----------------------------------------------------------------

std::vector<std::uint8_t> binary_header(const RemotingCommand& c) {
  std::vector<std::uint8_t> out;
  write_binary_header(c, out);
  return out;
}

void expect_binary_error(const std::vector<std::uint8_t>& h, std::string_view reason) {
  auto r = read_binary_header(h);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::corrupt);
  EXPECT_NE(r.error().detail.find(reason), std::string::npos) << r.error().detail;
}

TEST(BinaryHeader, LayoutOfASmallHeader) {
  RemotingCommand c = make_request(request_code::GET_ROUTEINFO_BY_TOPIC, 0x01020304,
                                   SerializeType::rocketmq);
  c.language = LanguageCode::CPP;
  c.version = 0x0102;
  c.flag = kFlagOneway;
  c.remark = "r";
  c.ext_fields.set("topic", "T");
  const std::vector<std::uint8_t> expected = {
      0x00, 0x69,              // code 105
      0x01,                    // CPP
      0x01, 0x02,              // version
      0x01, 0x02, 0x03, 0x04,  // opaque
      0x00, 0x00, 0x00, 0x02,  // flag: oneway
      0x00, 0x00, 0x00, 0x01, 'r',
      0x00, 0x00, 0x00, 0x0c,  // extFields: 2 + 5 ("topic") + 4 + 1 ("T") = 12
      0x00, 0x05, 't', 'o', 'p', 'i', 'c', 0x00, 0x00, 0x00, 0x01, 'T'};
  EXPECT_EQ(binary_header(c), expected);
  auto back = read_binary_header(expected);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(*back, c);
}

TEST(BinaryHeader, EmptyRemarkReadsAsAbsent) {
  RemotingCommand c = make_request(1, 1, SerializeType::rocketmq);
  c.remark = "";
  auto back = read_binary_header(binary_header(c));
  ASSERT_TRUE(back.ok());
  EXPECT_FALSE(back->remark.has_value());
}

TEST(BinaryHeader, NegativeCodeAndVersionSurvive) {
  RemotingCommand c = make_request(-2, 1, SerializeType::rocketmq);
  c.version = -1;
  auto back = read_binary_header(binary_header(c));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->code, -2);
  EXPECT_EQ(back->version, -1);
}

TEST(BinaryHeader, Refusals) {
  RemotingCommand c = make_request(1, 1, SerializeType::rocketmq);
  c.remark = "rr";
  c.ext_fields.set("key", "value");
  const auto good = binary_header(c);
  ASSERT_TRUE(read_binary_header(good).ok());

  expect_binary_error({0, 1, 0}, "shorter than the 13-byte fixed part");
  auto h = good;
  h[2] = 13;
  expect_binary_error(h, "unknown language code 13");

  h = good;  // remark length negative
  store_be32(h.data() + 13, 0x80000000u);
  expect_binary_error(h, "negative remark length");
  h = good;  // remark length beyond the header
  store_be32(h.data() + 13, 1000);
  expect_binary_error(h, "remark length 1000 exceeds");

  h = std::vector<std::uint8_t>(good.begin(), good.begin() + 19);  // cut inside extFields length
  expect_binary_error(h, "truncated before the extFields length");
  h = good;  // extFields length disagrees with what follows
  store_be32(h.data() + 19, 3);
  expect_binary_error(h, "extFields length 3 but");
  h = good;
  h.pop_back();  // value cut short
  store_be32(h.data() + 19, static_cast<std::uint32_t>(h.size() - 23));
  expect_binary_error(h, "extFields value (key \"key\") length 5 exceeds");
  h = good;  // negative key length
  h[23] = 0x80;
  expect_binary_error(h, "negative extFields key length");
  h = good;  // key length beyond the header
  h[24] = 0x7F;
  expect_binary_error(h, "extFields key length 127 exceeds");
}

TEST(BinaryHeader, TooManyExtFields) {
  RemotingCommand c = make_request(1, 1, SerializeType::rocketmq);
  for (std::size_t i = 0; i <= kExtFieldsMax; ++i) c.ext_fields.set(std::to_string(i), "");
  expect_binary_error(binary_header(c), "more than 1024 extFields");
}

// ---- command helpers ------------------------------------------------------------

TEST(RemotingCommand, ResponseEchoesOpaqueAndSerializeType) {
  RemotingCommand req = make_request(request_code::PULL_MESSAGE, 77, SerializeType::rocketmq);
  req.mark_oneway();
  req.ext_fields.set("topic", "T");
  EXPECT_TRUE(req.is_oneway());
  EXPECT_FALSE(req.is_response());
  const RemotingCommand resp = make_response(req, response_code::PULL_NOT_FOUND, "no message");
  EXPECT_EQ(resp.opaque, 77);
  EXPECT_EQ(resp.code, response_code::PULL_NOT_FOUND);
  EXPECT_EQ(resp.serialize_type, SerializeType::rocketmq);
  EXPECT_TRUE(resp.is_response());
  EXPECT_FALSE(resp.is_oneway());
  EXPECT_EQ(resp.remark, "no message");
  EXPECT_TRUE(resp.ext_fields.empty());
}

TEST(Codes, NamesAndNumbers) {
  EXPECT_EQ(request_code::name(request_code::SEND_MESSAGE_V2), "SEND_MESSAGE_V2");
  EXPECT_EQ(request_code::name(206), "GET_ALL_TOPIC_LIST_FROM_NAMESERVER");
  EXPECT_EQ(request_code::name(9999), "");
  EXPECT_EQ(request_code::name(1002), "CONTROLLER_ELECT_MASTER");
  EXPECT_EQ(response_code::name(2000), "CONTROLLER_FENCED_MASTER_EPOCH");
  EXPECT_EQ(response_code::name(2016), "CONTROLLER_BROKER_LIVE_INFO_NOT_EXISTS");
  EXPECT_EQ(response_code::name(26), "SUBSCRIPTION_GROUP_NOT_EXIST");
  EXPECT_EQ(response_code::REQUEST_CODE_NOT_SUPPORTED, 3);
  for (int i = 0; i <= kLanguageCodeMax; ++i) {
    const auto lang = language_from_code(i);
    ASSERT_TRUE(lang.has_value());
    EXPECT_EQ(language_from_name(language_name(*lang)), lang);
  }
  EXPECT_EQ(language_name(LanguageCode::RUST), "RUST");
  EXPECT_EQ(static_cast<int>(LanguageCode::OMS), 11);
  EXPECT_FALSE(language_from_code(13).has_value());
}

TEST(ExtFieldsMap, InsertionOrderAndReplaceInPlace) {
  ExtFields f;
  f.set("b", "1");
  f.set("a", "2");
  f.set("b", "3");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f.begin()->first, "b");
  EXPECT_EQ(*f.find("b"), "3");
  EXPECT_EQ(f.find("c"), nullptr);
  EXPECT_TRUE(f.same_entries(ExtFields{{"a", "2"}, {"b", "3"}}));
  EXPECT_FALSE(f == (ExtFields{{"a", "2"}, {"b", "3"}}));
  EXPECT_TRUE(f.erase("b"));
  EXPECT_FALSE(f.erase("b"));
  EXPECT_EQ(f.size(), 1u);
}

}  // namespace
}  // namespace ferry::remoting
