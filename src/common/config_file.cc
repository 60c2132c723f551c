#include "common/config_file.h"

#include <fmt/format.h>

#include "runtime/assert.h"

namespace ferry {

ConfigFile::ConfigFile(Runtime& rt, std::string path)
    : rt_(rt), path_(std::move(path)), idle_(rt.executor()) {
  FERRY_ASSERT(!path_.empty() && path_.front() != '/' && path_.back() != '/', "config file path '{}' is not a file "
               "path relative to the data root", path_);
  const auto slash = path_.rfind('/');
  dir_ = slash == std::string::npos ? std::string() : path_.substr(0, slash);  // "": the data root itself
}

Result<std::optional<std::string>> ConfigFile::read_whole(const std::string& path) const {
  if (!rt_.fs().exists(path)) return std::optional<std::string>();
  auto f = rt_.fs().open(path, {});
  if (!f) return std::move(f).error();
  std::string text((*f)->size(), '\0');
  auto n = (*f)->pread(0, MutableBytes(reinterpret_cast<std::uint8_t*>(text.data()), text.size()));
  if (!n) return std::move(n).error();
  text.resize(*n);
  return std::optional<std::string>(std::move(text));
}

Result<std::optional<ConfigFile::Loaded>> ConfigFile::load(
    const std::function<Status(std::string_view)>& parse) const {
  std::string problems;
  bool any = false;
  for (const bool backup : {false, true}) {
    const std::string p = backup ? backup_path() : path_;
    auto text = read_whole(p);
    if (!text) {
      problems += fmt::format("{}{}: {}", problems.empty() ? "" : "; ", p, text.error().to_string());
      any = true;
      continue;
    }
    if (!text->has_value()) continue;
    any = true;
    Status parsed = parse(**text);
    if (parsed) {
      if (backup) rt_.log().warn("config: {} unusable, loaded the backup {}", path_, p);
      return std::optional<Loaded>(Loaded{std::move(**text), backup});
    }
    problems += fmt::format("{}{}: {}", problems.empty() ? "" : "; ", p, parsed.error().to_string());
  }
  if (!any) return std::optional<Loaded>();
  return Error(Errc::corrupt, fmt::format("config file {} and its backup are unusable: {}", path_, problems));
}

Task<Status> ConfigFile::write_now(std::string text) {
  FileSystem& fs = rt_.fs();
  if (!dir_.empty()) {
    Status made = fs.create_dirs(dir_);
    if (!made) co_return made;
  }
  auto tmp = fs.open(temp_path(), OpenOptions{.create = true, .exclusive = false, .truncate = true});
  if (!tmp) co_return std::move(tmp).error();
  const auto* data = reinterpret_cast<const std::uint8_t*>(text.data());
  Status wrote = (*tmp)->pwrite(0, Bytes(data, text.size()));
  if (!wrote) co_return wrote;
  Status synced = co_await (*tmp)->sync();
  if (!synced) co_return synced;
  tmp->reset();
  if (fs.exists(path_)) {
    Status kept = fs.rename(path_, backup_path());
    if (!kept) co_return kept;
  }
  Status renamed = fs.rename(temp_path(), path_);
  if (!renamed) co_return renamed;
  Status dir_synced = co_await fs.sync_dir(dir_);
  co_return dir_synced;
}

Task<Status> ConfigFile::write(std::string content) {
  while (writing_) co_await idle_.wait();
  writing_ = true;
  Task<Status> work = write_now(std::move(content));
  Status outcome = co_await std::move(work);
  writing_ = false;
  if (outcome) ++writes_;
  idle_.notify_one();
  co_return outcome;
}

}  // namespace ferry
