// Runs the fuzz entry over a few thousand generated inputs in every build: random bytes, valid
// frames with bytes flipped, cut or inserted, and JSON-looking text. Nothing may crash, and the
// mutated valid frames must sometimes still decode (so the deep paths are reached).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "remoting/body/heartbeat_data.h"
#include "remoting/body/topic_route_data.h"
#include "remoting/frame_codec.h"
#include "tests/remoting/fuzz_entry.h"
#include "tests/remoting/test_rng.h"

namespace ferry::remoting::testing {
namespace {

std::vector<std::vector<std::uint8_t>> seed_frames() {
  std::vector<std::vector<std::uint8_t>> seeds;
  for (SerializeType type : {SerializeType::json, SerializeType::rocketmq}) {
    RemotingCommand c = make_request(310, 26, type);
    c.remark = "r";
    c.ext_fields = ExtFields{{"a", "PID"}, {"b", "T"}, {"c", "TBW102"}, {"d", "4"}, {"e", "1"},
                             {"f", "0"}, {"g", "1"}, {"h", "0"}, {"i", "TAGS\x01x"}};
    c.body = {'h', 'i'};
    seeds.push_back(*encode_frame(c));

    RemotingCommand hb = make_request(34, 2, type);
    body::HeartbeatData h;
    h.client_id = "c";
    h.consumer_data_set.push_back({"G", body::ConsumeType::CONSUME_PASSIVELY,
                                   body::MessageModel::CLUSTERING,
                                   body::ConsumeFromWhere::CONSUME_FROM_LAST_OFFSET,
                                   {{"T", "*", {}, {}, 1, "TAG", false}}, false});
    hb.body = h.encode();
    seeds.push_back(*encode_frame(hb));

    RemotingCommand route = make_response(hb, 0);
    body::TopicRouteData t;
    t.queue_datas.push_back({"b", 4, 4, 6, 0});
    t.broker_datas.push_back({"c", "b", {{0, "1.2.3.4:5"}}});
    route.body = t.encode();
    seeds.push_back(*encode_frame(route));
  }
  return seeds;
}

std::vector<std::uint8_t> mutate(std::vector<std::uint8_t> in, TestRng& rng) {
  const int edits = 1 + static_cast<int>(rng.below(4));
  for (int e = 0; e < edits && !in.empty(); ++e) {
    const std::size_t at = rng.below(in.size());
    switch (rng.below(5)) {
      case 0: in[at] ^= static_cast<std::uint8_t>(1u << rng.below(8)); break;
      case 1: in[at] = static_cast<std::uint8_t>(rng.next()); break;
      case 2: in.resize(at); break;
      case 3: in.insert(in.begin() + static_cast<std::ptrdiff_t>(at), static_cast<std::uint8_t>(rng.next())); break;
      default: {  // duplicate a slice (two frames, or a repeated field)
        const std::size_t n = rng.below(in.size() - at) + 1;
        std::vector<std::uint8_t> slice(in.begin() + static_cast<std::ptrdiff_t>(at),
                                        in.begin() + static_cast<std::ptrdiff_t>(at + n));
        in.insert(in.end(), slice.begin(), slice.end());
      }
    }
  }
  return in;
}

std::vector<std::uint8_t> json_noise(TestRng& rng) {
  static const char* kTokens[] = {"{", "}", "[", "]", ",", ":", "\"code\"", "\"extFields\"",
                                  "0", "-1", "1e9", "true", "null", "\"a\"", "\"\\u0000\"",
                                  "\"\\ud800\"", " ", "7:", "\"brokerAddrs\"", "\"clientID\""};
  std::string s;
  const int n = static_cast<int>(rng.below(40));
  for (int i = 0; i < n; ++i) s += kTokens[rng.below(std::size(kTokens))];
  return {s.begin(), s.end()};
}

TEST(FuzzReplay, ThousandsOfInputsNeverCrash) {
  TestRng rng(20240601);
  const auto seeds = seed_frames();
  int decoded_mutants = 0;
  for (const auto& s : seeds) ASSERT_GT(fuzz_one_input(s.data(), s.size()), 0);
  for (int i = 0; i < 4000; ++i) {
    std::vector<std::uint8_t> input;
    switch (i % 3) {
      case 0: {
        input.resize(rng.below(200));
        for (auto& b : input) b = static_cast<std::uint8_t>(rng.next());
        break;
      }
      case 1: input = mutate(seeds[rng.below(seeds.size())], rng); break;
      default: input = json_noise(rng); break;
    }
    const int n = fuzz_one_input(input.data(), input.size());
    if (i % 3 == 1 && n > 0) ++decoded_mutants;
  }
  EXPECT_GT(decoded_mutants, 50) << "mutated frames should often still decode";
}

}  // namespace
}  // namespace ferry::remoting::testing
