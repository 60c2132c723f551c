// The CommitLog record format: constants. Prose spec with a worked example: docs/commitlog-format.md.
// Writer: record_writer.h. Reader: record_reader.h.
//
// A record (all integers big-endian, sizes in bytes):
//   TOTALSIZE 4 | MAGICCODE 4 | BODYCRC 4 | QUEUEID 4 | FLAG 4 | QUEUEOFFSET 8 | PHYSICALOFFSET 8 |
//   SYSFLAG 4 | BORNTIMESTAMP 8 | BORNHOST 8 or 20 | STORETIMESTAMP 8 | STOREHOST 8 or 20 |
//   RECONSUMETIMES 4 | PREPAREDTRANSACTIONOFFSET 8 | BODYLEN 4 | BODY | TOPICLEN 1 | TOPIC |
//   PROPERTIESLEN 2 | PROPERTIES
// A file ends with a BLANK marker `TOTALSIZE (= bytes left in the file) | 0xcbd43194` when the
// next record plus 8 does not fit.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ferry::record {

inline constexpr std::uint32_t kMessageMagic = 0xdaa320a7;
inline constexpr std::uint32_t kBlankMagic = 0xcbd43194;

// Field sizes.
inline constexpr std::size_t kTotalSizeBytes = 4;
inline constexpr std::size_t kMagicBytes = 4;
inline constexpr std::size_t kBodyCrcBytes = 4;
inline constexpr std::size_t kQueueIdBytes = 4;
inline constexpr std::size_t kFlagBytes = 4;
inline constexpr std::size_t kQueueOffsetBytes = 8;
inline constexpr std::size_t kPhysicalOffsetBytes = 8;
inline constexpr std::size_t kSysFlagBytes = 4;
inline constexpr std::size_t kBornTimestampBytes = 8;
inline constexpr std::size_t kPortBytes = 4;
inline constexpr std::size_t kIpv4Bytes = 4;
inline constexpr std::size_t kIpv6Bytes = 16;
inline constexpr std::size_t kHostV4Bytes = kIpv4Bytes + kPortBytes;
inline constexpr std::size_t kHostV6Bytes = kIpv6Bytes + kPortBytes;
inline constexpr std::size_t kStoreTimestampBytes = 8;
inline constexpr std::size_t kReconsumeTimesBytes = 4;
inline constexpr std::size_t kPreparedTransactionOffsetBytes = 8;
inline constexpr std::size_t kBodyLengthBytes = 4;
inline constexpr std::size_t kTopicLengthBytes = 1;
inline constexpr std::size_t kPropertiesLengthBytes = 2;

// Positions of the fields before the born host (the same for every record).
inline constexpr std::size_t kTotalSizePos = 0;
inline constexpr std::size_t kMagicPos = kTotalSizePos + kTotalSizeBytes;
inline constexpr std::size_t kBodyCrcPos = kMagicPos + kMagicBytes;
inline constexpr std::size_t kQueueIdPos = kBodyCrcPos + kBodyCrcBytes;
inline constexpr std::size_t kFlagPos = kQueueIdPos + kQueueIdBytes;
inline constexpr std::size_t kQueueOffsetPos = kFlagPos + kFlagBytes;
inline constexpr std::size_t kPhysicalOffsetPos = kQueueOffsetPos + kQueueOffsetBytes;
inline constexpr std::size_t kSysFlagPos = kPhysicalOffsetPos + kPhysicalOffsetBytes;
inline constexpr std::size_t kBornTimestampPos = kSysFlagPos + kSysFlagBytes;
inline constexpr std::size_t kBornHostPos = kBornTimestampPos + kBornTimestampBytes;

// Fixed bytes of a record besides its two hosts and the body, topic and properties contents.
inline constexpr std::size_t kFixedBytesWithoutHosts =
    kTotalSizeBytes + kMagicBytes + kBodyCrcBytes + kQueueIdBytes + kFlagBytes +
    kQueueOffsetBytes + kPhysicalOffsetBytes + kSysFlagBytes + kBornTimestampBytes +
    kStoreTimestampBytes + kReconsumeTimesBytes + kPreparedTransactionOffsetBytes +
    kBodyLengthBytes + kTopicLengthBytes + kPropertiesLengthBytes;

// The smallest record: IPv4 hosts, empty body, topic and properties.
inline constexpr std::size_t kMinRecordBytes = kFixedBytesWithoutHosts + 2 * kHostV4Bytes;

// The BLANK end-of-file marker, and the bytes every file keeps free for it.
inline constexpr std::size_t kBlankBytes = kTotalSizeBytes + kMagicBytes;
inline constexpr std::size_t kEndOfFileReserveBytes = kBlankBytes;

// Limits of the length fields.
inline constexpr std::size_t kTopicBytesMax = 127;         // i8 length
inline constexpr std::size_t kPropertiesBytesMax = 32767;  // i16 length
// RocketMQ's default maxMessageSize (4 MiB), used as the reader's default record size limit.
inline constexpr std::size_t kDefaultRecordBytesMax = 4 * 1024 * 1024;

// Total size of a record with the given host kinds and contents.
constexpr std::size_t record_size(bool born_v6, bool store_v6, std::size_t body_bytes,
                                  std::size_t topic_bytes, std::size_t properties_bytes) {
  return kFixedBytesWithoutHosts + (born_v6 ? kHostV6Bytes : kHostV4Bytes) +
         (store_v6 ? kHostV6Bytes : kHostV4Bytes) + body_bytes + topic_bytes + properties_bytes;
}

static_assert(kBornHostPos == 48, "the born host starts at byte 48 in RocketMQ's layout");
static_assert(kFixedBytesWithoutHosts == 75);
static_assert(kMinRecordBytes == 91, "an empty record with IPv4 hosts is 91 bytes");
static_assert(kHostV6Bytes - kHostV4Bytes == 12);
static_assert(record_size(true, true, 0, 0, 0) == kMinRecordBytes + 24);
static_assert(kTopicBytesMax == 0x7f && kPropertiesBytesMax == 0x7fff);
static_assert(kBlankBytes == 8 && kEndOfFileReserveBytes == kBlankBytes);
static_assert(kMinRecordBytes > kBlankBytes, "a record can never be mistaken for a blank's size");

}  // namespace ferry::record
