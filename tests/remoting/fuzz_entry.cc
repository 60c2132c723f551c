#include "tests/remoting/fuzz_entry.h"

#include <algorithm>
#include <span>
#include <string_view>

#include "remoting/body/broker_live_table.h"
#include "remoting/body/epoch_acks.h"
#include "remoting/body/cluster_info.h"
#include "remoting/body/consumer_id_list.h"
#include "remoting/body/heartbeat_data.h"
#include "remoting/body/lock_batch_body.h"
#include "remoting/body/register_broker_body.h"
#include "remoting/body/topic_list.h"
#include "remoting/body/topic_route_data.h"
#include "remoting/frame_codec.h"
#include "remoting/frame_decoder.h"
#include "remoting/header/pull_message_header.h"
#include "remoting/header/send_message_header.h"
#include "remoting/header_binary.h"
#include "remoting/header_json.h"
#include "remoting/request_code.h"
#include "runtime/assert.h"

namespace ferry::remoting::testing {
namespace {

constexpr std::size_t kFuzzFrameBytesMax = 1 << 20;

// A decoded command must survive encode → decode unchanged.
void check_round_trip(const RemotingCommand& cmd) {
  auto frame = encode_frame(cmd);
  FERRY_ASSERT(frame.ok(), "re-encoding a decoded command failed: {}", frame.error().to_string());
  auto back = decode_frame(*frame);
  FERRY_ASSERT(back.ok(), "decoding a re-encoded command failed: {}", back.error().to_string());
  FERRY_ASSERT(*back == cmd, "round trip changed the command (code {}, opaque {})", cmd.code,
               cmd.opaque);
}

template <typename Header, typename Encode>
int try_header(Result<Header> (*decode)(const ExtFields&), Encode encode, const ExtFields& fields) {
  auto h = decode(fields);
  if (!h) return 0;
  auto again = decode(encode(*h));
  FERRY_ASSERT(again.ok() && *again == *h, "typed header round trip failed");
  return 1;
}

template <typename Body>
int try_body(std::span<const std::uint8_t> bytes) {
  auto b = Body::decode(bytes);
  if (!b) return 0;
  const auto encoded = b->encode();
  auto again = Body::decode(encoded);
  FERRY_ASSERT(again.ok(), "body round trip failed: {}", again.error().to_string());
  FERRY_ASSERT(*again == *b, "body round trip changed the value");
  return 1;
}

int try_bodies(std::span<const std::uint8_t> bytes) {
  return try_body<body::HeartbeatData>(bytes) + try_body<body::TopicRouteData>(bytes) +
         try_body<body::RegisterBrokerBody>(bytes) + try_body<body::ClusterInfo>(bytes) +
         try_body<body::TopicList>(bytes) + try_body<body::ConsumerIdList>(bytes) +
         try_body<body::LockBatchRequestBody>(bytes) + try_body<body::LockBatchResponseBody>(bytes) +
         try_body<body::BrokerLiveTable>(bytes) + try_body<body::EpochAcks>(bytes);
}

int on_command(const RemotingCommand& cmd) {
  check_round_trip(cmd);
  // The broker decodes a send header by moving its strings out of the request it owns, and the
  // client encodes one by moving them in: both must mean what the copying forms mean.
  const auto by_copy = SendMessageRequestHeader::from_fields_v2(cmd.ext_fields);
  const auto by_move = SendMessageRequestHeader::from_request(request_code::SEND_MESSAGE_V2, ExtFields(cmd.ext_fields));
  FERRY_ASSERT(by_copy.ok() == by_move.ok() && (!by_copy.ok() || *by_copy == *by_move),
               "moving send header decode disagrees with the copying one");
  if (by_copy.ok()) {
    SendMessageRequestHeader given_up = *by_copy;
    FERRY_ASSERT(std::move(given_up).to_fields_v2() == by_copy->to_fields_v2(),
                 "moving send header encode disagrees with the copying one");
  }
  return 1 +
         try_header(&SendMessageRequestHeader::from_fields_v2,
                    [](const SendMessageRequestHeader& h) { return h.to_fields_v2(); }, cmd.ext_fields) +
         try_header(&PullMessageRequestHeader::from_fields,
                    [](const PullMessageRequestHeader& h) { return h.to_fields(); }, cmd.ext_fields) +
         try_bodies(cmd.body);
}

// The broker keeps a send's binary extFields raw and decodes its header straight from them
// (read_binary_header's raw_requests, HeaderTable::decode_binary); the client encodes its header
// straight into that form (encode_binary). Both must mean what the map forms mean.
void check_raw_fields(Bytes header, const RemotingCommand& mapped) {
  const std::int32_t code = mapped.code;
  auto raw = read_binary_header(header, std::span<const std::int32_t>(&code, 1));
  FERRY_ASSERT(raw.ok(), "a header read with the map fails raw: {}", raw.error().to_string());
  RemotingCommand back = *raw;
  FERRY_ASSERT(materialize_ext_fields(back).ok() && back == mapped, "raw extFields read back to another command");
  if (raw->raw_ext_fields.empty()) return;  // a reply, no fields, or more than kExtFieldsMax
  const Bytes entries(raw->raw_ext_fields.data(), raw->raw_ext_fields.size());
  const auto from_raw = SendMessageRequestHeader::from_request_binary(request_code::SEND_MESSAGE_V2, entries);
  const auto from_map = SendMessageRequestHeader::from_fields_v2(mapped.ext_fields);
  FERRY_ASSERT(from_raw.ok() == from_map.ok(), "raw send header decode {} where the map's {}", from_raw.ok() ? "passes" : "fails",
               from_map.ok() ? "passes" : "fails");
  if (!from_map.ok()) {
    FERRY_ASSERT(from_raw.error().to_string() == from_map.error().to_string(), "raw decode says '{}', the map's '{}'",
                 from_raw.error().to_string(), from_map.error().to_string());
    return;
  }
  FERRY_ASSERT(*from_raw == *from_map, "raw send header decode disagrees with the map's");
  std::vector<std::uint8_t> encoded;
  from_map->to_binary_v2(encoded);
  auto reread = read_binary_ext_fields(Bytes(encoded.data(), encoded.size()));
  FERRY_ASSERT(reread.ok() && *reread == from_map->to_fields_v2(), "binary send header encode disagrees with the map's");
  const auto pull_raw = PullMessageRequestHeader::fields().decode_binary(entries);
  const auto pull_map = PullMessageRequestHeader::from_fields(mapped.ext_fields);
  FERRY_ASSERT(pull_raw.ok() == pull_map.ok() && (!pull_raw.ok() || *pull_raw == *pull_map),
               "raw pull header decode disagrees with the map's");
}

}  // namespace

int fuzz_one_input(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> in(data, size);
  int decoded = 0;

  if (auto cmd = decode_frame(in, kFuzzFrameBytesMax)) decoded += on_command(*cmd);

  // The stream decoder, fed in pieces whose sizes come from the input itself.
  FrameDecoder decoder(kFuzzFrameBytesMax);
  std::size_t pos = 0;
  std::size_t step = size > 0 ? 1 + data[0] % 17 : 1;
  while (pos < size && !decoder.failed()) {
    const std::size_t n = std::min(step, size - pos);
    if (!decoder.feed(in.subspan(pos, n)).ok()) break;
    pos += n;
    step = 1 + (step * 7 + n) % 23;
    while (true) {
      auto next = decoder.next();
      if (!next || !*next) break;
      decoded += on_command(**next);
    }
  }

  // The header readers and the body readers on the raw bytes.
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto cmd = read_json_header(text)) {
    check_round_trip(*cmd);
    ++decoded;
  }
  if (auto cmd = read_binary_header(in)) {
    check_round_trip(*cmd);
    check_raw_fields(in, *cmd);
    ++decoded;
  }
  decoded += try_bodies(in);
  return decoded;
}

}  // namespace ferry::remoting::testing
