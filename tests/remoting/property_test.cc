// RapidCheck properties of the frame codec: encode → decode is the identity in both header
// serializations; arbitrary bytes never crash the stream decoder; any split of a valid stream
// yields exactly its frames, in order.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>

#include "common/big_endian.h"
#include "remoting/frame_codec.h"
#include "remoting/frame_decoder.h"

namespace ferry::remoting {
namespace {

rc::Gen<std::string> gen_text() {
  // Mostly short; any byte value, including NUL, control and non-ASCII bytes.
  return rc::gen::container<std::string>(rc::gen::arbitrary<char>());
}

rc::Gen<RemotingCommand> gen_command(SerializeType type) {
  return rc::gen::exec([type] {
    RemotingCommand c;
    c.serialize_type = type;
    c.code = *rc::gen::inRange<std::int32_t>(-32768, 32768);
    c.language = *rc::gen::map(rc::gen::inRange<int>(0, kLanguageCodeMax + 1),
                               [](int v) { return static_cast<LanguageCode>(v); });
    c.version = *rc::gen::inRange<std::int32_t>(-32768, 32768);
    c.opaque = *rc::gen::arbitrary<std::int32_t>();
    c.flag = *rc::gen::arbitrary<std::int32_t>();
    if (*rc::gen::arbitrary<bool>()) {
      c.remark = *gen_text();
      // The binary form cannot carry an empty remark: it reads back as absent.
      if (type == SerializeType::rocketmq && c.remark->empty()) c.remark.reset();
    }
    const auto n = *rc::gen::inRange<std::size_t>(0, 8);
    for (std::size_t i = 0; i < n; ++i) c.ext_fields.set(*gen_text(), *gen_text());
    c.body = *rc::gen::container<std::vector<std::uint8_t>>(rc::gen::arbitrary<std::uint8_t>());
    return c;
  });
}

rc::Gen<RemotingCommand> gen_any_command() {
  return rc::gen::oneOf(gen_command(SerializeType::json), gen_command(SerializeType::rocketmq));
}

RC_GTEST_PROP(FrameProperties, JsonRoundTrip, ()) {
  const RemotingCommand c = *gen_command(SerializeType::json);
  auto frame = encode_frame(c);
  RC_ASSERT(frame.ok());
  auto back = decode_frame(*frame);
  RC_ASSERT(back.ok());
  RC_ASSERT(*back == c);
}

RC_GTEST_PROP(FrameProperties, BinaryRoundTrip, ()) {
  const RemotingCommand c = *gen_command(SerializeType::rocketmq);
  auto frame = encode_frame(c);
  RC_ASSERT(frame.ok());
  auto back = decode_frame(*frame);
  RC_ASSERT(back.ok());
  RC_ASSERT(*back == c);
}

RC_GTEST_PROP(FrameProperties, RandomBytesNeverCrashTheDecoder, ()) {
  const auto bytes = *rc::gen::container<std::vector<std::uint8_t>>(rc::gen::arbitrary<std::uint8_t>());
  const auto chunk = *rc::gen::inRange<std::size_t>(1, 64);
  FrameDecoder d(1 << 16);
  for (std::size_t pos = 0; pos < bytes.size() && !d.failed(); pos += chunk) {
    const auto piece = std::span(bytes).subspan(pos, std::min(chunk, bytes.size() - pos));
    if (!d.feed(piece).ok()) break;
    while (true) {
      auto next = d.next();
      if (!next) {
        RC_ASSERT(next.error().code == Errc::corrupt);
        RC_ASSERT(!next.error().detail.empty());
        break;
      }
      if (!*next) break;
    }
  }
  // Also the same bytes behind a plausible length prefix, so the header readers get them.
  std::vector<std::uint8_t> framed = {0, 0, 0, 0};
  store_be32(framed.data(), static_cast<std::uint32_t>(bytes.size()));
  framed.insert(framed.end(), bytes.begin(), bytes.end());
  (void)decode_frame(framed).ok();
}

RC_GTEST_PROP(FrameProperties, AnySplitYieldsExactlyTheFramesInOrder, ()) {
  const auto cmds = *rc::gen::container<std::vector<RemotingCommand>>(
      *rc::gen::inRange<std::size_t>(1, 7), gen_any_command());
  std::vector<std::uint8_t> stream;
  for (const auto& c : cmds) {
    auto f = encode_frame(c);
    RC_ASSERT(f.ok());
    stream.insert(stream.end(), f->begin(), f->end());
  }
  // Random cut points, sorted: each piece is fed and then the decoder is drained.
  auto cuts = *rc::gen::container<std::vector<std::size_t>>(
      rc::gen::inRange<std::size_t>(0, stream.size() + 1));
  cuts.push_back(0);
  cuts.push_back(stream.size());
  std::sort(cuts.begin(), cuts.end());

  FrameDecoder d;
  std::vector<RemotingCommand> got;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    RC_ASSERT(d.feed(std::span(stream).subspan(cuts[i], cuts[i + 1] - cuts[i])).ok());
    while (true) {
      auto next = d.next();
      RC_ASSERT(next.ok());
      if (!*next) break;
      got.push_back(std::move(**next));
    }
  }
  RC_ASSERT(got == cmds);
  RC_ASSERT(d.buffered_bytes() == 0u);
}

}  // namespace
}  // namespace ferry::remoting
