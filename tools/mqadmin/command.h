// One mqadmin subcommand: its name, a one-line summary, its flags (besides the common -n and
// -h, which every subcommand accepts) and the function that runs it.
//
// A run function gets the parsed flags and a session on the NameServers of -n; it prints its
// result to stdout and returns the exit code: 0 on success, 1 on failure (after printing
// "mqadmin SUB: what failed" to stderr with fail()). Bad flag values are usage errors (exit 2,
// usage_error()), reported before anything is sent.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cli/flags.h"
#include "runtime/result.h"
#include "cli/admin_calls.h"
#include "cli/admin_session.h"

namespace ferry::mqadmin {

// Every subcommand is declared by its flags and runs on what they parsed to (src/cli).
using cli::FlagSpec;
using cli::ParsedFlags;
// ... against the cluster through the admin session and calls the tools share (src/cli).
using cli::AdminSession;
using cli::BrokerTarget;
using cli::broker_stats_data;
using cli::call_broker;
using cli::consume_stats;
using cli::consumer_connection;
using cli::describe;
using cli::producer_connection;
using cli::resolve_brokers;
using cli::time_text;
using cli::topic_consumed_by;
using cli::topic_masters;
using cli::topic_stats;

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;

struct Command {
  std::string_view name;
  std::string_view summary;
  std::vector<FlagSpec> flags;
  int (*run)(const ParsedFlags& flags, AdminSession& session);
};

// Every subcommand, in the order `mqadmin --help` lists them.
const std::vector<Command>& all_commands();

// Prints "mqadmin SUB: <detail>" to stderr; returns kExitFailed.
int fail(std::string_view command, const Error& error);
int fail(std::string_view command, std::string_view message);
// Prints "mqadmin SUB: <detail>" and "run 'mqadmin SUB --help'" to stderr; returns kExitUsage.
int usage_error(std::string_view command, std::string_view message);

// The subcommands (one file each).
Command update_topic_command();
Command delete_topic_command();
Command topic_list_command();
Command topic_route_command();
Command topic_status_command();
Command cluster_list_command();
Command consumer_progress_command();
Command query_msg_by_id_command();
Command query_msg_by_key_command();
Command query_msg_trace_by_id_command();
Command query_msg_by_offset_command();
Command send_message_command();
Command consume_message_command();
Command broker_status_command();
Command reset_offset_by_time_command();
Command update_sub_group_command();
Command ha_status_command();
Command promote_slave_command();
Command consumer_connection_command();
Command producer_connection_command();
Command delete_sub_group_command();
Command wipe_write_perm_command();
Command add_write_perm_command();
Command update_broker_config_command();
Command get_broker_config_command();
Command update_namesrv_config_command();
Command get_namesrv_config_command();
Command consumer_status_command();
Command clean_expired_cq_command();
Command print_msg_command();
Command stats_all_command();
Command broker_consume_stats_command();
Command get_controller_metadata_command();
Command get_sync_state_set_command();
Command get_broker_epoch_command();
Command elect_master_command();
Command clean_broker_metadata_command();
Command get_controller_config_command();
Command update_controller_config_command();

}  // namespace ferry::mqadmin
