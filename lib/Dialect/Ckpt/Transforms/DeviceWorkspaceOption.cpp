//===- DeviceWorkspaceOption.cpp - device-workspace=, parsed once ---------===//

#include "ckpt/Dialect/Ckpt/Transforms/DeviceWorkspaceOption.h"

#include "ckpt/Remat/Budget.h"
#include "ckpt/Target/DeviceScratch.h"

#include "llvm/ADT/STLExtras.h"

#include <cctype>

using namespace mlir::ckpt;

DeviceWorkspaceOption::DeviceWorkspaceOption(std::string text)
    : TextOptionValue(std::move(text)) {
  const std::string &given = getText();
  if (given.empty())
    return;
  if (given == "cuda") {
    kind = Kind::Cuda;
    return;
  }
  // A size, never a fraction: a bare number is bytes, and 0 removes the
  // reservation.
  kind = Kind::Bytes;
  if (given == "0" || given == "0B")
    return;
  std::string sized = given;
  if (llvm::all_of(sized, [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      }))
    sized += "B";
  std::string budgetError;
  std::optional<remat::Budget> parsed = remat::parseBudget(sized, budgetError);
  if (!parsed || !parsed->bytes) {
    kind = Kind::None;
    error = "bad device workspace size '" + given +
            "': expected 'cuda', 0, or bytes (64MiB, 4096) up to 4 EiB, not "
            "a fraction of the peak";
    return;
  }
  bytes = *parsed->bytes;
}

std::optional<int64_t> DeviceWorkspaceOption::getBytes() const {
  switch (kind) {
  case Kind::None:
    return std::nullopt;
  case Kind::Cuda:
    return kCudaDeviceScratchBytes;
  case Kind::Bytes:
    return bytes;
  }
  return std::nullopt;
}
