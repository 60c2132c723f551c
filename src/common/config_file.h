// Metadata files under config/ (topics.json, consumerOffset.json, ...): atomic replacement with
// a backup, and loading that falls back to the backup.
//
// Write (ConfigFile::write):
//   1. write `{path}.tmp` from scratch and sync it;
//   2. if `{path}` exists, rename it to `{path}.bak` (the previous version stays whole);
//   3. rename `{path}.tmp` to `{path}`;
//   4. sync the directory.
// A crash at any point leaves either the new file, or the previous one as `{path}` or as
// `{path}.bak` (between steps 2 and 3 `{path}` is missing; load() then takes the backup).
// Success means the new content is durable. Writes through one ConfigFile are serialized: a
// write that starts while another is in progress waits for it (so the newest content wins).
//
// Load (ConfigFile::load): read `{path}` and give it to `parse`; if it is missing or `parse`
// fails, read `{path}.bak` likewise. Neither file → nullopt (a fresh broker). Both unusable →
// Errc::corrupt naming each file and why.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/runtime.h"
#include "runtime/wait_queue.h"

namespace ferry {

class ConfigFile {
 public:
  // `path` is relative to the node's data root, e.g. "config/topics.json" (or a file directly in it).
  ConfigFile(Runtime& rt, std::string path);

  struct Loaded {
    std::string text;
    bool from_backup = false;
  };
  // Runs synchronously (reads are memory operations). `parse` must leave no partial state
  // behind when it fails (parse into a temporary, then swap).
  Result<std::optional<Loaded>> load(const std::function<Status(std::string_view)>& parse) const;

  // Replaces the file atomically (steps above). Errors: io_error, no_space (the previous
  // content is still in place or in the backup).
  Task<Status> write(std::string content);

  const std::string& path() const { return path_; }
  std::string backup_path() const { return path_ + ".bak"; }
  std::string temp_path() const { return path_ + ".tmp"; }
  std::uint64_t writes() const { return writes_; }

 private:
  Task<Status> write_now(std::string text);
  Result<std::optional<std::string>> read_whole(const std::string& path) const;

  Runtime& rt_;
  std::string path_;
  std::string dir_;
  bool writing_ = false;
  WaitQueue idle_;
  std::uint64_t writes_ = 0;
};

}  // namespace ferry
