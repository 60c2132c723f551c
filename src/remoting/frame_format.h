// The remoting frame: constants of RocketMQ's wire format (docs/remoting-format.md has the prose
// spec and a worked example; frame_codec.h writes and reads it).
//
//   int32 totalLen | int32 markedHeaderLen | header bytes | body bytes      (big-endian)
//
//   totalLen        = 4 + headerLen + bodyLen (everything after the totalLen field)
//   markedHeaderLen = serializeType << 24 | headerLen       (headerLen uses the low 24 bits)
#pragma once

#include <cstddef>
#include <cstdint>

namespace ferry::remoting {

// How the header is serialized; a reply uses its request's type.
enum class SerializeType : std::uint8_t {
  json = 0,      // RocketMQ "JSON"
  rocketmq = 1,  // RocketMQ "ROCKETMQ" binary header
};

inline constexpr std::size_t kLengthFieldBytes = 4;        // totalLen
inline constexpr std::size_t kMarkedHeaderLenBytes = 4;    // serializeType | headerLen
inline constexpr std::size_t kFramePrefixBytes = kLengthFieldBytes + kMarkedHeaderLenBytes;
inline constexpr unsigned kSerializeTypeShift = 24;
inline constexpr std::uint32_t kHeaderLenMask = 0x00FF'FFFF;
inline constexpr std::size_t kHeaderBytesMax = kHeaderLenMask;  // what 24 bits can say

// The default (and RocketMQ's) largest frame, counting the totalLen field itself, as Netty's
// LengthFieldBasedFrameDecoder(16 MiB, 0, 4, 0, 4) does in RocketMQ's NettyDecoder.
inline constexpr std::size_t kFrameBytesMaxDefault = 16 * 1024 * 1024;

// The default largest header a decoder accepts (Ferry's bound; RocketMQ has none below the frame's
// 16 MiB). The biggest header a RocketMQ client sends is a send's: its properties are at most
// 32,767 bytes (the stored record's int16 length), at most 6 bytes each once JSON-escaped
// ("\u0001"), plus a few hundred bytes of other fields. 256 KiB holds that with room, and a
// decoder refuses a larger one from its 8 prefix bytes, before buffering or parsing it (a 3 MiB
// JSON header took ~30 ms of the loop to parse before the properties' length was checked).
inline constexpr std::size_t kHeaderBytesMaxDefault = 256 * 1024;

// Flag bits of RemotingCommand::flag.
inline constexpr std::int32_t kFlagResponse = 1 << 0;
inline constexpr std::int32_t kFlagOneway = 1 << 1;

// ROCKETMQ binary header: the fixed part before remark and extFields.
//   int16 code, int8 language, int16 version, int32 opaque, int32 flag
inline constexpr std::size_t kBinaryFixedBytes = 2 + 1 + 2 + 4 + 4;
//   int32 remarkLen (+ bytes), int32 extFieldsLen (+ entries)
inline constexpr std::size_t kBinaryHeaderMinBytes = kBinaryFixedBytes + 4 + 4;
//   each extFields entry: int16 keyLen, key, int32 valueLen, value
inline constexpr std::size_t kBinaryExtEntryMinBytes = 2 + 4;

static_assert(kFramePrefixBytes == 8, "totalLen and markedHeaderLen are two int32");
static_assert(kBinaryFixedBytes == 13, "code(2) language(1) version(2) opaque(4) flag(4)");
static_assert(kBinaryHeaderMinBytes == 21, "fixed part plus the two int32 lengths");
static_assert((kHeaderLenMask >> kSerializeTypeShift) == 0, "headerLen and type do not overlap");
static_assert(kFrameBytesMaxDefault <= 0x7FFF'FFFF, "totalLen is a signed int32");
static_assert(kHeaderBytesMaxDefault >= 6 * 32'767 + 4096, "a send's properties, every byte escaped, fit");
static_assert(kHeaderBytesMaxDefault <= kHeaderBytesMax, "headerLen has 24 bits");

}  // namespace ferry::remoting
