#include "broker/consumer_services.h"

#include "common/names.h"
#include "remoting/request_code.h"

namespace ferry::broker {

namespace rc = remoting::request_code;
using remoting::RequestContext;

ConsumerServices::ConsumerServices(Runtime& rt, const BrokerConfig& config, store::MessageStore& store,
                                   TopicConfigManager& topics, remoting::RpcServer& server)
    : rt_(rt),
      config_(config),
      groups_(rt, config),
      consumers_(rt, config),
      producers_(rt, config),
      subscriptions_(groups_, consumers_),
      notifier_(rt, server),
      client_manage_(rt, config, consumers_, producers_, groups_, topics),
      send_back_(rt, config, store, topics, groups_),
      schedule_(rt, config, store),
      timers_(rt, config, store),
      locks_(rt, config),
      lock_(config, locks_),
      group_admin_(groups_) {
  consumers_.set_notifier([this](const std::string& group, std::vector<std::shared_ptr<remoting::Channel>> channels) {
    notifier_.notify_consumer_ids_changed(group, channels);
  });
}

void ConsumerServices::register_processors(remoting::RpcServer& server, ServerTag tag) {
  server.register_processor(rc::HEART_BEAT,
                            [this, tag](RequestContext ctx) { return client_manage_.heartbeat(std::move(ctx), tag); });
  server.register_processor(rc::UNREGISTER_CLIENT, [this, tag](RequestContext ctx) {
    return client_manage_.unregister_client(std::move(ctx), tag);
  });
  server.register_processor(rc::CHECK_CLIENT_CONFIG,
                            [this](RequestContext ctx) { return client_manage_.check_client_config(std::move(ctx)); });
  server.register_processor(rc::GET_CONSUMER_LIST_BY_GROUP,
                            [this](RequestContext ctx) { return client_manage_.consumer_list(std::move(ctx)); });
  server.register_processor(rc::CONSUMER_SEND_MSG_BACK,
                            [this](RequestContext ctx) { return send_back_.process(std::move(ctx)); });
  server.register_processor(rc::LOCK_BATCH_MQ, [this](RequestContext ctx) { return lock_.lock(std::move(ctx)); });
  server.register_processor(rc::UNLOCK_BATCH_MQ, [this](RequestContext ctx) { return lock_.unlock(std::move(ctx)); });
  server.register_processor(rc::UPDATE_AND_CREATE_SUBSCRIPTIONGROUP,
                            [this](RequestContext ctx) { return group_admin_.update(std::move(ctx)); });
  server.register_processor(rc::GET_ALL_SUBSCRIPTIONGROUP_CONFIG,
                            [this](RequestContext ctx) { return group_admin_.get_all(std::move(ctx)); });
  server.register_processor(rc::GET_SUBSCRIPTIONGROUP_CONFIG,
                            [this](RequestContext ctx) { return group_admin_.get_one(std::move(ctx)); });
  server.register_processor(rc::DELETE_SUBSCRIPTIONGROUP,
                            [this](RequestContext ctx) { return group_admin_.remove(std::move(ctx)); });
}

Status ConsumerServices::load() {
  FERRY_TRY(groups_.load());
  FERRY_TRY(schedule_.load());
  return timers_.load();
}

void ConsumerServices::start() {
  rt_.spawn(run_scan_loop(this), "client-housekeeping");
  // As RocketMQ (handleScheduleMessageService): a slave delivers no delayed messages. Its
  // CommitLog is its master's copy, and its delay offsets are the master's (SlaveSync); a slave
  // promoted to master starts the service then (schedule().start()).
  if (config_.broker_role != BrokerRole::slave) schedule_.start();
  // A slave files the timers its log brings (its TimerLog follows the replicated timer queue)
  // and delivers none until promoted.
  timers_.start(config_.broker_role != BrokerRole::slave);
}

Task<void> ConsumerServices::stop() {
  stopped_ = true;
  schedule_.stop();
  Task<Status> persist_delay = schedule_.persist();
  Status d = co_await std::move(persist_delay);
  if (!d) rt_.log().error("broker stop: persisting delay offsets failed: {}", d.error().to_string());
  timers_.stop();
  Task<Status> persist_timers = timers_.persist();
  Status t = co_await std::move(persist_timers);
  if (!t) rt_.log().error("broker stop: writing the timer checkpoint failed: {}", t.error().to_string());
  Task<Status> persist_groups = groups_.persist();
  Status g = co_await std::move(persist_groups);
  if (!g) rt_.log().error("broker stop: persisting subscription groups failed: {}", g.error().to_string());
}

void ConsumerServices::on_arrival(const std::string& topic, QueueId queue) {
  if (topic == kScheduleTopic) schedule_.on_arrival(queue);
  if (topic == kTimerTopic) timers_.on_arrival();
}

void ConsumerServices::channel_closed(const std::shared_ptr<remoting::Channel>& ch, ServerTag tag) {
  if (!ch) return;
  consumers_.channel_closed(client_key(tag, *ch));
  producers_.channel_closed(client_key(tag, *ch));
}

Task<void> ConsumerServices::run_scan_loop(ConsumerServices* self) {
  while (!self->stopped_) {
    Duration wait = self->config_.client_scan_interval;
    // buggify: the scan of silent clients runs at an odd moment, early (it drops only clients
    // silent for channel_expired_timeout, whenever it runs).
    if (FERRY_BUGGIFY(self->rt_)) wait = std::chrono::milliseconds(self->rt_.random().between(1, to_ms(wait)));
    co_await self->rt_.sleep(wait);
    if (self->stopped_) break;
    const std::size_t c = self->consumers_.scan_expired();
    const std::size_t p = self->producers_.scan_expired();
    if (c + p > 0) self->rt_.log().info("client scan: dropped {} consumer and {} producer registrations", c, p);
  }
}

}  // namespace ferry::broker
