//===- BudgetAttr.h - The resolved budget of a function, in IR ---*- C++ -*-===//
//
// `ckpt.budget` on a `func.func`: the memory budget resolved once into bytes
// (a `0.5x` fraction of the no-recompute peak in the budget's scope becomes a
// byte count when it is first resolved), its scope and the text the user gave.
// Placement sets it when it resolves a `budget=` option and reads it when
// none is given; `ckpt-fit-arena` sets it once and narrows its `target` for
// re-solves; the report and code generation read it.
//
//   func.func @step(...) attributes {ckpt.budget = {bytes = 1000 : i64,
//       requested = "0.5x", scope = "step"}, ckpt.step} { ... }
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_IR_BUDGETATTR_H
#define CKPT_DIALECT_CKPT_IR_BUDGETATTR_H

#include "ckpt/Analysis/BudgetScope.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::ckpt {

/// Name of the `func.func` attribute holding the resolved budget.
inline constexpr llvm::StringLiteral kBudgetAttrName = "ckpt.budget";

/// A memory budget resolved into bytes, as `ckpt.budget` records it.
struct ResolvedBudget {
  /// The budget in bytes, in the terms of `scope` (at least 1).
  int64_t bytes = 0;
  /// What the budget and the peak compared with it cover.
  BudgetScope scope = BudgetScope::Step;
  /// The budget as the user gave it (`0.5x`, `24GiB`), for messages.
  std::string requested;
  /// A tighter placement target in bytes (`ckpt-fit-arena` re-solves so that
  /// the planned arena fits `bytes`); none: placement aims at `bytes`.
  std::optional<int64_t> target;

  /// The bytes placement must fit: `target` if set, else `bytes`.
  int64_t placementLimit() const { return target ? *target : bytes; }
};

/// Sets `ckpt.budget` on `op` (a `func.func`) to `budget`.
void setBudget(Operation *op, const ResolvedBudget &budget);

/// Returns the budget `ckpt.budget` on `op` records, or none without one.
/// The attribute must have passed `verifyBudgetAttribute`.
std::optional<ResolvedBudget> getBudget(Operation *op);

/// `budget` as the reports and the plan JSON state it: `{"bytes": N,
/// "requested": "0.5x", "scope": "step"}`, with `"target": N` when set.
llvm::json::Object budgetToJson(const ResolvedBudget &budget);

/// Verifies `ckpt.budget` on `op`: a `func.func`, and a dictionary with
/// `bytes` (i64 >= 1), `scope` ("step" or "activations"), `requested` (a
/// string) and optionally `target` (i64 from 1 to `bytes`).
LogicalResult verifyBudgetAttribute(Operation *op, Attribute value);

} // namespace mlir::ckpt

#endif // CKPT_DIALECT_CKPT_IR_BUDGETATTR_H
