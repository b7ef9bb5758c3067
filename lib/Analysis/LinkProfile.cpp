//===- LinkProfile.cpp - Host links for activation offload ---------------===//

#include "ckpt/Analysis/LinkProfile.h"

using namespace mlir;
using namespace mlir::ckpt;

namespace {

/// A link with the same rate both ways. The per-copy overhead is an
/// estimate of issuing a cudaMemcpyAsync and starting its DMA (a few
/// microseconds), not a datasheet figure.
LinkProfile symmetricLink(const char *name, const char *description,
                          double bytesPerSecond) {
  LinkProfile profile;
  profile.name = name;
  profile.description = description;
  profile.link.hostToDeviceBytesPerSecond = bytesPerSecond;
  profile.link.deviceToHostBytesPerSecond = bytesPerSecond;
  profile.link.latencySeconds = 5e-6;
  return profile;
}

} // namespace

std::vector<StringRef> mlir::ckpt::getBuiltinLinkNames() {
  return {"pcie-gen4", "pcie-gen5", "nvlink-c2c"};
}

std::optional<LinkProfile> mlir::ckpt::getBuiltinLink(StringRef name) {
  if (name == "pcie-gen4")
    return symmetricLink(
        "pcie-gen4",
        "PCIe Gen4 x16: 32 GB/s each way (NVIDIA A100 datasheet: PCIe Gen4 "
        "64 GB/s, both directions together)",
        32e9);
  if (name == "pcie-gen5")
    return symmetricLink(
        "pcie-gen5",
        "PCIe Gen5 x16: 64 GB/s each way (NVIDIA H100 datasheet: PCIe Gen5 "
        "128 GB/s, both directions together)",
        64e9);
  if (name == "nvlink-c2c")
    return symmetricLink(
        "nvlink-c2c",
        "NVLink-C2C (Grace Hopper): 450 GB/s each way (NVIDIA GH200 "
        "datasheet: NVLink-C2C 900 GB/s, both directions together)",
        450e9);
  return std::nullopt;
}
