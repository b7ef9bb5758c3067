//===- FuzzRegistry.h - The dialect registry every fuzz target uses -*- C++
//-*-===//

#ifndef CKPT_FUZZ_FUZZREGISTRY_H
#define CKPT_FUZZ_FUZZREGISTRY_H

#include "ckpt/InitAll.h"

#include "mlir/IR/DialectRegistry.h"

namespace mlir::ckpt::fuzz {

/// Returns a registry with the ckpt dialects (built once, never freed, so
/// that leak detection stays quiet about it).
inline const DialectRegistry &getRegistry() {
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    registerAllDialects(*r);
    return r;
  }();
  return *registry;
}

} // namespace mlir::ckpt::fuzz

#endif // CKPT_FUZZ_FUZZREGISTRY_H
