// The answers for a send and the stream for a receive (src/proxy/v2_answers.h), as RocketMQ 5.3's
// proxy writes them.
#include "proxy/v2_answers.h"

#include <gtest/gtest.h>

namespace ferry::proxy {
namespace {

client::SendResult stored(client::SendStatus s = client::SendStatus::SEND_OK) {
  client::SendResult r;
  r.status = s;
  r.msg_id = "ID1";
  r.queue_offset = QueueOffset(41);
  return r;
}

TEST(V2Answers, ASendsOneEntry) {
  v2::SendMessageResponse r = send_response(Result<client::SendResult>(stored()));
  EXPECT_EQ(r.status().code(), v2::OK);
  EXPECT_EQ(r.status().message(), "OK");
  ASSERT_EQ(r.entries_size(), 1);
  EXPECT_EQ(r.entries(0).status().code(), v2::OK);
  EXPECT_EQ(r.entries(0).message_id(), "ID1");
  EXPECT_EQ(r.entries(0).transaction_id(), "ID1") << "the broker's transaction id is the message's UNIQ_KEY";
  EXPECT_EQ(r.entries(0).offset(), 41);

  r = send_response(Result<client::SendResult>(stored(client::SendStatus::FLUSH_SLAVE_TIMEOUT)));
  EXPECT_EQ(r.status().code(), v2::SLAVE_PERSISTENCE_TIMEOUT);
  EXPECT_EQ(r.status().message(), "SLAVE_PERSISTENCE_TIMEOUT");
  ASSERT_EQ(r.entries_size(), 1);
  EXPECT_EQ(r.entries(0).status().message(), "send message failed, sendStatus=FLUSH_SLAVE_TIMEOUT");
  EXPECT_EQ(r.entries(0).message_id(), "");
  EXPECT_EQ(send_response(Result<client::SendResult>(stored(client::SendStatus::FLUSH_DISK_TIMEOUT))).status().code(),
            v2::MASTER_PERSISTENCE_TIMEOUT);
  EXPECT_EQ(send_response(Result<client::SendResult>(stored(client::SendStatus::SLAVE_NOT_AVAILABLE))).status().code(),
            v2::HA_NOT_AVAILABLE);

  r = send_response(Result<client::SendResult>(Error(Errc::timed_out, "send to topic T")));
  EXPECT_EQ(r.status().code(), v2::PROXY_TIMEOUT);
  EXPECT_EQ(r.entries_size(), 0);
}

TEST(V2Answers, AReceiveStreamsItsStatusFirstAndTheTimeLast) {
  std::vector<v2::Message> ms(2);
  ms[0].set_body("a");
  ms[1].set_body("b");
  const auto found = receive_responses(Received::found, ms, 1'700'000'000'250);
  ASSERT_EQ(found.size(), 4u);
  EXPECT_EQ(found[0].status().code(), v2::OK);
  EXPECT_EQ(found[1].message().body(), "a");
  EXPECT_EQ(found[2].message().body(), "b");
  ASSERT_EQ(found[3].content_case(), v2::ReceiveMessageResponse::kDeliveryTimestamp);
  EXPECT_EQ(found[3].delivery_timestamp().seconds(), 1'700'000'000);
  EXPECT_EQ(found[3].delivery_timestamp().nanos(), 250'000'000);

  auto none = receive_responses(Received::not_found, {}, 0);
  ASSERT_EQ(none.size(), 2u);
  EXPECT_EQ(none[0].status().code(), v2::MESSAGE_NOT_FOUND);
  EXPECT_EQ(none[0].status().message(), "no new message");
  EXPECT_EQ(receive_responses(Received::found, {}, 0)[0].status().code(), v2::MESSAGE_NOT_FOUND);
  EXPECT_EQ(receive_responses(Received::all_filtered, {}, 0)[0].status().message(), "no match message");
  EXPECT_EQ(receive_responses(Received::polling_full, {}, 0)[0].status().code(), v2::TOO_MANY_REQUESTS);

  v2::Status bad;
  bad.set_code(v2::ILLEGAL_INVISIBLE_TIME);
  auto refused = receive_responses(bad, 5'000);
  ASSERT_EQ(refused.size(), 2u);
  EXPECT_EQ(refused[0].status().code(), v2::ILLEGAL_INVISIBLE_TIME);
  EXPECT_EQ(refused[1].delivery_timestamp().seconds(), 5);
}

}  // namespace
}  // namespace ferry::proxy
