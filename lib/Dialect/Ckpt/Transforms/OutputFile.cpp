//===- OutputFile.cpp - Files the passes write, never half-written --------===//

#include "ckpt/Dialect/Ckpt/Transforms/OutputFile.h"

#include "llvm/Support/FileSystem.h"

using namespace llvm;

/// Checks `os` after flushing: a write that failed (ENOSPC) is an error.
static Error flushed(raw_fd_ostream &os) {
  os.flush();
  if (std::error_code ec = os.error()) {
    os.clear_error();
    return errorCodeToError(ec);
  }
  return Error::success();
}

Error mlir::ckpt::writeOutputFile(
    StringRef path, function_ref<Error(raw_ostream &)> write) {
  namespace fs = sys::fs;
  if (path == "-") {
    if (Error error = write(outs()))
      return error;
    return flushed(outs());
  }
  fs::file_status status;
  // As the driver's -o: a symbolic link is written through, not replaced.
  bool special = !fs::status(path, status, /*follow=*/false) &&
                 status.type() != fs::file_type::regular_file &&
                 status.type() != fs::file_type::file_not_found;
  if (special) {
    std::error_code ec;
    raw_fd_ostream os(path, ec, fs::OF_None);
    if (ec)
      return errorCodeToError(ec);
    if (Error error = write(os))
      return error;
    return flushed(os);
  }
  int fd;
  SmallString<128> temp;
  if (std::error_code ec = fs::createUniqueFile(path + ".tmp-%%%%%%%%", fd, temp))
    return errorCodeToError(ec);
  Error result = Error::success();
  {
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    if (Error error = write(os))
      result = std::move(error);
    else
      result = flushed(os);
  }
  if (!result)
    if (std::error_code ec = fs::rename(temp, path))
      result = errorCodeToError(ec);
  if (result)
    fs::remove(temp);
  return result;
}
