//===- Budget.cpp - Memory budgets as users write them --------------------===//

#include "ckpt/Remat/Budget.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

using namespace mlir::ckpt::remat;

int64_t Budget::resolve(int64_t referencePeak) const {
  if (bytes)
    return *bytes;
  return static_cast<int64_t>(std::floor(*fraction * double(referencePeak)));
}

std::optional<Budget> mlir::ckpt::remat::parseBudget(const std::string &text,
                                                     std::string &error) {
  const char *begin = text.c_str();
  char *end = nullptr;
  double value = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(value) || value < 0) {
    error = "invalid budget '" + text +
            "': expected a positive number with a unit (24GiB, 512MiB, "
            "1.5GB, 4096B) or a fraction of the no-recompute peak (0.5x)";
    return std::nullopt;
  }
  std::string unit(end);
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit[0])))
    unit.erase(unit.begin());
  // The number as typed, without its unit, for suggestions.
  std::string number(begin, static_cast<const char *>(end));
  Budget budget;
  if (unit.empty()) {
    // A bare number is ambiguous: 0.5 read as bytes is "no plan within 0 B",
    // 4096 read as a fraction is no budget at all.
    error = "budget '" + text + "' has no unit: write " + number +
            "x for a fraction of the no-recompute peak, or bytes with a unit "
            "(" + number + "B, " + number + "MiB, " + number + "GiB)";
    return std::nullopt;
  }
  if (unit == "x") {
    if (!(value > 0) || value > kMaxBudgetFraction) {
      error = "budget '" + text +
              "' is out of range: a fraction of the no-recompute peak must "
              "be above 0x and at most " +
              std::to_string(int(kMaxBudgetFraction)) + "x";
      return std::nullopt;
    }
    budget.fraction = value;
    return budget;
  }
  static const struct {
    const char *name;
    double scale;
  } units[] = {{"B", 1},
               {"KiB", 1024.0},
               {"MiB", 1048576.0},
               {"GiB", 1073741824.0},
               {"TiB", 1099511627776.0},
               {"KB", 1e3},
               {"MB", 1e6},
               {"GB", 1e9},
               {"TB", 1e12}};
  for (const auto &u : units) {
    if (unit != u.name)
      continue;
    double bytes = std::floor(value * u.scale);
    // 2^62 bytes (4 EiB): far above any machine, and room for the planner's
    // sums of a budget with a few sizes without overflow.
    if (bytes > 4611686018427387904.0) {
      error = "budget '" + text + "' is out of range: at most 4 EiB";
      return std::nullopt;
    }
    if (bytes < 1) {
      error = "budget '" + text + "' is out of range: at least 1 byte";
      return std::nullopt;
    }
    budget.bytes = static_cast<int64_t>(bytes);
    return budget;
  }
  error = "invalid budget unit '" + unit + "' in '" + text +
          "' (use B, KiB, MiB, GiB, TiB, KB, MB, GB, TB, or x for a fraction "
          "of the no-recompute peak)";
  return std::nullopt;
}
