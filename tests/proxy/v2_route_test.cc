// QueryRoute's answer (src/proxy/v2_route.h) and the statuses of proxy answers (v2_status.h), as
// RocketMQ 5.3's proxy in cluster mode gives them.
#include "proxy/v2_route.h"

#include <gtest/gtest.h>

#include "client/client_errors.h"
#include "proxy/v2_status.h"

namespace ferry::proxy {
namespace {

namespace body = remoting::body;

v2::QueryRouteRequest request(std::string topic = "T") {
  v2::QueryRouteRequest r;
  r.mutable_topic()->set_name(topic);
  r.mutable_endpoints()->set_scheme(v2::IPv4);
  v2::Address& a = *r.mutable_endpoints()->add_addresses();
  a.set_host("10.0.0.5");
  a.set_port(18081);
  return r;
}

body::TopicRouteData route() {
  body::TopicRouteData r;
  r.queue_datas.push_back(body::QueueData{"broker-a", 4, 4, 6, 0});
  r.queue_datas.push_back(body::QueueData{"broker-b", 2, 3, 6, 0});  // one more write queue than read
  body::BrokerData a;
  a.cluster = "DefaultCluster";
  a.broker_name = "broker-a";
  a.broker_addrs = {{0, "10.0.0.11:10911"}, {1, "10.0.0.12:10911"}};
  body::BrokerData b;
  b.cluster = "DefaultCluster";
  b.broker_name = "broker-b";
  b.broker_addrs = {{0, "10.0.0.13:10911"}};
  r.broker_datas = {a, b};
  return r;
}

TEST(V2Route, QueuesPerBrokerIdWithTheClientsOwnEndpoints) {
  const v2::QueryRouteResponse r = route_response(request(), route(), TopicMessageType::normal, RouteOptions{});
  EXPECT_EQ(r.status().code(), v2::OK);
  EXPECT_EQ(r.status().message(), "OK");
  // broker-a: 4 read-write queues for the master and for the slave; broker-b: one write-only, two read-write.
  ASSERT_EQ(r.message_queues_size(), 4 + 4 + 3);
  const v2::MessageQueue& first = r.message_queues(0);
  EXPECT_EQ(first.topic().name(), "T");
  EXPECT_EQ(first.id(), 0);
  EXPECT_EQ(first.permission(), v2::READ_WRITE);
  EXPECT_EQ(first.broker().name(), "broker-a");
  EXPECT_EQ(first.broker().id(), 0);
  ASSERT_EQ(first.broker().endpoints().addresses_size(), 1);
  EXPECT_EQ(first.broker().endpoints().addresses(0).host(), "10.0.0.5");
  EXPECT_EQ(first.broker().endpoints().addresses(0).port(), 8081) << "the proxy's gRPC port, not the request's";
  ASSERT_EQ(first.accept_message_types_size(), 1);
  EXPECT_EQ(first.accept_message_types(0), v2::NORMAL);
  EXPECT_EQ(r.message_queues(4).broker().id(), 1) << "the slave too, numbered from 0 again";
  EXPECT_EQ(r.message_queues(4).id(), 0);
  const v2::MessageQueue& b0 = r.message_queues(8);
  EXPECT_EQ(b0.broker().name(), "broker-b");
  EXPECT_EQ(b0.id(), 0);
  EXPECT_EQ(b0.permission(), v2::WRITE) << "write-only queues before the read-write ones";
  EXPECT_EQ(r.message_queues(9).permission(), v2::READ_WRITE);
  EXPECT_EQ(r.message_queues(10).id(), 2);

  RouteOptions keep;
  keep.use_endpoint_port_from_request = true;
  EXPECT_EQ(route_response(request(), route(), TopicMessageType::normal, keep).message_queues(0).broker().endpoints().addresses(0).port(),
            18081);
}

TEST(V2Route, PermissionsTypesAndAnUnknownTopic) {
  body::TopicRouteData r = route();
  r.queue_datas[0].perm = 4;  // read only
  r.queue_datas.resize(1);
  v2::QueryRouteResponse out = route_response(request(), r, TopicMessageType::mixed, RouteOptions{});
  ASSERT_EQ(out.message_queues_size(), 8);
  EXPECT_EQ(out.message_queues(0).permission(), v2::READ);
  EXPECT_EQ(out.message_queues(0).accept_message_types_size(), 4);
  r.queue_datas[0].perm = 0;
  out = route_response(request(), r, TopicMessageType::fifo, RouteOptions{});
  ASSERT_EQ(out.message_queues_size(), 8);
  EXPECT_EQ(out.message_queues(0).permission(), v2::NONE);
  EXPECT_EQ(out.message_queues(0).accept_message_types(0), v2::FIFO);

  out = route_response(request("Nope"), body::TopicRouteData{}, TopicMessageType::normal, RouteOptions{});
  EXPECT_EQ(out.status().code(), v2::TOPIC_NOT_FOUND);
  EXPECT_EQ(out.status().message(), "No topic route info in name server for the topic: Nope");
  EXPECT_EQ(out.message_queues_size(), 0);

  v2::QueryRouteRequest no_scheme = request();
  no_scheme.mutable_endpoints()->set_scheme(v2::ADDRESS_SCHEME_UNSPECIFIED);
  EXPECT_EQ(route_response(no_scheme, route(), TopicMessageType::normal, RouteOptions{}).status().code(), v2::BAD_REQUEST);

  // A queue data whose broker the route lacks ends the list there, as RocketMQ's loop does.
  r = route();
  r.queue_datas.insert(r.queue_datas.begin() + 1, body::QueueData{"broker-gone", 4, 4, 6, 0});
  EXPECT_EQ(route_response(request(), r, TopicMessageType::normal, RouteOptions{}).message_queues_size(), 8);
}

v2::QueryAssignmentRequest assignment_request() {
  v2::QueryAssignmentRequest r;
  r.mutable_topic()->set_name("T");
  r.mutable_group()->set_name("G");
  *r.mutable_endpoints() = request().endpoints();
  return r;
}

TEST(V2Route, AssignmentsAreOnePerReadableMasterOrOnePerQueueForFifo) {
  body::TopicRouteData r = route();
  r.queue_datas[1].perm = 4;  // broker-b read only
  v2::QueryAssignmentResponse out = assignment_response(assignment_request(), r, /*fifo=*/false, RouteOptions{});
  EXPECT_EQ(out.status().code(), v2::OK);
  ASSERT_EQ(out.assignments_size(), 2) << "one per broker, its master only";
  const v2::MessageQueue& a = out.assignments(0).message_queue();
  EXPECT_EQ(a.topic().name(), "T");
  EXPECT_EQ(a.id(), -1) << "the whole broker: the proxy pops from every queue";
  EXPECT_EQ(a.broker().name(), "broker-a");
  EXPECT_EQ(a.broker().id(), 0);
  EXPECT_EQ(a.permission(), v2::READ_WRITE);
  EXPECT_EQ(a.broker().endpoints().addresses(0).port(), 8081);
  EXPECT_EQ(a.accept_message_types_size(), 0);
  EXPECT_EQ(out.assignments(1).message_queue().permission(), v2::READ);

  out = assignment_response(assignment_request(), r, /*fifo=*/true, RouteOptions{});
  ASSERT_EQ(out.assignments_size(), 4 + 2);
  EXPECT_EQ(out.assignments(3).message_queue().id(), 3);
  EXPECT_EQ(out.assignments(4).message_queue().broker().name(), "broker-b");
  EXPECT_EQ(out.assignments(4).message_queue().id(), 0);

  r.queue_datas[0].perm = 2;  // write only
  r.queue_datas[1].read_queue_nums = 0;
  out = assignment_response(assignment_request(), r, false, RouteOptions{});
  EXPECT_EQ(out.status().code(), v2::FORBIDDEN);
  EXPECT_EQ(out.status().message(), "no readable queue");
}

TEST(V2Status, RemotingCodesAndClientErrorsAsRocketMqsProxyMapsThem) {
  EXPECT_EQ(code_of_reply(0), v2::OK);
  EXPECT_EQ(code_of_reply(2), v2::TOO_MANY_REQUESTS);
  EXPECT_EQ(code_of_reply(3), v2::NOT_IMPLEMENTED);
  EXPECT_EQ(code_of_reply(17), v2::TOPIC_NOT_FOUND);
  EXPECT_EQ(code_of_reply(26), v2::CONSUMER_GROUP_NOT_FOUND);
  EXPECT_EQ(code_of_reply(16), v2::INTERNAL_SERVER_ERROR) << "NO_PERMISSION, as RocketMQ 5.3";
  EXPECT_EQ(code_of_reply(13), v2::INTERNAL_SERVER_ERROR);

  remoting::RemotingCommand reply;
  reply.code = 17;
  reply.remark = "topic[T] not exist";
  const Error e = client::reply_error("broker 'broker-a' (10.0.0.11:10911)", 310, reply);
  const v2::Status s = status_of(e);
  EXPECT_EQ(s.code(), v2::TOPIC_NOT_FOUND);
  EXPECT_NE(s.message().find("topic[T] not exist"), std::string::npos) << s.message();
  EXPECT_EQ(status_of(Error(Errc::timed_out, "send")).code(), v2::PROXY_TIMEOUT);
  EXPECT_EQ(status_of(Error(Errc::refused, "connect")).code(), v2::INTERNAL_SERVER_ERROR);
}

}  // namespace
}  // namespace ferry::proxy
