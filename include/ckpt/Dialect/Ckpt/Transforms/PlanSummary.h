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
#include "mlir/IR/Diagnostics.h"

#include <string>
#include <utility>
#include <vector>

namespace mlir::ckpt {

/// Module scopes shown by name in a summary; the rest are counted.
constexpr size_t kSummaryScopes = 6;

/// Folds the numbered path components of module scopes that differ only in
/// them: {`h.0.attn`, `h.1.attn`, `h.2.attn`} -> `h.0-2.attn`;
/// {`layer.1`, `layer.3`} -> `layer.{1,3}`. Scopes are `.`-separated paths.
std::string foldScopes(llvm::ArrayRef<std::string> scopes);

/// The recomputed ops of one group of module scopes that differ only in
/// their numbers (`h.0-11.attn`).
struct RecomputedScope {
  /// The folded scope (foldScopes); empty for ops without a scope.
  std::string scope;
  /// Bytes of the recomputed results and number of recomputed ops.
  int64_t bytes = 0;
  int64_t ops = 0;
  /// Op name (without the dialect) and its recomputed bytes, largest first.
  std::vector<std::pair<std::string, int64_t>> opBytes;
};

/// The ops of `func` marked `ckpt.recompute`, grouped by folded module
/// scope, largest group first (ties in scope order).
std::vector<RecomputedScope> groupRecomputedOps(func::FuncOp func);

/// Describes the plan of `func` (already rewritten: recomputed ops carry
/// `ckpt.recompute`) with `figures`, in one paragraph: its first line
/// `@name: budget ...; peak ...; overhead ...; engine ...`, then
/// `recomputes N ops (bytes): scope bytes (op, op), ...` or `recomputes
/// nothing`.
std::string summarizePlan(func::FuncOp func, const PlanFigures &figures);

/// While it lives, keeps the summary placement emits (`summarizePlan`'s
/// text, a remark without location) in `summary` instead of letting it be
/// shown: for passes that place on a copy and show the summary their own
/// way (ckpt-pipeline, the HTML report). Other diagnostics pass through.
class PlanSummaryCapture : public ScopedDiagnosticHandler {
public:
  PlanSummaryCapture(MLIRContext *context, std::string &summary);
};

} // namespace mlir::ckpt

#endif // CKPT_DIALECT_CKPT_TRANSFORMS_PLANSUMMARY_H
