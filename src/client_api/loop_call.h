// call_on_loop: run a client coroutine on the client's loop from any application thread and get
// its value through a std::future (the public client API hands each call to the client's own
// loop: docs/runtime.md, "Boundaries of the single thread").
//
//   std::future<Result<SendResult>> f =
//       call_on_loop(rt, [&producer, msg] { return producer.send(msg); });
//   Result<SendResult> r = f.get();   // blocks this application thread only
//
// `make` runs on the loop (never on the calling thread) and returns the Task; the Task runs as a
// task of the node. The future holds the Task's value, or its exception; if the node stops
// before the Task finishes, the promise is abandoned and get() throws std::future_error
// (broken_promise). Never call get() on the loop thread itself: it would wait for itself.
//
// This directory sits outside the determinism lint on purpose: it is the thread boundary.
#pragma once

#include <exception>
#include <future>
#include <memory>
#include <type_traits>
#include <utility>

#include "runtime/runtime.h"

namespace ferry::client_api {

namespace detail {

template <typename>
struct TaskValue;
template <typename T>
struct TaskValue<Task<T>> {
  using type = T;
};

template <typename T>
Task<void> fulfil(Task<T> task, std::shared_ptr<std::promise<T>> promise) {
  std::exception_ptr error;
  try {
    if constexpr (std::is_void_v<T>) {
      co_await std::move(task);
      promise->set_value();
    } else {
      promise->set_value(co_await std::move(task));
    }
  } catch (...) {
    error = std::current_exception();
  }
  if (error) promise->set_exception(error);
}

}  // namespace detail

template <typename Make>
auto call_on_loop(Runtime& rt, Make make) -> std::future<typename detail::TaskValue<std::invoke_result_t<Make&>>::type> {
  using T = typename detail::TaskValue<std::invoke_result_t<Make&>>::type;
  auto promise = std::make_shared<std::promise<T>>();
  std::future<T> future = promise->get_future();
  Runtime* r = &rt;
  rt.executor().post([r, make = std::move(make), promise]() mutable {
    Task<T> task = make();
    r->spawn(detail::fulfil<T>(std::move(task), promise), "client-api-call");
  });
  return future;
}

}  // namespace ferry::client_api
