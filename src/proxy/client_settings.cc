#include "proxy/client_settings.h"

#include <fmt/format.h>

#include "common/names.h"
#include "proxy/v2_status.h"

namespace ferry::proxy {

namespace {

void set_ms(google::protobuf::Duration& d, std::int64_t ms) {
  d.set_seconds(ms / 1000);
  d.set_nanos(static_cast<std::int32_t>(ms % 1000) * 1'000'000);
}

}  // namespace

V2Result<v2::Settings> ClientSettingsStore::accept(const std::string& client_id, const v2::Settings& settings) {
  if (client_id.empty()) return Refusal{v2::CLIENT_ID_REQUIRED, "client id cannot be empty"};
  if (!settings.has_publishing() && !settings.has_subscription()) {
    return Refusal{v2::BAD_REQUEST, "there is no publishing or subscription data in settings"};
  }
  v2::Settings out = settings;
  if (settings.has_publishing()) {
    for (const v2::Resource& t : settings.publishing().topics()) {
      if (Status s = validate_topic(t.name()); !s.ok()) return Refusal{v2::ILLEGAL_TOPIC, s.error().detail};
    }
    v2::RetryPolicy& p = *out.mutable_backoff_policy();
    p.Clear();
    p.set_max_attempts(3);
    set_ms(*p.mutable_exponential_backoff()->mutable_initial(), 10);
    set_ms(*p.mutable_exponential_backoff()->mutable_max(), 1000);
    p.mutable_exponential_backoff()->set_multiplier(2);
    out.mutable_publishing()->set_validate_message_type(true);
    out.mutable_publishing()->set_max_body_size(static_cast<std::int32_t>(max_body_bytes_));
  } else {
    const v2::Subscription& sub = settings.subscription();
    if (Status s = validate_group(sub.group().name()); !s.ok()) return Refusal{v2::ILLEGAL_CONSUMER_GROUP, s.error().detail};
    for (const v2::SubscriptionEntry& e : sub.subscriptions()) {
      if (Status s = validate_topic(e.topic().name()); !s.ok()) return Refusal{v2::ILLEGAL_TOPIC, s.error().detail};
    }
    out.mutable_subscription()->set_receive_batch_size(32);
    set_ms(*out.mutable_subscription()->mutable_long_polling_timeout(), 20'000);
    out.mutable_subscription()->set_fifo(false);
    v2::RetryPolicy& p = *out.mutable_backoff_policy();
    p.Clear();
    p.set_max_attempts(17);
    for (const std::int64_t s : {1, 5, 10, 30, 60, 120, 180, 240, 300, 360, 420, 480, 540, 600, 1200, 1800, 3600, 7200}) {
      set_ms(*p.mutable_customized_backoff()->add_next(), s * 1000);
    }
  }
  out.mutable_metric()->set_on(false);
  auto it = clients_.find(client_id);
  if (it == clients_.end() && clients_.size() >= clients_max_) {
    return Refusal{v2::TOO_MANY_REQUESTS, fmt::format("the proxy serves at most {} clients", clients_max_)};
  }
  clients_[client_id] = out;
  return out;
}

v2::Status ClientSettingsStore::heartbeat(const std::string& client_id) const {
  if (clients_.count(client_id) == 0) return status(v2::UNRECOGNIZED_CLIENT_TYPE, "cannot find client settings for this client");
  return ok_status();
}

v2::Status ClientSettingsStore::terminate(const std::string& client_id) {
  if (clients_.erase(client_id) == 0) return status(v2::UNRECOGNIZED_CLIENT_TYPE, "cannot find client settings for this client");
  return ok_status();
}

const v2::Settings* ClientSettingsStore::find(const std::string& client_id) const {
  auto it = clients_.find(client_id);
  return it == clients_.end() ? nullptr : &it->second;
}

std::vector<std::string> ClientSettingsStore::publishers_of(const std::string& topic) const {
  std::vector<std::string> out;
  for (const auto& [id, settings] : clients_) {
    if (!settings.has_publishing()) continue;
    for (const v2::Resource& t : settings.publishing().topics()) {
      if (t.name() == topic) {
        out.push_back(id);
        break;
      }
    }
  }
  return out;
}

}  // namespace ferry::proxy
