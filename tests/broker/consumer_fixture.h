// Helpers for the consumer-side broker tests: extra client nodes (each its own connection, so
// its own consumer registration) that record NOTIFY_CONSUMER_IDS_CHANGED. The heartbeat,
// send-back and lock requests are the test kit's (tests/support/requests.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tests/broker/broker_fixture.h"
#include "remoting/body/body_json.h"
#include "remoting/body/consumer_id_list.h"
#include "remoting/body/heartbeat_data.h"
#include "remoting/body/lock_batch_body.h"
#include "remoting/header/client_header.h"

namespace ferry::broker::testing {

// The consumer's requests (tests/support/requests.h).
using ferry::testing::consumer_heartbeat, ferry::testing::heartbeat_request, ferry::testing::consumer_list_request,
    ferry::testing::send_back_request, ferry::testing::lock_request;

// What one client node saw from the broker.
struct ClientLog {
  std::vector<std::string> notified_groups;  // consumerGroup of each NOTIFY, in order
  std::vector<bool> notify_oneway;
};

inline Task<std::optional<RemotingCommand>> record_notify(std::shared_ptr<ClientLog> log, remoting::RequestContext ctx) {
  auto h = remoting::NotifyConsumerIdsChangedRequestHeader::from_fields(ctx.request.ext_fields);
  log->notified_groups.push_back(h ? h->consumer_group : "<bad header>");
  log->notify_oneway.push_back(ctx.request.is_oneway());
  co_return std::nullopt;
}

struct TestClient {
  std::string client_id;
  sim::NodeId node{};
  std::unique_ptr<remoting::RpcClient> rpc;
  std::shared_ptr<ClientLog> log = std::make_shared<ClientLog>();
};

class ConsumerTest : public BrokerTest {
 protected:
  TestClient& add_client(const std::string& client_id) {
    auto c = std::make_unique<TestClient>();
    c->client_id = client_id;
    c->node = cluster().add_bare("client-" + client_id);
    c->rpc = std::make_unique<remoting::RpcClient>(node(c->node));
    auto log = c->log;
    c->rpc->register_processor(rc::NOTIFY_CONSUMER_IDS_CHANGED,
                               [log](remoting::RequestContext ctx) { return record_notify(log, std::move(ctx)); });
    clients_.push_back(std::move(c));
    return *clients_.back();
  }

  Call call_from(TestClient& c, RemotingCommand req, Duration timeout = std::chrono::seconds(5)) {
    return outcome(cluster().run_task(c.node, invoke(c.rpc.get(), addr_, std::move(req), timeout), std::chrono::seconds(60)));
  }

  void reconnect_clients() override {
    BrokerTest::reconnect_clients();
    for (auto& c : clients_) c->rpc->close_channel(addr_);
  }

  Call heartbeat(TestClient& c, const std::string& group, const std::string& topic = "T", const std::string& sub = "*",
                 std::int64_t sub_version = 100) {
    return call_from(c, heartbeat_request(consumer_heartbeat(c.client_id, group, topic, sub, sub_version)));
  }

  std::vector<std::string> consumer_list(const std::string& group) {
    Call c = call(consumer_list_request(group));
    if (c.reply.code != code::SUCCESS) return {};
    auto list = remoting::body::ConsumerIdList::decode(c.reply.body);
    EXPECT_TRUE(list.ok());
    return list.ok() ? list->consumer_id_list : std::vector<std::string>{};
  }

  void TearDown() override {
    for (auto& c : clients_) c->rpc->shutdown();
    clients_.clear();
    BrokerTest::TearDown();
  }

  std::vector<std::unique_ptr<TestClient>> clients_;
};

}  // namespace ferry::broker::testing
