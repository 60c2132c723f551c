#include <fmt/format.h>

#include <cstdio>

#include "tools/mqadmin/command.h"

namespace ferry::mqadmin {

const std::vector<Command>& all_commands() {
  static const std::vector<Command> commands = {
      update_topic_command(),     delete_topic_command(),        topic_list_command(),
      topic_route_command(),      topic_status_command(),        cluster_list_command(),
      consumer_progress_command(), query_msg_by_id_command(),    query_msg_by_key_command(),  query_msg_trace_by_id_command(),
      query_msg_by_offset_command(), send_message_command(),     consume_message_command(),
      broker_status_command(),    update_sub_group_command(),    reset_offset_by_time_command(),
      ha_status_command(),        promote_slave_command(),
      // Admin statistics and permissions (RocketMQ's verb names).
      consumer_connection_command(), producer_connection_command(), delete_sub_group_command(),
      wipe_write_perm_command(),  add_write_perm_command(),     update_broker_config_command(),
      get_broker_config_command(), update_namesrv_config_command(), get_namesrv_config_command(),
      consumer_status_command(),  clean_expired_cq_command(),   print_msg_command(),
      stats_all_command(),        broker_consume_stats_command(),
      // Controller mode (RocketMQ 5).
      get_controller_metadata_command(), get_sync_state_set_command(), elect_master_command(),
      clean_broker_metadata_command(), get_controller_config_command(), update_controller_config_command(),
      get_broker_epoch_command(),
  };
  return commands;
}

int fail(std::string_view command, const Error& error) { return fail(command, error.to_string()); }

int fail(std::string_view command, std::string_view message) {
  std::fputs(fmt::format("mqadmin {}: {}\n", command, message).c_str(), stderr);
  return kExitFailed;
}

int usage_error(std::string_view command, std::string_view message) {
  std::fputs(fmt::format("mqadmin {}: {}\nrun 'mqadmin {} --help' for its flags\n", command, message, command).c_str(), stderr);
  return kExitUsage;
}

}  // namespace ferry::mqadmin
