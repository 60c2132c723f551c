// StoreConfig: every knob of the store, with RocketMQ 4.9's defaults. Units are in the names.
#pragma once

#include <cstdint>
#include <string>

#include "common/host_port.h"
#include "common/record_format.h"
#include "runtime/time.h"
#include "store/consume_queue_format.h"
#include "store/index_file.h"
#include "store/recover_mode.h"

namespace ferry::store {

enum class FlushMode : std::uint8_t { async_flush, sync_flush };

struct StoreConfig {
  // Directory (relative to the node's data root) holding commitlog/, consumequeue/, index/,
  // checkpoint, abort.
  std::string root = "store";
  std::int64_t commit_log_file_size_bytes = std::int64_t{1} << 30;  // 1 GiB
  std::int64_t consume_queue_units_per_file = cq::kDefaultUnitsPerFile;
  IndexGeometry index_geometry;
  // Largest message (RocketMQ maxMessageSize): bodies and whole records above it are refused
  // with message_illegal. A CommitLog file must hold one such record plus the BLANK marker.
  std::int64_t message_size_max_bytes = 4 * 1024 * 1024;
  std::size_t index_query_results_max = 64;  // maxMsgsNumBatch

  // Pull batching (maxTransferBytesOnMessageInMemory / CountOnMessageInMemory) and the number
  // of ConsumeQueue bytes one pull may scan while filtering (maxFilterMessageCount).
  std::int64_t pull_transfer_bytes_max = 256 * 1024;
  std::int32_t pull_transfer_count_max = 32;
  std::int64_t pull_filter_bytes_max = 16'000;  // ConsumeQueue bytes (800 units), or max_count * 20

  // The broker's address, stored in every record and in msgIds.
  HostPort store_host = HostPort::v4(127, 0, 0, 1, 10911);

  // Flush (step "flush" of docs/store.md).
  FlushMode flush_mode = FlushMode::async_flush;
  Duration async_flush_interval = std::chrono::milliseconds(500);   // flushIntervalCommitLog
  std::int32_t async_flush_pages_min = 4;                           // flushCommitLogLeastPages
  Duration async_flush_thorough_interval = std::chrono::seconds(10);  // flushCommitLogThoroughInterval
  std::int64_t page_size_bytes = 4096;
  Duration sync_flush_timeout = std::chrono::seconds(5);            // syncFlushTimeout
  Duration consume_queue_flush_interval = std::chrono::seconds(1);  // flushIntervalConsumeQueue

  // Cleanup (cleanup_service.h). Ratios are percent of the disk holding the store.
  Duration clean_resource_interval = std::chrono::seconds(10);  // cleanResourceInterval
  Duration file_reserved_time = std::chrono::hours(72);         // fileReservedTime
  std::string delete_when = "04";  // deleteWhen: UTC hours, ';'-separated ("04;16")
  std::int32_t disk_max_used_space_ratio_pct = 75;       // diskMaxUsedSpaceRatio
  std::int32_t disk_space_clean_forcibly_ratio_pct = 85;  // diskSpaceCleanForciblyRatio
  std::int32_t disk_space_warning_level_ratio_pct = 90;   // diskSpaceWarningLevelRatio: puts refused
  std::int32_t delete_files_batch_max = 10;              // DELETE_FILES_BATCH_MAX per pass

  // Create and reserve the next CommitLog file (File::allocate) in a spawned task as soon as a
  // file is started, so that a roll-over finds it ready (AllocateMappedFileService).
  bool commit_log_preallocate = true;

  // What recovery does with a bad CommitLog record that has good data after it (recover_mode.h;
  // broker.conf recoverMode, mqbroker --recover). A torn tail is cut whatever this says.
  RecoverMode recover_mode = RecoverMode::abort;
};

}  // namespace ferry::store
