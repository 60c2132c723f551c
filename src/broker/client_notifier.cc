#include "broker/client_notifier.h"

#include "remoting/header/client_header.h"
#include "remoting/request_code.h"

namespace ferry::broker {

void ClientNotifier::notify_consumer_ids_changed(const std::string& group,
                                                 const std::vector<std::shared_ptr<remoting::Channel>>& channels) {
  for (const auto& ch : channels) {
    if (!ch || !ch->is_open()) continue;
    if (in_flight_ >= sends_in_flight_max_) {
      ++dropped_;
      if (auto held = dropped_log_.admit(rt_.now())) {
        rt_.log().warn("notify {} to {} dropped: {} notifications in flight{}", group, ch->peer_text(), in_flight_,
                       held_back_note(*held));
      }
      continue;
    }
    ++in_flight_;
    rt_.spawn(send_one(this, ch, group), "notify-consumer-ids-changed");
  }
}

Task<void> ClientNotifier::send_one(ClientNotifier* self, std::shared_ptr<remoting::Channel> ch, std::string group) {
  remoting::NotifyConsumerIdsChangedRequestHeader h;
  h.consumer_group = group;
  remoting::RemotingCommand req = remoting::make_request(remoting::request_code::NOTIFY_CONSUMER_IDS_CHANGED, 0);
  req.ext_fields = h.to_fields();
  Task<Status> send = self->server_.invoke_oneway_on(ch, std::move(req));
  Status s = co_await std::move(send);
  --self->in_flight_;
  if (s) {
    ++self->sent_;
  } else {
    if (auto held = self->failed_log_.admit(self->rt_.now(), static_cast<std::int64_t>(s.error().code))) {
      self->rt_.log().info("notify {} to {} failed: {}{}", group, ch->peer_text(), s.error().to_string(),
                           held_back_note(*held));
    }
  }
}

}  // namespace ferry::broker
