// proxy_bench: a RocketMQ 5 gRPC client's load through mqproxy (docs/benchmarks.md "Proxy").
// Speaks apache.rocketmq.v2.MessagingService directly (the generated stubs), as a RocketMQ 5 client
// does on the wire, without a client library's batching or caching, so that the figure is the
// proxy's.
//
//   proxy_bench produce --endpoints 127.0.0.1:8081 --topic T [--messages N] [--size B] [--concurrency C]
//   proxy_bench consume --endpoints 127.0.0.1:8081 --topic T --group G [--messages N] [--concurrency C]
//
// produce: C threads, each sending one message per SendMessage call until N are sent.
// consume: C threads, each a receive loop (ReceiveMessage of 32, invisible 60 s, long polling
//          5 s), every batch acknowledged with one AckMessage of its handles, until N are
//          received or nothing came for 10 s.
// Prints one line: "{mode}: N messages in S s: R msg/s, errors E"; exit 1 when any call failed.
// A tool, not component code: it uses real threads and the real clock.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "apache/rocketmq/v2/service.grpc.pb.h"

namespace {

namespace v2 = apache::rocketmq::v2;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string mode, endpoints, topic, group = "proxy-bench";
  long messages = 100000;
  long size = 256;
  int concurrency = 16;
};

int usage(const char* why) {
  std::fprintf(stderr,
               "proxy_bench: %s\nusage: proxy_bench produce|consume --endpoints HOST:PORT --topic T [--group G] "
               "[--messages N] [--size B] [--concurrency C]\n",
               why);
  return 2;
}

void add_metadata(grpc::ClientContext& ctx, const std::string& client_id) {
  ctx.AddMetadata("x-mq-client-id", client_id);
  ctx.AddMetadata("x-mq-protocol", "v2");
  ctx.AddMetadata("x-mq-language", "CPP");
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (argc < 2) return usage("a mode is needed");
  o.mode = argv[1];
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--endpoints") o.endpoints = v;
    else if (k == "--topic") o.topic = v;
    else if (k == "--group") o.group = v;
    else if (k == "--messages") o.messages = std::atol(v.c_str());
    else if (k == "--size") o.size = std::atol(v.c_str());
    else if (k == "--concurrency") o.concurrency = std::atoi(v.c_str());
    else return usage(("unknown flag " + k).c_str());
  }
  if ((o.mode != "produce" && o.mode != "consume") || o.endpoints.empty() || o.topic.empty() || o.messages <= 0 ||
      o.size <= 0 || o.concurrency <= 0) {
    return usage("needs produce|consume, --endpoints, --topic and positive numbers");
  }
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 << 20);
  // One connection a thread, as separate client processes would have.
  std::vector<std::unique_ptr<v2::MessagingService::Stub>> stubs;
  for (int t = 0; t < o.concurrency; ++t) {
    grpc::ChannelArguments a = args;
    a.SetInt("grpc.channel_id", t);  // distinct arguments: distinct subchannels
    stubs.push_back(v2::MessagingService::NewStub(grpc::CreateCustomChannel(o.endpoints, grpc::InsecureChannelCredentials(), a)));
  }
  std::atomic<long> next{0}, done{0}, errors{0};
  std::mutex first_error_mu;
  std::string first_error;
  auto fail = [&](const std::string& what) {
    errors.fetch_add(1);
    std::lock_guard lock(first_error_mu);
    if (first_error.empty()) first_error = what;
  };
  const std::string body(static_cast<std::size_t>(o.size), 'x');
  const auto start = Clock::now();
  std::atomic<long long> last_receive_ns{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < o.concurrency; ++t) {
    threads.emplace_back([&, t] {
      v2::MessagingService::Stub& stub = *stubs[static_cast<std::size_t>(t)];
      const std::string client_id = "proxy-bench@" + std::to_string(t);
      if (o.mode == "produce") {
        for (long i = next.fetch_add(1); i < o.messages; i = next.fetch_add(1)) {
          v2::SendMessageRequest req;
          v2::Message& m = *req.add_messages();
          m.mutable_topic()->set_name(o.topic);
          m.set_body(body);
          char id[40];
          std::snprintf(id, sizeof id, "01BENCH%08X%016lX", static_cast<unsigned>(t), static_cast<unsigned long>(i));
          m.mutable_system_properties()->set_message_id(id);
          m.mutable_system_properties()->set_tag("Bench");
          m.mutable_system_properties()->set_body_encoding(v2::IDENTITY);
          m.mutable_system_properties()->set_message_type(v2::NORMAL);
          grpc::ClientContext ctx;
          add_metadata(ctx, client_id);
          v2::SendMessageResponse resp;
          const grpc::Status s = stub.SendMessage(&ctx, req, &resp);
          if (!s.ok()) {
            fail("gRPC " + s.error_message());
          } else if (resp.status().code() != v2::OK) {
            fail(resp.status().message());
          } else {
            done.fetch_add(1);
          }
        }
        return;
      }
      auto idle_since = Clock::now();
      while (done.load() < o.messages && Clock::now() - idle_since < std::chrono::seconds(10)) {
        v2::ReceiveMessageRequest req;
        req.mutable_group()->set_name(o.group);
        req.mutable_message_queue()->mutable_topic()->set_name(o.topic);
        req.mutable_filter_expression()->set_type(v2::TAG);
        req.mutable_filter_expression()->set_expression("*");
        req.set_batch_size(32);
        req.mutable_invisible_duration()->set_seconds(60);
        req.mutable_long_polling_timeout()->set_seconds(5);
        grpc::ClientContext ctx;
        add_metadata(ctx, client_id);
        std::unique_ptr<grpc::ClientReader<v2::ReceiveMessageResponse>> reader = stub.ReceiveMessage(&ctx, req);
        v2::ReceiveMessageResponse r;
        v2::AckMessageRequest ack;
        ack.mutable_group()->set_name(o.group);
        ack.mutable_topic()->set_name(o.topic);
        while (reader->Read(&r)) {
          if (r.has_message()) {
            v2::AckMessageEntry& e = *ack.add_entries();
            e.set_message_id(r.message().system_properties().message_id());
            e.set_receipt_handle(r.message().system_properties().receipt_handle());
          } else if (r.has_status() && r.status().code() != v2::OK && r.status().code() != v2::MESSAGE_NOT_FOUND) {
            fail(r.status().message());
          }
        }
        const grpc::Status s = reader->Finish();
        if (!s.ok()) fail("gRPC " + s.error_message());
        if (ack.entries_size() == 0) continue;
        idle_since = Clock::now();
        grpc::ClientContext actx;
        add_metadata(actx, client_id);
        v2::AckMessageResponse aresp;
        const grpc::Status as = stub.AckMessage(&actx, ack, &aresp);
        if (!as.ok() || aresp.status().code() != v2::OK) {
          fail(as.ok() ? aresp.status().message() : "gRPC " + as.error_message());
        }
        done.fetch_add(ack.entries_size());
        last_receive_ns.store(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
      }
    });
  }
  for (std::thread& th : threads) th.join();
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (o.mode == "consume" && last_receive_ns.load() > 0) seconds = static_cast<double>(last_receive_ns.load()) / 1e9;
  std::printf("%s: %ld messages of %ld B in %.2f s: %.0f msg/s, %d connections, errors %ld\n", o.mode.c_str(), done.load(),
              o.size, seconds, static_cast<double>(done.load()) / seconds, o.concurrency, errors.load());
  if (!first_error.empty()) std::fprintf(stderr, "proxy_bench: first error: %s\n", first_error.c_str());
  return errors.load() == 0 && done.load() >= o.messages ? 0 : 1;
}
