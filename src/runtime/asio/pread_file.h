// PreadFile: the production File behind OpenOptions::read_only — an O_RDONLY descriptor read with
// pread(2), never mapped, so that another program may rewrite the file meanwhile (a
// configuration file an operator edits) without faulting a mapping. size() is the size at open.
// pwrite, truncate, allocate and view are refused with invalid_argument; sync() has nothing to do.
// Reads block the calling thread: for small files only.
#pragma once

#include <memory>
#include <string>

#include "runtime/file_system.h"

namespace ferry::asio_rt {

// Takes ownership of `fd` (open read-only). Errors: io_error when it cannot be stat'ed,
// invalid_argument when it is not a regular file (the descriptor is closed either way).
Result<std::unique_ptr<File>> adopt_read_only(std::string path, int fd);

}  // namespace ferry::asio_rt
