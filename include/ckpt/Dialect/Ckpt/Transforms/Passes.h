//===- Passes.h - Passes of the ckpt dialect --------------------*- C++ -*-===//
//
// Declares the ckpt passes and their registration.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_TRANSFORMS_PASSES_H
#define CKPT_DIALECT_CKPT_TRANSFORMS_PASSES_H

#include "ckpt/Analysis/BudgetScope.h"
#include "ckpt/Analysis/Objective.h"
#include "ckpt/Dialect/Ckpt/Transforms/BudgetOption.h"
#include "ckpt/Dialect/Ckpt/Transforms/DeviceWorkspaceOption.h"
#include "ckpt/Dialect/Ckpt/Transforms/ExactEnginesOption.h"
#include "ckpt/Dialect/Ckpt/Transforms/PlanAlgorithmOption.h"
#include "ckpt/Dialect/Ckpt/Transforms/StrategyOption.h"

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
