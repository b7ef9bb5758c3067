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
            "': expected a non-negative number with a unit (24GiB, 512MiB, "
            "1.5GB, 4096) or a fraction of the no-recompute peak (0.5x)";
    return std::nullopt;
  }
  std::string unit(end);
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit[0])))
    unit.erase(unit.begin());
  Budget budget;
  if (unit == "x") {
    budget.fraction = value;
    return budget;
  }
  static const struct {
    const char *name;
    double scale;
  } units[] = {{"", 1},
               {"B", 1},
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
    double bytes = value * u.scale;
    if (bytes > 9.2e18) {
      error = "budget '" + text + "' is too large";
      return std::nullopt;
    }
    budget.bytes = static_cast<int64_t>(std::floor(bytes));
    return budget;
  }
  error = "invalid budget unit '" + unit + "' in '" + text +
          "' (use B, KiB, MiB, GiB, TiB, KB, MB, GB, TB, or x for a fraction "
          "of the no-recompute peak)";
  return std::nullopt;
}
