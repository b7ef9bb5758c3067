//===- Budget.h - Memory budgets as users write them -------------*- C++
//-*-===//

#ifndef CKPT_REMAT_BUDGET_H
#define CKPT_REMAT_BUDGET_H

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::ckpt::remat {

/// A memory budget: an absolute byte count or a fraction of a reference
/// peak (the no-recompute peak).
struct Budget {
  std::optional<int64_t> bytes;
  std::optional<double> fraction;

  /// Returns the budget in bytes given the reference peak.
  int64_t resolve(int64_t referencePeak) const;
};

/// The largest fraction a budget may be given as (`100x`).
constexpr double kMaxBudgetFraction = 100;

/// Parses `24GiB`, `512 MiB`, `1.5GB`, `4096B` (binary units KiB, MiB, GiB,
/// TiB; decimal KB, MB, GB, TB) or `0.5x`. A bare number is an error (it
/// reads as bytes to some and as a fraction to others), as are fractions
/// outside (0, 100] and sizes below 1 byte or above 4 EiB. On failure returns
/// std::nullopt and sets `error` to a message that quotes `text`.
std::optional<Budget> parseBudget(const std::string &text, std::string &error);

} // namespace mlir::ckpt::remat

#endif // CKPT_REMAT_BUDGET_H
