#include "sim/real/client_host.h"

#include <sched.h>

#include <future>

#include <fmt/format.h>

#include "runtime/asio/asio_runtime.h"

namespace ferry::sim::real {

ClientHost::ClientHost(std::string name, int netns_fd, std::string data_root, std::string ip, Factory factory, LogSettings log)
    : name_(std::move(name)),
      netns_fd_(netns_fd),
      data_root_(std::move(data_root)),
      ip_(std::move(ip)),
      factory_(std::move(factory)),
      log_(std::move(log)) {}

ClientHost::~ClientHost() { kill(); }

Status ClientHost::start() {
  std::unique_lock<std::mutex> l(mu_);
  if (thread_.joinable()) return Error(Errc::invalid_argument, fmt::format("client {} runs already", name_));
  stopping_ = false;
  paused_ = false;
  starting_ = true;
  thread_ = std::thread([this] { body(); });
  // Wait until the runtime exists, so that kill() right after start() finds it.
  cv_.wait(l, [this] { return !starting_; });
  return Status();
}

void ClientHost::body() {
  if (setns(netns_fd_, CLONE_NEWNET) != 0) {
    std::lock_guard<std::mutex> l(mu_);
    starting_ = false;
    cv_.notify_all();
    return;
  }
  AsioRuntime::Options o;
  o.node_name = name_;
  o.data_root = data_root_;
  o.advertised_host = ip_;
  o.offload_threads = 2;
  o.log = log_;
  AsioRuntime rt(o);
  {
    std::lock_guard<std::mutex> l(mu_);
    rt.skew_wall_clock(skew_ms_);
  }
  std::unique_ptr<NodeProcess> app;
  rt.executor().post([&] {
    app = factory_(rt);
    app_ = app.get();
  });
  {
    std::lock_guard<std::mutex> l(mu_);
    rt_ = &rt;
    starting_ = false;
    cv_.notify_all();
    if (stopping_) rt.stop();
  }
  rt.run();
  // A crash, as the simulator does it: the app's tasks go first, then the app, then the runtime.
  app_ = nullptr;
  rt.destroy_tasks();
  app.reset();
  std::lock_guard<std::mutex> l(mu_);
  rt_ = nullptr;
}

void ClientHost::kill() {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!thread_.joinable()) return;
    stopping_ = true;
    paused_ = false;
    if (rt_ != nullptr) rt_->stop();
    cv_.notify_all();
  }
  thread_.join();
  std::lock_guard<std::mutex> l(mu_);
  thread_ = std::thread();
  stopping_ = false;
}

void ClientHost::pause() {
  std::lock_guard<std::mutex> l(mu_);
  if (rt_ == nullptr || paused_) return;
  paused_ = true;
  rt_->executor().post([this] {
    std::unique_lock<std::mutex> held(mu_);
    cv_.wait(held, [this] { return !paused_ || stopping_; });
  });
}

void ClientHost::resume() {
  std::lock_guard<std::mutex> l(mu_);
  paused_ = false;
  cv_.notify_all();
}

void ClientHost::skew_wall_clock(std::int64_t delta_ms) {
  std::lock_guard<std::mutex> l(mu_);
  skew_ms_ += delta_ms;
  if (rt_ != nullptr) rt_->skew_wall_clock(delta_ms);
}

bool ClientHost::running() const {
  std::lock_guard<std::mutex> l(mu_);
  return rt_ != nullptr;
}

bool ClientHost::paused() const {
  std::lock_guard<std::mutex> l(mu_);
  return paused_;
}

bool ClientHost::visit(const std::function<void(NodeProcess&)>& fn, Duration timeout) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> ready = done->get_future();
  {
    std::lock_guard<std::mutex> l(mu_);
    if (rt_ == nullptr || paused_) return false;
    rt_->executor().post([fn, done, this] {
      if (app_ != nullptr) fn(*app_);
      done->set_value();
    });
  }
  return ready.wait_for(timeout) == std::future_status::ready;
}

}  // namespace ferry::sim::real
