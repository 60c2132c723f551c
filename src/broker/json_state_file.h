// JsonStateFile<State>: how a broker manager keeps its state in a metadata file under config/
// (topics.json, subscriptionGroup.json, consumerOffset.json, delayOffset.json): a ConfigFile
// (config_file.h: write `.tmp` and sync it, keep the previous file as `.bak`, rename, sync the
// directory; load falls back to `.bak`) plus the state's JSON form (metadata_json.h has the
// shared shapes).
//
//  * load(): the state decoded from the file, or from its backup when the file is missing or
//    does not decode; nullopt when neither exists (a fresh broker). Errors: corrupt naming both
//    files and why. Nothing partial reaches the owner: it swaps in what load() returns.
//  * persist(): encodes the owner's state when the Task starts and writes it. Success = durable.
//    An owner that must wait between the two (delay offsets wait for the CommitLog) takes a
//    snapshot() (encoded at once) and write()s it later.
//  * Changes: the owner counts them (changed()); dirty() holds while some change is in no
//    successful write yet, so a periodic persist can skip clean rounds.
//  * persist_soon(): a persist in a task of the node, encoding the state when the write starts;
//    coalesced (one task at a time, writing again while changes arrived meanwhile), so a burst
//    of changes costs at most two writes. A failure is logged ("<what>: persisting <path>
//    failed: ...", once per run of failures) and retried every kPersistRetryInterval until a
//    write succeeds (then "<what>: persisted <path> after N failed attempts"): the state in
//    memory stays authoritative, and a change made while the disk or the descriptors were
//    missing reaches the file without waiting for another change.
// Writes through one JsonStateFile are serialized (ConfigFile): the newest content wins.
//
// Lifetime: a member of its owner, declared after the state it refers to. Owners are
// components, which outlive the node's tasks, so persist_soon()'s task never outlives them.
// Loop thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "common/config_file.h"
#include "broker/metadata_json.h"
#include "runtime/assert.h"
#include "runtime/runtime.h"

namespace ferry::broker {

// How often persist_soon() retries a failed write (as the store retries indexing).
inline constexpr Duration kPersistRetryInterval = std::chrono::seconds(1);

template <typename State>
class JsonStateFile {
 public:
  // The state's JSON form (load() drops a state whose decode failed).
  using Codec = JsonCodec<State>;
  struct Loaded {
    State state;
    bool from_backup = false;
  };
  // What a write carries: the encoded state, and how many changes it covers.
  struct Snapshot {
    std::string text;
    std::uint64_t changes = 0;
  };

  // `path` is relative to the node's data root ("config/topics.json"); `what` names the state
  // in logs and in persist_soon()'s task ("subscription groups": "persist-subscription-groups").
  JsonStateFile(Runtime& rt, std::string path, std::string what, const State& state, Codec codec)
      : rt_(rt), file_(rt, std::move(path)), what_(std::move(what)), state_(state), codec_(std::move(codec)) {
    FERRY_ASSERT(codec_.encode && codec_.decode, "the {} file {} has no JSON codec", what_, file_.path());
  }
  JsonStateFile(const JsonStateFile&) = delete;
  JsonStateFile& operator=(const JsonStateFile&) = delete;

  Result<std::optional<Loaded>> load() const {
    std::optional<State> decoded;
    auto r = file_.load([&](std::string_view text) -> Status {
      State s;
      FERRY_TRY(codec_.decode(text, s));
      decoded = std::move(s);
      return Status();
    });
    if (!r) return std::move(r).error();
    if (!r->has_value()) return std::optional<Loaded>();
    FERRY_ASSERT(decoded.has_value(), "{} loaded from {} without a decoded state", what_, file_.path());
    return std::optional<Loaded>(Loaded{std::move(*decoded), (*r)->from_backup});
  }

  Task<Status> persist() {
    Task<Status> w = write(snapshot());
    co_return co_await std::move(w);
  }
  Snapshot snapshot() const { return Snapshot{codec_.encode(state_), changes_}; }
  Task<Status> write(Snapshot snapshot) {
    Task<Status> w = file_.write(std::move(snapshot.text));
    Status s = co_await std::move(w);
    if (s && snapshot.changes > persisted_) persisted_ = snapshot.changes;
    co_return s;
  }

  void changed() { ++changes_; }
  bool dirty() const { return changes_ != persisted_; }

  void persist_soon() {
    if (background_) return;  // the running persist writes again while the state is dirty
    background_ = true;
    std::string name = "persist-" + what_;
    for (char& c : name) c = c == ' ' ? '-' : c;
    rt_.spawn(persist_in_background(this), std::move(name));
  }
  // Writes started by persist_soon() (for tests: a burst of changes costs a couple, not one each).
  std::uint64_t background_writes() const { return background_writes_; }

  const std::string& path() const { return file_.path(); }

 private:
  // Ends once a write leaves the state clean, or when the node's tasks are destroyed (its write
  // is then abandoned; the previous file or its backup stays whole).
  // Coalesces: one task at a time, writing the state as it is when each write starts, again
  // while changes arrived during the write (a burst of N changes costs at most two writes, not N
  // encodings of the whole table). A failed write is retried after kPersistRetryInterval (one
  // write a second at most while the disk or the descriptors are missing).
  static Task<void> persist_in_background(JsonStateFile* self) {
    std::uint64_t failures = 0;
    do {
      ++self->background_writes_;
      Task<Status> persist = self->persist();
      Status s = co_await std::move(persist);
      if (!s) {
        if (failures++ == 0) {
          self->rt_.log().error("{}: persisting {} failed (retried every {} ms): {}", self->what_, self->path(),
                                to_ms(kPersistRetryInterval), s.error().to_string());
        }
        co_await self->rt_.sleep(kPersistRetryInterval);
        continue;
      }
      if (failures > 0) {
        self->rt_.log().warn("{}: persisted {} after {} failed attempt(s)", self->what_, self->path(), failures);
        failures = 0;
      }
    } while (self->dirty());
    self->background_ = false;
  }

  Runtime& rt_;
  ConfigFile file_;
  const std::string what_;
  const State& state_;
  const Codec codec_;
  std::uint64_t changes_ = 0;    // counted by the owner
  std::uint64_t persisted_ = 0;  // `changes_` when the last successful write was taken
  bool background_ = false;      // a persist_soon() task is running
  std::uint64_t background_writes_ = 0;
};

}  // namespace ferry::broker
