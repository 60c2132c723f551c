// DashboardApi: mqdashboard's JSON API, the same paths as rocketmq-dashboard's where it has them,
// answered through an admin session (cli/admin_session.h) on the calling thread.
//
// The two .do actions take POST with Content-Type: application/json (else 415): a browser sends
// that to another site only after a CORS preflight, which this server never grants, so no other
// page can make a logged-in browser act here. Every other answer is rocketmq-dashboard's envelope
// with HTTP 200: {"status":0,"data":...,"errMsg":null}
// on success, {"status":-1,"data":null,"errMsg":"<what went wrong>"} on failure (a missing or bad
// parameter names it; a cluster error names the NameServer or broker and its code). Paths:
//
//   GET  /cluster/list.query                      brokers: role, version, TPS, totals, disk, HA, epoch
//   GET  /ha/status.query                         each broker's HA state (907); the controllers' view
//   GET  /topic/list.query                        topics, each with its kind (normal, retry, dlq, system)
//   GET  /topic/route.query?topic=T               brokers and queue counts of T
//   GET  /topic/stats.query?topic=T               each queue's min/max offset; put TPS per master
//   GET  /topic/queryConsumerByTopic.query?topic=T  the groups consuming T, per-queue offsets and lag
//   POST /topic/sendTopicMessage.do               {"topic","key","tag","messageBody"}: one message
//   GET  /producer/producerConnection.query?topic=T&producerGroup=P  the group's producers online
//   GET  /consumer/groupList.query[?all=true]     groups (system ones with all=true): members, TPS, lag
//   GET  /consumer/consumerConnection.query?consumerGroup=G  members and subscriptions
//   GET  /consumer/queryTopicByConsumer.query?consumerGroup=G  per topic and queue: offsets and lag
//   GET  /consumer/lagHistory.query?consumerGroup=G  the sampled total lag (LagHistory)
//   POST /consumer/resetOffset.do                 {"consumerGroup","topic","resetTime","force"}
//   GET  /message/queryMessageByTopicAndKey.query?topic=T&key=K  up to 64 messages with that key
//   GET  /message/viewMessage.query?msgId=M[&topic=T]  one message: an offset msgId, or with the
//                                                 topic a client msgId (UNIQ_KEY); body and properties
//   GET  /message/queryMessageByOffset.query?topic=T&brokerName=B&queueId=Q&offset=O
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/admin_session.h"
#include "daemon/http_server.h"
#include "tools/mqdashboard/lag_history.h"

namespace ferry::dashboard {

struct ApiOptions {
  std::vector<std::string> controller_addrs;  // for /ha/status.query; empty: no controller section
  std::size_t lag_groups_max = 1000;
  std::size_t lag_points_max = 1440;
  std::int64_t lag_interval_ms = 60'000;
};

class DashboardApi {
 public:
  DashboardApi(cli::AdminSession& session, ApiOptions options);

  // Whether `path` is one of the API's.
  static bool serves(const std::string& path);
  daemon::HttpReply handle(const daemon::HttpRequest& request);

  // One lag sample of every non-system consumer group the masters know (LagHistory). A group
  // whose stats fail is skipped this time; the errors go to the log.
  void sample_lag();

 private:
  cli::AdminSession& s_;
  ApiOptions options_;
  LagHistory lag_;
};

}  // namespace ferry::dashboard
