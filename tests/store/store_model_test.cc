// A RapidCheck stateful test of the MessageStore against a model, on the simulator's disk.
//
// Commands: appends (bodies from 0 bytes to nearly a whole CommitLog file, two topics, three
// queues, a unique key each), syncs (wait_durable: the acknowledgement), async flush ticks
// (virtual time passes: the ASYNC_FLUSH loop, the queue/index/checkpoint loop and
// pre-allocation run), reads, graceful restarts, and crashes at an arbitrary event boundary
// (sometimes with a sync in flight) with torn writes on. After every restart:
//  * open() succeeds;
//  * the CommitLog, walked record by record, is a prefix of what was appended, and that prefix
//    holds at least every acknowledged-synced message and everything below the flushed offset
//    seen at the crash (after a graceful restart: everything);
//  * every record served is whole (magic, lengths, body CRC) and equal to the model's;
//  * each ConsumeQueue holds exactly the surviving messages of its queue, queue offsets dense
//    from 0, each unit pointing at its record; the index finds every surviving key and no lost
//    one;
//  * appends continue at the next dense queue offset.
// The model (what was appended, in log order, and how much is known durable) lives beside the
// store in `Sut`: a crash's outcome (how much of the unsynced tail survives) is only known by
// looking, and the model then takes the surviving prefix.
//
// Garbage sectors (DiskOptions::corrupt_torn_sector_ppm) are disabled here. With them, the
// simulator garbles every byte an unsynced write changed, including index slots rewritten since
// the last sync: a slot garbled into another in-range entry number breaks that slot's chain, and
// RocketMQ's index format has no checksum to notice it (docs/store.md, "Known limit"; about 1
// case in 1500 failed that way with 10 % garbage). CommitLog records (CRC), ConsumeQueue units
// (checked against their records on recovery) and index headers (checked against their first
// and last entries) do survive garbage: store_crash_sim_test runs with it. Torn writes (sectors
// kept or lost) are on here.
//
// Bounded: RapidCheck's default 100 cases (RC_PARAMS overrides), command sequences up to its
// default size, 4 KiB CommitLog files; a failure prints the RapidCheck seed to replay it.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/record_reader.h"
#include "tests/store/sim_store.h"
#include "tests/store/store_fixture.h"

