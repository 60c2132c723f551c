#include "proxy/v2_answers.h"

#include <fmt/format.h>

#include "proxy/v2_status.h"

namespace ferry::proxy {

namespace {

v2::Code code_of(client::SendStatus s) {
  switch (s) {
    case client::SendStatus::SEND_OK: return v2::OK;
    case client::SendStatus::FLUSH_DISK_TIMEOUT: return v2::MASTER_PERSISTENCE_TIMEOUT;
    case client::SendStatus::FLUSH_SLAVE_TIMEOUT: return v2::SLAVE_PERSISTENCE_TIMEOUT;
    case client::SendStatus::SLAVE_NOT_AVAILABLE: return v2::HA_NOT_AVAILABLE;
  }
  return v2::INTERNAL_SERVER_ERROR;
}

v2::ReceiveMessageResponse delivery_time(WallMs now_ms) {
  v2::ReceiveMessageResponse r;
  r.mutable_delivery_timestamp()->set_seconds(now_ms / 1000);
  r.mutable_delivery_timestamp()->set_nanos(static_cast<std::int32_t>(now_ms % 1000) * 1'000'000);
  return r;
}

}  // namespace

v2::SendMessageResponse send_response(const Result<client::SendResult>& sent) {
  v2::SendMessageResponse out;
  if (!sent.ok()) {
    *out.mutable_status() = status_of(sent.error());
    return out;
  }
  const v2::Code code = code_of(sent->status);
  v2::SendResultEntry& e = *out.add_entries();
  if (code == v2::OK) {
    *e.mutable_status() = ok_status();
    e.set_message_id(sent->msg_id);
    e.set_transaction_id(sent->transaction_id.value_or(sent->msg_id));
    e.set_offset(sent->queue_offset.value());
  } else {
    *e.mutable_status() = status(code, fmt::format("send message failed, sendStatus={}", client::name(sent->status)));
  }
  *out.mutable_status() = status(code, code == v2::OK ? "OK" : v2::Code_Name(code));
  return out;
}

std::vector<v2::ReceiveMessageResponse> receive_responses(Received what, std::vector<v2::Message> messages, WallMs now_ms) {
  std::vector<v2::ReceiveMessageResponse> out;
  v2::ReceiveMessageResponse first;
  switch (what) {
    case Received::found:
      if (!messages.empty()) {
        *first.mutable_status() = ok_status();
        break;
      }
      [[fallthrough]];
    case Received::not_found: *first.mutable_status() = status(v2::MESSAGE_NOT_FOUND, "no new message"); break;
    case Received::all_filtered: *first.mutable_status() = status(v2::MESSAGE_NOT_FOUND, "no match message"); break;
    case Received::polling_full: *first.mutable_status() = status(v2::TOO_MANY_REQUESTS, "polling full"); break;
  }
  out.push_back(std::move(first));
  if (what == Received::found) {
    for (v2::Message& m : messages) {
      v2::ReceiveMessageResponse r;
      *r.mutable_message() = std::move(m);
      out.push_back(std::move(r));
    }
  }
  out.push_back(delivery_time(now_ms));
  return out;
}

std::vector<v2::ReceiveMessageResponse> receive_responses(v2::Status status, WallMs now_ms) {
  std::vector<v2::ReceiveMessageResponse> out(1);
  *out[0].mutable_status() = std::move(status);
  out.push_back(delivery_time(now_ms));
  return out;
}

}  // namespace ferry::proxy
