//===- PlanSummary.h - A checkpoint plan in words ------------------*- C++ -*-===//
//
// The line a user reads after a placement: the budget as typed and in bytes,
// the plan's peak, its predicted overhead, the engine and its proven bound,
// and what is recomputed, grouped by module scope (repeated blocks folded:
// `h.0-11.attn`) with their bytes, largest first.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_TRANSFORMS_PLANSUMMARY_H
#define CKPT_DIALECT_CKPT_TRANSFORMS_PLANSUMMARY_H

#include "ckpt/Dialect/Ckpt/Transforms/PlanDecisions.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace mlir::ckpt {

/// Module scopes shown by name in a summary; the rest are counted.
constexpr size_t kSummaryScopes = 6;

/// Folds the numbered path components of module scopes that differ only in
/// them: {`h.0.attn`, `h.1.attn`, `h.2.attn`} -> `h.0-2.attn`;
/// {`layer.1`, `layer.3`} -> `layer.{1,3}`. Scopes are `.`-separated paths.
std::string foldScopes(llvm::ArrayRef<std::string> scopes);

/// Describes the plan of `func` (already rewritten: recomputed ops carry
/// `ckpt.recompute`) with `figures`, in one paragraph: its first line
/// `@name: budget ...; peak ...; overhead ...; engine ...`, then
/// `recomputes N ops (bytes): scope bytes (op, op), ...` or `recomputes
/// nothing`.
std::string summarizePlan(func::FuncOp func, const PlanFigures &figures);

} // namespace mlir::ckpt

#endif // CKPT_DIALECT_CKPT_TRANSFORMS_PLANSUMMARY_H