namespace ferry::store {
namespace {

using testing::SimStore;
using testing::TestMessage;

constexpr std::int64_t kFileBytes = 4096;
constexpr std::size_t kBodyBytesMax = 3900;  // with the header, topic and KEYS: nearly a file
const char* const kTopics[] = {"TopicA", "B"};
constexpr std::int32_t kQueues = 3;

struct ModelMessage {
  std::string topic;
  std::int32_t queue = 0;
  std::string body;
  std::string key;
  PhysicalOffset offset;
  std::int64_t size = 0;
  QueueOffset queue_offset;
};

struct Sut {
  std::unique_ptr<SimStore> sim;
  std::vector<ModelMessage> log;  // appended, in log order; all present until a crash
  std::size_t acked = 0;          // prefix acknowledged synced (wait_durable ok)
  std::int64_t key_seq = 0;
  std::map<std::pair<std::string, std::int32_t>, std::int64_t> next_queue_offset;
  int restarts = 0;
  MessageStore& store() { return sim->store(); }
};

struct Model {};  // the model is Sut::log (see the file comment); nothing to precondition on

using Command = rc::state::Command<Model, Sut>;

// Walks the CommitLog and checks everything the file comment promises; then the model takes
// the surviving prefix. `durable_end`: every message ending at or below it must have survived.
void verify_after_restart(Sut& s, std::int64_t durable_end, bool graceful) {
  MessageStore& store = s.store();
  RC_ASSERT(store.min_phy_offset().value() == 0);
  // 1. The log is a prefix of the model.
  std::size_t kept = 0;
  PhysicalOffset at = store.min_phy_offset();
  RecordDecodeOptions options;  // CRC checked
  while (at < store.max_phy_offset()) {
    auto view = store.commit_log().view_to_file_end(at);
    RC_ASSERT(view.ok());
    const RecordRead r = decode_record(view->bytes(), options);
    if (r.kind == RecordKind::blank) {
      at = store.commit_log().next_file_start(at);
      continue;
    }
    if (r.kind != RecordKind::message) RC_FAIL(fmt::format("{} record at {}: {}", record_kind_name(r.kind), at.value(), r.detail));
    RC_ASSERT(kept < s.log.size());
    const ModelMessage& m = s.log[kept];
    RC_ASSERT(r.fields.physical_offset == m.offset);
    RC_ASSERT(at == m.offset);
    RC_ASSERT(static_cast<std::int64_t>(r.size_bytes) == m.size);
    RC_ASSERT(std::string(r.fields.topic) == m.topic);
    RC_ASSERT(r.fields.queue_id.value() == m.queue);
    RC_ASSERT(r.fields.queue_offset == m.queue_offset);
    const std::string body(reinterpret_cast<const char*>(r.fields.body.data()), r.fields.body.size());
    RC_ASSERT(body == m.body);
    at += static_cast<std::int64_t>(r.size_bytes);
    ++kept;
  }
  // 2. Durable messages survived.
  RC_ASSERT(kept >= s.acked);
  for (std::size_t i = kept; i < s.log.size(); ++i) {
    RC_ASSERT(s.log[i].offset.value() + s.log[i].size > durable_end);
  }
  if (graceful) RC_ASSERT(kept == s.log.size());
  // 3. The model takes the surviving prefix; lost keys must not be found.
  for (std::size_t i = kept; i < s.log.size(); ++i) {
    auto q = store.query_by_key(s.log[i].topic, s.log[i].key, 8, 0, INT64_MAX);
    RC_ASSERT(q.ok());
    RC_ASSERT(q->messages.empty());
  }
  s.log.resize(kept);
  s.acked = kept;
  // 4. ConsumeQueues: exactly the surviving messages of each queue, dense, pointing right.
  std::map<std::pair<std::string, std::int32_t>, std::vector<const ModelMessage*>> per_queue;
  for (const ModelMessage& m : s.log) per_queue[{m.topic, m.queue}].push_back(&m);
  s.next_queue_offset.clear();
  for (const char* topic : kTopics) {
    for (std::int32_t q = 0; q < kQueues; ++q) {
      const auto& expected = per_queue[{topic, q}];
      s.next_queue_offset[{topic, q}] = static_cast<std::int64_t>(expected.size());
      RC_ASSERT(store.min_offset(topic, QueueId(q)).value() == 0);
      RC_ASSERT(store.max_offset(topic, QueueId(q)).value() == static_cast<std::int64_t>(expected.size()));
      QueueOffset next(0);
      std::size_t i = 0;
      while (next.value() < static_cast<std::int64_t>(expected.size())) {
        auto g = store.get_messages(topic, QueueId(q), next, 32, nullptr);
        RC_ASSERT(g.status == GetStatus::found);
        for (const FileView& v : g.messages) {
          RC_ASSERT(i < expected.size());
          const RecordRead r = decode_record(v.bytes(), options);
          RC_ASSERT(r.kind == RecordKind::message);
          RC_ASSERT(r.fields.physical_offset == expected[i]->offset);
          RC_ASSERT(r.fields.queue_offset.value() == static_cast<std::int64_t>(i));
          ++i;
        }
        RC_ASSERT(g.next_begin_offset.value() == static_cast<std::int64_t>(i));
        next = g.next_begin_offset;
      }
    }
  }
  // 5. The index finds every surviving key, at its record.
  for (const ModelMessage& m : s.log) {
    auto q = store.query_by_key(m.topic, m.key, 8, 0, INT64_MAX);
    RC_ASSERT(q.ok());
    if (q->messages.size() != 1u) {
      std::string files;
      for (std::size_t i = 0; i < store.index().file_count(); ++i) {
        const IndexHeader& h = store.index().file(i).header();
        files += fmt::format(" [{}: count {} phy {}..{} ts {}..{}]", store.index().file(i).path(),
                             h.index_count, h.begin_phy_offset.value(), h.end_phy_offset.value(),
                             h.begin_timestamp_ms, h.end_timestamp_ms);
      }
      auto raw = store.index().query(m.topic, m.key, 8, 0, INT64_MAX);
      std::string offs;
      for (auto o : raw->offsets) offs += fmt::format(" {}", o.value());
      RC_FAIL(fmt::format("key {} at {} found {} times (index:{}); reput from {}; index files:{}", m.key,
                          m.offset.value(), q->messages.size(), offs,
                          store.recovery().reput_from.value(), files));
    }
    RC_ASSERT(decode_record(q->messages[0].bytes(), options).fields.physical_offset == m.offset);
  }
}

void reopen(Sut& s) {
  const std::string opened = s.sim->open();
  if (!opened.empty()) RC_FAIL("open after restart " + std::to_string(s.restarts) + ": " + opened);
  ++s.restarts;
}

struct Append : Command {
  std::string topic = *rc::gen::elementOf(std::vector<std::string>(std::begin(kTopics), std::end(kTopics)));
  std::int32_t queue = *rc::gen::inRange<std::int32_t>(0, kQueues);
  std::size_t body_bytes = *rc::gen::oneOf(rc::gen::inRange<std::size_t>(0, 200),
                                          rc::gen::inRange<std::size_t>(0, kBodyBytesMax + 1));
  char fill = *rc::gen::inRange('a', 'z');

