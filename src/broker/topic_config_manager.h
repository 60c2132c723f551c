// TopicConfigManager: the broker's topics (RocketMQ's TopicConfigManager).
//
// Holds every topic's queue counts and permission, ordered by name, with a DataVersion whose
// counter bumps on every change (the NameServer re-reads routes only for a new version).
// Persisted in `{config_dir}/topics.json` through a JsonStateFile (docs/broker.md, "Metadata files"):
//   {"dataVersion":{"counter":N,"timestamp":ms},"topicConfigTable":{"T":{...TopicConfig...}}}
//
// System topics are added at load() when missing (not counted as changes): SELF_TEST_TOPIC,
// TBW102 (perm 7, default_topic_queue_nums queues) when auto-creation is on, the cluster-name and
// broker-name topics, OFFSET_MOVED_EVENT, SCHEDULE_TOPIC_XXXX (18 queues, one per delay level)
// and `{cluster}_REPLY_TOPIC`.
//
// Every change (put, remove, an auto-create) bumps the version, starts a background persist and
// calls the change listener (the registrar re-registers with the NameServers). Persist failures
// are logged; the table in memory stays authoritative and the next change or persist retries.
//
// Threading: the node's loop. Pointers returned by find() are valid until the next change.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "broker/broker_config.h"
#include "broker/json_state_file.h"
#include "broker/metadata_json.h"
#include "remoting/body/register_broker_body.h"
#include "remoting/body/topic_config.h"
#include "runtime/log_limiter.h"

namespace ferry::broker {

using TopicConfig = remoting::body::TopicConfig;
using DataVersion = remoting::body::DataVersion;
using TopicTable = NamedTable<TopicConfig>;

inline constexpr std::string_view kTopicsFileName = "topics.json";

class TopicConfigManager {
 public:
  TopicConfigManager(Runtime& rt, const BrokerConfig& config);

  // Loads topics.json (falling back to topics.json.bak) and adds missing system topics.
  // Errors: corrupt (both files unusable; the detail names them).
  Status load();

  const TopicConfig* find(std::string_view topic) const;
  const TopicTable& table() const { return state_.table; }
  // Background writes of topics.json so far (changes are coalesced; see json_state_file.h).
  std::uint64_t background_writes() const { return file_.background_writes(); }
  const DataVersion& data_version() const { return state_.version; }
  // What REGISTER_BROKER carries.
  remoting::body::TopicConfigSerializeWrapper snapshot() const;

  // Creates or replaces `config` (UPDATE_AND_CREATE_TOPIC). Counts as a change. Errors (busy,
  // nothing changes): the topic is new and the table holds config.topics_max topics.
  Status put(TopicConfig config);
  // Removes a topic; false when it did not exist. Counts as a change when it did.
  bool remove(std::string_view topic);
  // A slave takes its master's table (SlaveSync, RocketMQ's syncTopicConfig): `table` replaces
  // every topic and `version` becomes the data version as it is (not bumped), so the next sync
  // sees the versions equal. Starts a background persist; calls no change listener (the
  // periodic registration carries the table). Errors (busy, nothing changes): more than
  // config.topics_max topics.
  Status replace_all(TopicTable table, DataVersion version);

  // SEND's auto-creation (RocketMQ createTopicInSendMessageMethod): the topic if it exists;
  // otherwise a new topic copied from `default_topic` when that exists and has the inherit bit
  // (with auto-creation off, TBW102 never passes on its permission): queue count
  // min(client_queue_nums, default's write queues), perm = default's perm without inherit.
  // nullptr when it cannot be created (a queue count <= 0 counts as "cannot").
  const TopicConfig* create_in_send(std::string_view topic, std::string_view default_topic,
                                    std::int32_t client_queue_nums, std::int32_t topic_sys_flag);

  // Writes topics.json now (after waiting for a write in progress). Success = durable.
  Task<Status> persist();
  // A new dataVersion without a change (a promoted slave re-announces its topics as the master's).
  void touch() { changed(); }
  // The same, with the version's state_version set (controller mode: the master epoch).
  void touch(std::int64_t state_version) {
    state_.version.state_version = state_version;
    changed();
  }

  void set_change_listener(std::function<void()> fn) { on_change_ = std::move(fn); }

  // The JSON form, and its parser (which names what is wrong).
  static std::string encode(const TopicTable& table, const DataVersion& version);
  static Status decode(std::string_view text, TopicTable& table, DataVersion& version);

 private:
  void add_system_topics();
  void add_if_missing(std::string name, std::int32_t queues, std::int32_t perm);
  void changed();

  Runtime& rt_;
  const BrokerConfig& config_;
  VersionedTable<TopicConfig> state_;
  JsonStateFile<VersionedTable<TopicConfig>> file_;  // after state_: refers to it
  std::function<void()> on_change_;
  // Auto-creation lines (a client can send to new topic names at will): refusals by cause
  // (1..3 in create_in_send, 100 + Errc when put fails).
  LogLimiter create_refusal_log_;
};

}  // namespace ferry::broker
