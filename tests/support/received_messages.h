// ReceivedMessages: what a test's push-consumer listener received, shared between the listener
// (on a runtime's or an offload thread) and the test thread, which waits for a condition on it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <vector>

#include "common/message.h"

namespace ferry::test_support {

class ReceivedMessages {
 public:
  void add(const std::vector<MessageExt>& msgs) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      msgs_.insert(msgs_.end(), msgs.begin(), msgs.end());
    }
    cv_.notify_all();
  }
  std::vector<MessageExt> snapshot() const {
    std::lock_guard<std::mutex> lock(mu_);
    return msgs_;
  }
  std::size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return msgs_.size();
  }
  // Waits until pred(messages) holds or `timeout` passes; returns the last value of pred.
  bool wait_until(const std::function<bool(const std::vector<MessageExt>&)>& pred,
                  std::chrono::milliseconds timeout = std::chrono::seconds(60)) const {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return pred(msgs_); });
  }

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::vector<MessageExt> msgs_;
};

}  // namespace ferry::test_support