  void apply(Model&) const override {}
  void run(const Model&, Sut& s) const override {
    TestMessage m;
    m.topic = topic;
    m.queue_id = QueueId(queue);
    const std::string key = fmt::format("k{}", s.key_seq++);
    m.body = key + std::string(body_bytes, fill);
    m.keys(key);
    const PutResult r = s.store().put_message(m.request());
    if (r.status != PutStatus::ok) RC_FAIL(fmt::format("put: {} {}", put_status_name(r.status), r.detail));
    auto& next = s.next_queue_offset[{topic, queue}];
    RC_ASSERT(r.queue_offset.value() == next);
    ++next;
    s.log.push_back(ModelMessage{topic, queue, m.body, key, r.wrote_offset, r.wrote_bytes, r.queue_offset});
  }
  void show(std::ostream& os) const override {
    os << "Append(" << topic << ":" << queue << ", " << body_bytes << " bytes)";
  }
};

struct Sync : Command {
  void apply(Model&) const override {}
  void run(const Model&, Sut& s) const override {
    if (s.log.empty()) return;
    const PutStatus st = s.sim->sync(s.store().max_phy_offset());
    RC_ASSERT(st == PutStatus::ok);
    s.acked = s.log.size();
  }
  void show(std::ostream& os) const override { os << "Sync"; }
};

struct Tick : Command {
  std::int64_t ms = *rc::gen::inRange<std::int64_t>(1, 1500);
  void apply(Model&) const override {}
  void run(const Model&, Sut& s) const override { s.sim->run_for(std::chrono::milliseconds(ms)); }
  void show(std::ostream& os) const override { os << "Tick(" << ms << " ms)"; }
};

struct Read : Command {
  std::size_t pick = *rc::gen::arbitrary<std::size_t>();
  std::int32_t max = *rc::gen::inRange<std::int32_t>(1, 40);
  void apply(Model&) const override {}
  void run(const Model&, Sut& s) const override {
    if (s.log.empty()) return;
    const ModelMessage& from = s.log[pick % s.log.size()];
    auto g = s.store().get_messages(from.topic, QueueId(from.queue), from.queue_offset, max, nullptr);
    RC_ASSERT(g.status == GetStatus::found);
    RC_ASSERT(!g.messages.empty());
    const RecordRead r = decode_record(g.messages[0].bytes());
    RC_ASSERT(r.kind == RecordKind::message);
    RC_ASSERT(r.fields.physical_offset == from.offset);
    RC_ASSERT(std::string(reinterpret_cast<const char*>(r.fields.body.data()), r.fields.body.size()) == from.body);
  }
  void show(std::ostream& os) const override { os << "Read(" << pick << ", " << max << ")"; }
};

struct Restart : Command {
  void apply(Model&) const override {}
  void run(const Model&, Sut& s) const override {
    const std::string st = s.sim->shutdown();
    if (!st.empty()) RC_FAIL("shutdown: " + st);
    reopen(s);
    verify_after_restart(s, INT64_MAX, /*graceful=*/true);
  }
  void show(std::ostream& os) const override { os << "Restart"; }
};

struct Crash : Command {
  // Crash after this much virtual time: inside a sync (1 ms latency), or among the 500 ms / 1 s
  // flush loops.
  std::int64_t after_us = *rc::gen::oneOf(rc::gen::inRange<std::int64_t>(0, 3000),
                                          rc::gen::inRange<std::int64_t>(0, 1'200'000));
  bool sync_in_flight = *rc::gen::arbitrary<bool>();
  void apply(Model&) const override {}
  void run(const Model&, Sut& s) const override {
    if (sync_in_flight && !s.log.empty()) {
      s.sim->node().spawn(testing::sync_and_forget_task(&s.store(), s.store().max_phy_offset()), "sync");
    }
    s.sim->run_for(std::chrono::microseconds(after_us));
    const std::int64_t flushed = s.store().commit_log().flushed_offset().value();
    s.sim->crash();
    reopen(s);
    verify_after_restart(s, flushed, /*graceful=*/false);
  }
  void show(std::ostream& os) const override {
    os << "Crash(after " << after_us << " us" << (sync_in_flight ? ", sync in flight" : "") << ")";
  }
};

RC_GTEST_PROP(StoreModel, CrashesKeepSyncedPrefixesAndConsistentIndexes, ()) {
  sim::WorldOptions opts;
  opts.seed = *rc::gen::arbitrary<std::uint32_t>();
  opts.disk.torn_write_on_crash_ppm = 1'000'000;
  opts.disk.torn_sector_keep_ppm = *rc::gen::element<std::uint32_t>(0, 500'000, 900'000);
  opts.disk.corrupt_torn_sector_ppm = 0;  // see the file comment
  StoreConfig config = testing::small_config();
  config.commit_log_file_size_bytes = kFileBytes;
  config.message_size_max_bytes = kFileBytes - 8;
  config.consume_queue_units_per_file = 4;
  config.index_geometry = IndexGeometry{16, 24};
  Sut sut;
  sut.sim = std::make_unique<SimStore>(opts, config);
  reopen(sut);
  Model model;
  rc::state::check(model, sut,
                   rc::state::gen::execOneOfWithArgs<Append, Append, Append, Append, Sync, Tick,
                                                     Read, Restart, Crash, Crash>());
  // A final crash and check, whatever the sequence ended with.
  const std::int64_t flushed = sut.store().commit_log().flushed_offset().value();
  sut.sim->crash();
  reopen(sut);
  verify_after_restart(sut, flushed, /*graceful=*/false);
}

}  // namespace
}  // namespace ferry::store
