//===- Passes.h - Passes of the ckpt dialect ---------------------*- C++
//-*-===//
//
// Declares the ckpt passes and their registration.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_TRANSFORMS_PASSES_H
#define CKPT_DIALECT_CKPT_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::ckpt {

#define GEN_PASS_DECL
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"

} // namespace mlir::ckpt

#endif // CKPT_DIALECT_CKPT_TRANSFORMS_PASSES_H
