// BrokerInspector: the tests' one door into a Broker's insides.
//
// The Broker's own surface is what an operator or another component needs: its lifecycle, its
// configuration, and read-only views of its store, committed offsets, registrar and statistics
// (src/broker/broker.h). What only tests look at — the topic table, the consumer services, the
// slave's metadata copy, replication, long polling, the RPC server — is reached through this
// class, read-only. A few things a test must do to a broker that no request can are here too,
// each named for what it is for; there is no general mutable access.
//
//   BrokerInspector b(broker());
//   BrokerInspector b(broker());
//   EXPECT_NE(b.topics().find("T"), nullptr);
//   EXPECT_EQ(b.consumer_services().locks().lock_count(), 3u);
//
// Holds a reference: the Broker must outlive it. Same thread as the Broker (its node's loop).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "broker/broker.h"

namespace ferry::testing {

class BrokerInspector {
 public:
  explicit BrokerInspector(broker::Broker& b) : b_(b) {}

  // ---- read-only views ----
  const store::MessageStore& store() const { return b_.store_; }
  const broker::TopicConfigManager& topics() const { return b_.topics_; }
  const broker::ConsumerOffsetManager& offsets() const { return b_.offsets_; }
  const broker::ConsumerServices& consumer_services() const { return b_.consumer_services_; }
  const broker::SlaveSync& slave_sync() const { return b_.slave_sync_; }
  const broker::PullHoldService& hold() const { return b_.hold_; }
  const broker::PopService& pop() const { return b_.pop_; }
  void put_group(broker::SubscriptionGroupConfig g) { b_.consumer_services_.groups().put(std::move(g)); }
  const broker::NameServerRegistrar& registrar() const { return b_.registrar_; }
  const store::ha::HaMaster& ha_master() const { return b_.ha_master_; }
  const store::ha::HaSlave& ha_slave() const { return b_.ha_slave_; }
  const remoting::RpcServer& server() const { return b_.server_; }

  // Messages of a queue as a pull would read them (a store read draws buggify's dice, so it is
  // not a const view).
  store::GetMessageResult get_messages(const std::string& topic, QueueId queue, QueueOffset offset, std::int32_t max_count) {
    return b_.store_.get_messages(topic, queue, offset, max_count, nullptr);
  }

  // ---- what a test drives where no request can ----
  // A slave refuses UPDATE_AND_CREATE_TOPIC: a test creates a topic on it directly, or puts a
  // topic config no admin tool would send.
  Status put_topic(remoting::body::TopicConfig t) { return b_.topics_.put(std::move(t)); }
  // A slave's log is written by replication only: a test seeds it with a record directly.
  store::PutResult put_message(const store::PutRequest& r) { return b_.store_.put_message(r); }
  // Looks at the disk now instead of at the next cleanup tick.
  store::DiskPressure refresh_disk() { return b_.store_.refresh_disk(); }
  // Starts the next CommitLog file now.
  Status roll_commit_log() { return b_.store_.commit_log().roll(); }
  // Commits an offset as a processor would (a test's own processor standing in for the broker's).
  Status commit_offset(const std::string& group, const std::string& topic, QueueId queue, QueueOffset offset) {
    return b_.offsets_.commit(group, topic, queue, offset);
  }
  // Replaces the hook the registrar calls when the master's address changes (the Broker's wakes
  // the slave's metadata copy): a test watches the changes itself.
  void set_on_master_changed(std::function<void()> hook) { b_.registrar_.set_on_master_changed(std::move(hook)); }
  // The slave's metadata copy, driven by hand: the master changed, copying on or off, a master's
  // table applied now.
  void slave_master_changed() { b_.slave_sync_.master_changed(); }
  void set_slave_sync_enabled(bool on) { b_.slave_sync_.set_enabled(on); }
  Result<bool> apply_slave_sync(broker::SlaveSync::Part part, std::string_view body) {
    return b_.slave_sync_.apply(part, body);
  }

 private:
  broker::Broker& b_;
};

}  // namespace ferry::testing
