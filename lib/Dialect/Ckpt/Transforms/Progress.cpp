//===- Progress.cpp - Progress lines of long solves -----------------------===//

#include "ckpt/Dialect/Ckpt/Transforms/Progress.h"

#include "llvm/Support/raw_ostream.h"

#include <mutex>
#include <string>

namespace {
struct ProgressSettings {
  std::mutex mutex;
  bool enabled = true;
  std::string prefix;
};
ProgressSettings &settings() {
  static ProgressSettings instance;
  return instance;
}
} // namespace

bool mlir::ckpt::progressWanted() {
  ProgressSettings &s = settings();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.enabled && llvm::errs().is_displayed();
}

void mlir::ckpt::configureProgress(bool enabled, llvm::StringRef prefix) {
  ProgressSettings &s = settings();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.enabled = enabled;
  s.prefix = prefix.str();
}

void mlir::ckpt::writeProgress(const llvm::Twine &message) {
  if (!progressWanted())
    return;
  ProgressSettings &s = settings();
  std::string line = s.prefix + message.str() + "\n";
  std::lock_guard<std::mutex> lock(s.mutex);
  llvm::errs() << line;
  llvm::errs().flush();
}
