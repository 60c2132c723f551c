#include "store/store_results.h"

namespace ferry::store {

std::string_view put_status_name(PutStatus s) {
  switch (s) {
    case PutStatus::ok: return "PUT_OK";
    case PutStatus::flush_disk_timeout: return "FLUSH_DISK_TIMEOUT";
    case PutStatus::service_not_available: return "SERVICE_NOT_AVAILABLE";
    case PutStatus::create_mapped_file_failed: return "CREATE_MAPEDFILE_FAILED";
    case PutStatus::message_illegal: return "MESSAGE_ILLEGAL";
    case PutStatus::properties_size_exceeded: return "PROPERTIES_SIZE_EXCEEDED";
    case PutStatus::flush_slave_timeout: return "FLUSH_SLAVE_TIMEOUT";
    case PutStatus::slave_not_available: return "SLAVE_NOT_AVAILABLE";
  }
  return "UNKNOWN";
}

std::string_view get_status_name(GetStatus s) {
  switch (s) {
    case GetStatus::found: return "FOUND";
    case GetStatus::no_matched_message: return "NO_MATCHED_MESSAGE";
    case GetStatus::message_was_removing: return "MESSAGE_WAS_REMOVING";
    case GetStatus::offset_found_null: return "OFFSET_FOUND_NULL";
    case GetStatus::offset_overflow_badly: return "OFFSET_OVERFLOW_BADLY";
    case GetStatus::offset_overflow_one: return "OFFSET_OVERFLOW_ONE";
    case GetStatus::offset_too_small: return "OFFSET_TOO_SMALL";
    case GetStatus::no_matched_logic_queue: return "NO_MATCHED_LOGIC_QUEUE";
    case GetStatus::no_message_in_queue: return "NO_MESSAGE_IN_QUEUE";
  }
  return "UNKNOWN";
}

}  // namespace ferry::store
