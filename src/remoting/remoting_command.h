// RemotingCommand: one request or reply of RocketMQ's remoting protocol, decoded.
//
// A command is a plain value: it owns its remark, fields and body. frame_codec.h turns it into
// frame bytes and back; header/ and body/ turn extFields and bodies into typed structs.
//
// A command being sent may also carry body_views: stored records (a pull reply's messages) that
// follow `body` on the wire, written from the mapped files by the same gather write that sends
// the header, never copied. A decoded command has its whole body in `body`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "remoting/ext_fields.h"
#include "remoting/frame_format.h"
#include "remoting/language_code.h"
#include "runtime/file_system.h"

namespace ferry::remoting {

// What Ferry puts in the language/version of the commands it creates. Java peers only log them.
// 407 is the version the reference vectors carry (a RocketMQ 4.9-series MQVersion ordinal).
inline constexpr LanguageCode kFerryLanguage = LanguageCode::JAVA;
inline constexpr std::int32_t kFerryVersion = 407;

struct RemotingCommand {
  std::int32_t code = 0;  // a request_code:: for requests, a response_code:: for replies
  LanguageCode language = kFerryLanguage;
  // The sender's version. The binary header carries it (and `code`) as int16: encoding a command
  // whose code or version does not fit int16 in that form is a bug (asserted).
  std::int32_t version = kFerryVersion;
  std::int32_t opaque = 0;  // request id; a reply echoes its request's
  std::int32_t flag = 0;    // kFlagResponse | kFlagOneway
  // Absent (JSON null) or a string. The binary form cannot tell "" from absent: both decode as
  // absent.
  std::optional<std::string> remark;
  ExtFields ext_fields;
  // The extFields in the binary header's wire form (int16 keyLen | key | int32 valueLen | value,
  // repeated), instead of `ext_fields`: kept by a receiver that decodes the typed header straight
  // from them (header_binary.h: read_binary_header's raw_requests, HeaderTable::decode_binary),
  // or written by a sender that encoded its typed header straight into them
  // (HeaderTable::encode_binary). At most one of the two is non-empty; code that reads the map
  // calls materialize_ext_fields() first (the RPC layer does before a request guard or an
  // outgoing hook, and the JSON header writer on its own copy).
  std::vector<std::uint8_t> raw_ext_fields;
  std::vector<std::uint8_t> body;
  // The rest of the body, after `body`, as views pinning file ranges (see above).
  std::vector<FileView> body_views;
  // The header serialization this command arrived in / will be sent in.
  SerializeType serialize_type = SerializeType::json;
  // Not on the wire: a processor sets it on its reply when it held the request before answering
  // (a long poll). The RPC layer reports it to its request observer (rpc_peer.h; the
  // rocketmq_rpc_latency metric's is_long_polling label).
  bool suspended = false;

  // The body's length on the wire: `body` and every view.
  std::size_t body_size() const {
    std::size_t n = body.size();
    for (const FileView& v : body_views) n += v.size();
    return n;
  }
  // The whole body in one owned buffer (copies the views; tests and rare paths).
  std::vector<std::uint8_t> body_bytes() const;

  bool is_response() const { return (flag & kFlagResponse) != 0; }
  bool is_oneway() const { return (flag & kFlagOneway) != 0; }
  void mark_response() { flag |= kFlagResponse; }
  void mark_oneway() { flag |= kFlagOneway; }

  bool operator==(const RemotingCommand&) const = default;
};

// A request with `code` and `opaque` (the caller allocates request ids), Ferry's language and
// version, no fields and no body.
RemotingCommand make_request(std::int32_t code, std::int32_t opaque,
                             SerializeType type = SerializeType::json);

// The reply to `request`: same opaque and serialize type, the response flag set (the oneway bit
// is not copied), `code` and `remark`, no fields and no body.
RemotingCommand make_response(const RemotingCommand& request, std::int32_t code,
                              std::optional<std::string> remark = std::nullopt);

}  // namespace ferry::remoting
