// BlockingTransactionProducer: the TransactionProducer (client/transaction_producer.h) for
// application threads. send_in_transaction may be called from any thread; it hands the call to
// the client's loop and returns a future. The listener's execute and check already run off the
// loop (Runtime::offload), so they may block on the application's own database.
//
//   TransactionProducer tp(ci, ProducerConfig{.group = "TxGroup"}, listener);   // built on the loop
//   BlockingTransactionProducer btp(rt, tp);
//   Result<TransactionSendResult> r = btp.send_in_transaction(msg).get();      // any thread
//
// The TransactionProducer (and its ClientInstance) must outlive every call in flight.
#pragma once

#include <future>

#include "client/transaction_producer.h"

namespace ferry::client_api {

class BlockingTransactionProducer {
 public:
  BlockingTransactionProducer(Runtime& rt, client::TransactionProducer& producer) : rt_(rt), producer_(producer) {}

  std::future<Result<client::TransactionSendResult>> send_in_transaction(Message msg);

 private:
  Runtime& rt_;
  client::TransactionProducer& producer_;
};

}  // namespace ferry::client_api
