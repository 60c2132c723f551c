#include "client_api/blocking_transaction_producer.h"

#include "client_api/loop_call.h"

namespace ferry::client_api {

std::future<Result<client::TransactionSendResult>> BlockingTransactionProducer::send_in_transaction(Message msg) {
  client::TransactionProducer* p = &producer_;
  return call_on_loop(rt_, [p, msg = std::move(msg)]() mutable { return p->send_in_transaction(std::move(msg)); });
}

}  // namespace ferry::client_api
