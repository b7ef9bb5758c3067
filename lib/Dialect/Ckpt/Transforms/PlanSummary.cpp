//===- PlanSummary.cpp - A checkpoint plan in words -----------------------===//

#include "ckpt/Dialect/Ckpt/Transforms/PlanSummary.h"

#include "ckpt/Analysis/StepReport.h"
#include "ckpt/Dialect/Ckpt/IR/CkptCost.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/Transforms/BaselineStrategies.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <set>

using namespace mlir;
using namespace mlir::ckpt;

static bool isNumber(StringRef part) {
  return !part.empty() && llvm::all_of(part, llvm::isDigit);
}

/// `0-11` for a contiguous set, `{1,3}` otherwise.
static std::string showNumbers(const std::set<int64_t> &numbers) {
  if (numbers.size() == 1)
    return std::to_string(*numbers.begin());
  int64_t first = *numbers.begin(), last = *numbers.rbegin();
  if (last - first + 1 == static_cast<int64_t>(numbers.size()))
    return std::to_string(first) + "-" + std::to_string(last);
  std::string text = "{";
  for (auto [i, n] : llvm::enumerate(numbers))
    text += (i ? "," : "") + std::to_string(n);
  return text + "}";
}

std::string mlir::ckpt::foldScopes(llvm::ArrayRef<std::string> scopes) {
  // Scopes share one shape here (the caller groups them by it): numbered
  // components become the set of their numbers.
  if (scopes.empty())
    return "";
  SmallVector<StringRef> shape;
  StringRef(scopes.front()).split(shape, '.');
  std::vector<std::set<int64_t>> numbers(shape.size());
  for (const std::string &scope : scopes) {
    SmallVector<StringRef> parts;
    StringRef(scope).split(parts, '.');
    for (auto [i, part] : llvm::enumerate(parts)) {
      int64_t n = 0;
      if (i < numbers.size() && isNumber(part) && !part.getAsInteger(10, n))
        numbers[i].insert(n);
    }
  }
  std::string folded;
  for (auto [i, part] : llvm::enumerate(shape)) {
    if (i)
      folded += ".";
    folded += isNumber(part) && !numbers[i].empty() ? showNumbers(numbers[i])
                                                    : part.str();
  }
  return folded;
}

/// `scope` with each numbered component replaced by `#`: the key under
/// which repeated blocks fold together.
static std::string foldedScopeKey(StringRef scope) {
  SmallVector<StringRef> parts;
  scope.split(parts, '.');
  std::string key;
  for (auto [i, part] : llvm::enumerate(parts))
    key += (i ? "." : "") + (isNumber(part) ? std::string("#") : part.str());
  return key;
}

namespace {
/// Recomputed ops under one folded scope, while they are gathered.
struct ScopeGroup {
  std::vector<std::string> scopes;
  int64_t bytes = 0;
  int64_t ops = 0;
  /// Op name (without the dialect) -> bytes.
  std::map<std::string, int64_t> byOp;
};
} // namespace

std::vector<RecomputedScope>
mlir::ckpt::groupRecomputedOps(func::FuncOp func) {
  std::map<std::string, ScopeGroup> groups;
  func.walk([&](Operation *op) {
    if (!op->hasAttr(CkptDialect::getRecomputeAttrName()))
      return;
    int64_t bytes = 0;
    for (Type type : op->getResultTypes())
      bytes += std::max<int64_t>(0, getTensorBytes(type));
    std::string scope = getModuleScope(op->getLoc());
    ScopeGroup &group = groups[foldedScopeKey(scope)];
    if (!llvm::is_contained(group.scopes, scope))
      group.scopes.push_back(scope);
    group.bytes += bytes;
    group.ops += 1;
    StringRef name = op->getName().getStringRef();
    group.byOp[name.substr(name.find('.') + 1).str()] += bytes;
  });
  std::vector<RecomputedScope> result;
  for (auto &[shape, group] : groups) {
    RecomputedScope entry;
    entry.scope = foldScopes(group.scopes);
    entry.bytes = group.bytes;
    entry.ops = group.ops;
    entry.opBytes.assign(group.byOp.begin(), group.byOp.end());
    std::stable_sort(entry.opBytes.begin(), entry.opBytes.end(),
                     [](const auto &x, const auto &y) {
                       return x.second > y.second;
                     });
    result.push_back(std::move(entry));
  }
  std::stable_sort(result.begin(), result.end(),
                   [](const RecomputedScope &x, const RecomputedScope &y) {
                     return x.bytes > y.bytes;
                   });
  return result;
}

std::string mlir::ckpt::summarizePlan(func::FuncOp func,
                                      const PlanFigures &figures) {
  std::string text;
  llvm::raw_string_ostream os(text);
  double reference =
      double(std::max<int64_t>(1, figures.noRecomputePeakBytes));
  os << "@" << func.getSymName() << ": budget ";
  if (figures.budgetBytes < 0)
    os << "none";
  else
    os << figures.budgetText << " = " << formatBytes(figures.budgetBytes);
  if (figures.targetBytes >= 0)
    os << ", placed under a target of " << formatBytes(figures.targetBytes);
  os << " (budget-scope=" << stringifyBudgetScope(figures.scope)
     << "); peak " << formatBytes(figures.peakBytes) << " ("
     << llvm::formatv("{0:f3}", double(figures.peakBytes) / reference)
     << "x of " << formatBytes(figures.noRecomputePeakBytes)
     << " without recomputation); overhead "
     << llvm::formatv("+{0:f2}%", 100 * figures.overhead) << " ("
     << figures.objective << "); engine "
     << (figures.engine.empty() ? figures.strategy : figures.engine);
  if (figures.lowerBoundOverhead)
    os << ", every plan within the budget costs at least "
       << llvm::formatv("+{0:f2}%", 100 * *figures.lowerBoundOverhead);

  std::vector<RecomputedScope> groups = groupRecomputedOps(func);
  int64_t totalOps = 0, totalBytes = 0;
  for (const RecomputedScope &group : groups) {
    totalOps += group.ops;
    totalBytes += group.bytes;
  }
  os << "\n  ";
  if (totalOps == 0) {
    os << "recomputes nothing";
    return text;
  }
  os << "recomputes " << totalOps << (totalOps == 1 ? " op" : " ops") << " ("
     << formatBytes(totalBytes) << "):";
  for (auto [i, group] : llvm::enumerate(groups)) {
    if (i == kSummaryScopes) {
      os << " and " << groups.size() - i << " more scopes";
      break;
    }
    os << (i ? ";" : "") << " "
       << (group.scope.empty() ? "(no scope)" : group.scope) << " "
       << formatBytes(group.bytes) << " (";
    for (auto [k, op] : llvm::enumerate(group.opBytes)) {
      if (k == 3) {
        os << ", ...";
        break;
      }
      os << (k ? ", " : "") << op.first;
    }
    os << ")";
  }
  return text;
}

PlanSummaryCapture::PlanSummaryCapture(MLIRContext *context,
                                       std::string &summary)
    : ScopedDiagnosticHandler(context, [&summary](Diagnostic &diag) {
        if (diag.getSeverity() != DiagnosticSeverity::Remark ||
            !isa<UnknownLoc>(diag.getLocation()))
          return failure();
        summary = diag.str();
        return success();
      }) {}
