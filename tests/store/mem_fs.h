// A small in-memory ferry::FileSystem for store unit tests (test-only; no durability model:
// every write is "durable" at once, sync() completes immediately). Crash tests use the
// simulator's disk instead. Views are snapshots pinned by a shared buffer (enough for the tests,
// which never read a view after overwriting its range).
#pragma once

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "runtime/file_system.h"

namespace ferry::store::testing {

class MemFs final : public FileSystem {
 public:
  using Data = std::vector<std::uint8_t>;

  class MemFile final : public File {
   public:
    MemFile(MemFs* fs, std::string path, std::shared_ptr<Data> data)
        : fs_(fs), path_(std::move(path)), data_(std::move(data)) {}
    const std::string& path() const override { return path_; }
    std::uint64_t size() const override { return data_->size(); }
    Result<std::size_t> pread(std::uint64_t offset, MutableBytes buf) const override {
      if (offset >= data_->size()) return std::size_t{0};
      const std::size_t n = std::min<std::size_t>(buf.size(), data_->size() - offset);
      std::memcpy(buf.data(), data_->data() + offset, n);
      return n;
    }
    Status pwrite(std::uint64_t offset, Bytes data) override {
      if (offset + data.size() > data_->size()) FERRY_TRY(grow(offset + data.size()));
      if (!data.empty()) std::memcpy(data_->data() + offset, data.data(), data.size());
      ++fs_->writes;
      return {};
    }
    Status truncate(std::uint64_t size) override {
      if (size > data_->size()) return grow(size);
      fs_->used -= data_->size() - size;
      data_->resize(size);
      return {};
    }
    Task<Status> sync() override {
      ++fs_->syncs;
      co_return fs_->fail_sync ? Status(Errc::io_error, "planted sync failure") : Status{};
    }
    Task<Status> allocate(std::uint64_t size) override {
      if (size > data_->size()) co_return grow(size);
      co_return Status{};
    }
    Result<FileView> view(std::uint64_t offset, std::size_t len) const override {
      if (offset > data_->size()) offset = data_->size();
      len = std::min<std::size_t>(len, data_->size() - offset);
      auto copy = std::make_shared<Data>(data_->begin() + static_cast<std::ptrdiff_t>(offset),
                                         data_->begin() + static_cast<std::ptrdiff_t>(offset + len));
      Bytes bytes(copy->data(), copy->size());
      return FileView(std::shared_ptr<const void>(copy, copy.get()), bytes);
    }

   private:
    Status grow(std::uint64_t size) {
      const std::uint64_t more = size - data_->size();
      if (fs_->used + more > fs_->capacity) return Error(Errc::no_space, path_);
      fs_->used += more;
      data_->resize(size, 0);
      return {};
    }
    MemFs* fs_;
    std::string path_;
    std::shared_ptr<Data> data_;
  };

  Result<std::unique_ptr<File>> open(const std::string& path, OpenOptions opts) override {
    auto it = files.find(path);
    if (it == files.end()) {
      if (!opts.create) return Error(Errc::not_found, path);
      it = files.emplace(path, std::make_shared<Data>()).first;
    } else if (opts.create && opts.exclusive) {
      return Error(Errc::already_exists, path);
    }
    if (opts.truncate) {
      used -= it->second->size();
      it->second->clear();
    }
    return std::unique_ptr<File>(std::make_unique<MemFile>(this, path, it->second));
  }
  Status rename(const std::string& from, const std::string& to) override {
    auto it = files.find(from);
    if (it == files.end()) return Error(Errc::not_found, from);
    auto data = it->second;
    files.erase(it);
    if (auto old = files.find(to); old != files.end()) used -= old->second->size();
    files[to] = std::move(data);
    return {};
  }
  Status remove(const std::string& path) override {
    auto it = files.find(path);
    if (it == files.end()) return dirs.erase(path) ? Status{} : Status(Errc::not_found, path);
    used -= it->second->size();
    files.erase(it);
    return {};
  }
  Status create_dirs(const std::string& path) override {
    dirs.insert(path);
    return {};
  }
  Result<std::vector<std::string>> list(const std::string& dir) const override {
    const std::string prefix = dir + "/";
    std::set<std::string> names;
    for (const auto& [path, data] : files) {
      if (path.rfind(prefix, 0) != 0) continue;
      const std::string rest = path.substr(prefix.size());
      names.insert(rest.substr(0, rest.find('/')));
    }
    for (const auto& d : dirs) {
      if (d.rfind(prefix, 0) != 0) continue;
      const std::string rest = d.substr(prefix.size());
      names.insert(rest.substr(0, rest.find('/')));
    }
    if (names.empty() && !dirs.count(dir)) return Error(Errc::not_found, dir);
    return std::vector<std::string>(names.begin(), names.end());
  }
  bool exists(const std::string& path) const override {
    return files.count(path) > 0 || dirs.count(path) > 0;
  }
  Result<std::uint64_t> file_size(const std::string& path) const override {
    auto it = files.find(path);
    if (it == files.end()) return Error(Errc::not_found, path);
    return static_cast<std::uint64_t>(it->second->size());
  }
  Result<SpaceInfo> space() const override { return SpaceInfo{capacity, capacity - std::min(used, capacity)}; }
  Task<Status> sync_dir(const std::string&) override { co_return Status{}; }

  // Test access.
  Data& bytes(const std::string& path) { return *files.at(path); }

  std::map<std::string, std::shared_ptr<Data>> files;
  std::set<std::string> dirs;
  std::uint64_t capacity = std::uint64_t{1} << 40;
  std::uint64_t used = 0;
  std::uint64_t writes = 0;
  std::uint64_t syncs = 0;
  bool fail_sync = false;
};

}  // namespace ferry::store::testing
