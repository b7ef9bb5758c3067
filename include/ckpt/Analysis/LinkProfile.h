//===- LinkProfile.h - Host links for activation offload ---------*- C++
//-*-===//
//
// The links between a GPU and host memory that offload plans copy over, with
// the datasheet figures they come from. A profile turns into the plain
// `remat::CopyLink` the offload solver and its verifier read.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_ANALYSIS_LINKPROFILE_H
#define CKPT_ANALYSIS_LINKPROFILE_H

#include "ckpt/Remat/OffloadSchedule.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::ckpt {

/// One host link.
struct LinkProfile {
  /// Identifier (`pcie-gen5`).
  std::string name;
  /// Human-readable description, with the source of the figures.
  std::string description;
  /// The link in the offload model's terms.
  remat::CopyLink link;
};

/// Names of the built-in links, in a fixed order: "pcie-gen4", "pcie-gen5",
/// "nvlink-c2c".
std::vector<llvm::StringRef> getBuiltinLinkNames();

/// Returns the built-in link `name`, or nullopt.
std::optional<LinkProfile> getBuiltinLink(llvm::StringRef name);

} // namespace mlir::ckpt

#endif // CKPT_ANALYSIS_LINKPROFILE_H
