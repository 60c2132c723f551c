#include "store/mapped_file_queue.h"

#include <fmt/format.h>

#include "runtime/assert.h"
#include "store/file_names.h"

namespace ferry::store {

MappedFileQueue::MappedFileQueue(FileSystem& fs, std::string dir, std::int64_t file_size_bytes, FileRoom room)
    : fs_(fs), dir_(std::move(dir)), file_size_(file_size_bytes), room_(std::move(room)) {
  if (room_.what.empty()) room_.what = dir_;
  FERRY_ASSERT(file_size_bytes > 0, "segment size must be positive, got {} for {}",
               file_size_bytes, dir_);
  FERRY_ASSERT(!dir_.empty(), "a MappedFileQueue needs a directory");
}

Status MappedFileQueue::load() {
  FERRY_ASSERT(files_.empty(), "load() of {} called twice", dir_);
  FERRY_TRY(fs_.create_dirs(dir_));
  auto names = fs_.list(dir_);
  if (!names.ok()) return std::move(names).error();
  std::optional<std::int64_t> expected;
  for (std::size_t i = 0; i < names->size(); ++i) {
    const std::string& name = (*names)[i];
    const std::string path = join_path(dir_, name);
    const auto start = parse_offset_file_name(name);
    if (!start || *start % file_size_ != 0) {
      return Error(Errc::corrupt, fmt::format("{}: not a segment name (20 digits, a multiple of "
                                              "the segment size {})", path, file_size_));
    }
    if (expected && *start != *expected) {
      return Error(Errc::corrupt, fmt::format("{}: segments are not contiguous: expected a "
                                              "segment starting at {}", path, *expected));
    }
    auto size = fs_.file_size(path);
    if (!size.ok()) return std::move(size).error();
    // A short segment lost the unsynced part of its creation (the size grows with an unsynced
    // truncate) in a crash; it is grown again and recovery finds where its data ends.
    const auto actual = static_cast<std::int64_t>(*size);
    if (actual > file_size_) {
      return Error(Errc::corrupt, fmt::format("{}: size {} bytes, expected {}", path, actual,
                                              file_size_));
    }
    auto file = open_segment(*start, /*create=*/false);
    if (!file.ok()) return std::move(file).error();
    (*file)->assume_written(file_size_);
    files_.push_back(std::move(*file));
    expected = *start + file_size_;
  }
  return {};
}

std::int64_t MappedFileQueue::min_offset() const {
  return files_.empty() ? 0 : files_.front()->start_offset();
}

std::int64_t MappedFileQueue::max_offset() const {
  if (files_.empty()) return 0;
  const MappedFile& last = *files_.back();
  return last.start_offset() + last.write_position();
}

std::int64_t MappedFileQueue::flushed_offset() const {
  for (const auto& f : files_) {
    if (f->flushed_position() < f->write_position() || f.get() == files_.back().get()) {
      return f->start_offset() + f->flushed_position();
    }
  }
  return 0;
}

MappedFile* MappedFileQueue::file_at(std::size_t index) const {
  FERRY_ASSERT(index < files_.size(), "segment index {} of {} in {}", index, files_.size(), dir_);
  return files_[index].get();
}

MappedFile* MappedFileQueue::find(std::int64_t offset) const {
  if (files_.empty() || offset < min_offset() || offset < 0) return nullptr;
  const auto index = static_cast<std::size_t>((offset - min_offset()) / file_size_);
  if (index >= files_.size()) return nullptr;
  MappedFile* f = files_[index].get();
  FERRY_ASSERT(f->contains(offset), "segment {} found for offset {} does not contain it",
               f->path(), offset);
  return f;
}

Result<std::shared_ptr<MappedFile>> MappedFileQueue::open_segment(std::int64_t start,
                                                                  bool create) {
  FERRY_ASSERT(start >= 0 && start % file_size_ == 0, "segment start {} in {} with size {}",
               start, dir_, file_size_);
  const std::string path = join_path(dir_, offset_file_name(start));
  OpenOptions opts;
  opts.create = create;
  opts.truncate = create;
  auto file = fs_.open(path, opts);
  if (!file.ok()) return std::move(file).error();
  if ((*file)->size() != static_cast<std::uint64_t>(file_size_)) {
    Status sized = (*file)->truncate(static_cast<std::uint64_t>(file_size_));
    if (!sized.ok()) {
      // A new segment that could not be sized is removed: a short file would break contiguity
      // now and be grown again by load() after a restart.
      if (create) {
        file->reset();
        Status removed = fs_.remove(path);
        if (!removed.ok() && !removed.error().is(Errc::not_found)) return removed.error();
      }
      return sized.error();
    }
  }
  return std::make_shared<MappedFile>(std::move(*file), start, file_size_);
}

Result<MappedFile*> MappedFileQueue::file_for_append(std::int64_t start_if_empty) {
  if (!files_.empty() && !files_.back()->full()) return files_.back().get();
  const std::int64_t start = files_.empty() ? start_if_empty : files_.back()->end_offset();
  FERRY_ASSERT(start % file_size_ == 0, "new segment of {} at {} is not aligned to {}", dir_,
               start, file_size_);
  if (ready_ && ready_->start_offset() == start) {
    files_.push_back(std::move(ready_));
    ready_.reset();
  } else {
    FERRY_TRY(discard_ready());
    FERRY_TRY(check_room_for_file(fs_, room_, file_size_));
    FERRY_TRY(fs_.create_dirs(dir_));
    auto file = open_segment(start, /*create=*/true);
    if (!file.ok()) return std::move(file).error();
    files_.push_back(std::move(*file));
  }
  FERRY_ASSERT_EQ(files_.back()->write_position(), 0);
  return files_.back().get();
}

Status MappedFileQueue::check_room_for_next() const {
  // The pre-allocated successor already holds its space (truncate() and file_for_append()
  // drop one that is not the successor).
  if (ready_) {
    FERRY_ASSERT(files_.empty() || ready_->start_offset() == files_.back()->end_offset(),
                 "pre-allocated segment {} does not follow the last one, which ends at {}", ready_->path(),
                 files_.back()->end_offset());
    return {};
  }
  return check_room_for_file(fs_, room_, file_size_);
}

Status MappedFileQueue::truncate(std::int64_t offset) {
  FERRY_ASSERT(offset >= 0, "truncate {} at negative offset {}", dir_, offset);
  FERRY_TRY(discard_ready());
  while (!files_.empty() && files_.back()->start_offset() >= offset) {
    const std::string path = files_.back()->path();
    files_.pop_back();
    FERRY_TRY(fs_.remove(path));
  }
  if (files_.empty()) return {};
  MappedFile& last = *files_.back();
  FERRY_ASSERT(last.contains(offset) || offset == last.end_offset(),
               "truncate {} at {} leaves a gap after segment {}", dir_, offset, last.path());
  return last.set_write_position(offset - last.start_offset());
}

Result<std::size_t> MappedFileQueue::remove_files_before(std::int64_t offset) {
  std::size_t removed = 0;
  while (files_.size() > 1 && files_.front()->end_offset() <= offset) {
    const std::string path = files_.front()->path();
    files_.erase(files_.begin());
    FERRY_TRY(fs_.remove(path));
    ++removed;
  }
  return removed;
}

Status MappedFileQueue::remove_all() {
  FERRY_TRY(discard_ready());
  while (!files_.empty()) {
    const std::string path = files_.back()->path();
    files_.pop_back();
    FERRY_TRY(fs_.remove(path));
  }
  Status st = fs_.remove(dir_);
  if (!st.ok() && !st.error().is(Errc::not_found)) return st;
  return {};
}

Task<Status> MappedFileQueue::flush() {
  if (sync_failure_) co_return *sync_failure_;
  // Snapshot the segments to flush; each shared_ptr keeps its segment alive across the sync.
  std::vector<std::shared_ptr<MappedFile>> dirty;
  for (const auto& f : files_) {
    if (f->needs_sync()) dirty.push_back(f);
  }
  for (const auto& f : dirty) {
    if (sync_failure_) co_return *sync_failure_;  // another flush failed meanwhile
    Status st = co_await f->flush();
    if (!st.ok()) {
      if (!sync_failure_) {
        sync_failure_ = Error(st.error().code, fmt::format("sync of {} failed; what was written to {} since offset {} may be lost ({})",
                                                         f->path(), dir_, f->start_offset() + f->flushed_position(),
                                                         st.error().detail));
      }
      co_return *sync_failure_;
    }
  }
  co_return Status{};
}

Status MappedFileQueue::rewrite_for_sync(std::int64_t offset) {
  for (const auto& f : files_) {
    const std::int64_t from = std::max<std::int64_t>(offset - f->start_offset(), 0);
    const std::int64_t to = f->write_position();
    if (from >= to) continue;
    auto view = f->view(from, to - from);
    if (!view.ok()) return std::move(view).error();
    const std::vector<std::uint8_t> copy(view->bytes().begin(), view->bytes().end());
    FERRY_TRY(f->file().pwrite(static_cast<std::uint64_t>(from), Bytes(copy.data(), copy.size())));
    f->require_sync();
  }
  return {};
}

Task<Status> MappedFileQueue::preallocate_next(std::int64_t start_if_empty) {
  if (ready_ || preparing_) co_return Status{};
  FERRY_ASSERT(start_if_empty >= 0 && start_if_empty % file_size_ == 0,
               "first segment of {} at {} is not aligned to {}", dir_, start_if_empty, file_size_);
  const std::int64_t start = files_.empty() ? start_if_empty : files_.back()->end_offset();
  if (files_.empty()) {
    Status made = fs_.create_dirs(dir_);
    if (!made.ok()) co_return made;
  }
  Status room = check_room_for_file(fs_, room_, file_size_);
  if (!room.ok()) co_return room;
  preparing_ = start;
  const std::string path = join_path(dir_, offset_file_name(start));
  OpenOptions opts;
  opts.create = true;
  opts.truncate = true;
  auto opened = fs_.open(path, opts);
  if (!opened.ok()) {
    preparing_.reset();
    co_return std::move(opened).error();
  }
  std::unique_ptr<File> file = std::move(*opened);
  Status st = co_await file->allocate(static_cast<std::uint64_t>(file_size_));
  preparing_.reset();
  const bool in_use = find(start) != nullptr;  // the roll-over created it itself meanwhile
  if (in_use) co_return st;
  if (st.ok() && file->size() != static_cast<std::uint64_t>(file_size_)) {
    st = file->truncate(static_cast<std::uint64_t>(file_size_));
  }
  const std::int64_t wanted = files_.empty() ? start_if_empty : files_.back()->end_offset();
  const bool successor = wanted == start && !ready_;
  if (st.ok() && successor) {
    ready_ = std::make_shared<MappedFile>(std::move(file), start, file_size_);
    co_return Status{};
  }
  // Failed, or orphaned by a truncation: remove it so that the directory stays contiguous.
  file.reset();
  Status removed = fs_.remove(path);
  if (!removed.ok() && !removed.error().is(Errc::not_found)) co_return removed;
  co_return st;
}

Status MappedFileQueue::discard_ready() {
  if (!ready_) return {};
  const std::string path = ready_->path();
  ready_.reset();
  Status removed = fs_.remove(path);
  if (!removed.ok() && !removed.error().is(Errc::not_found)) return removed;
  return {};
}

}  // namespace ferry::store
