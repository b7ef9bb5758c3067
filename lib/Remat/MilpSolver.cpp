//===- MilpSolver.cpp - Checkmate's MILP for plain rematerialization ------===//
//
// The Checkmate formulation (Jain et al., MLSys 2020, Section 4), solved with
// CBC through its C interface. Stages are groups (a node and its
// projections, which one computation produces together; see StageGroups.h);
// G groups, n nodes, m_i = bytes of node i in quanta, w_k = workspace.
//
// Variables (only where they can be nonzero; the rest are constants):
//   R[s][g]  binary, g < s, g recomputable: group g recomputed in stage s.
//            R[s][s] = 1; R of a non-recomputable earlier group is 0.
//            A node's R is its group's R.
//   S[s][i]  binary, 1 <= s < G, node i before group s: node i's buffer is
//            kept from stage s-1 into stage s. Fixed to 0 when no node that
//            reads i can run in stage s or later and i is not an output.
//            S[0][*] = 0; S[G][i] = 1 for outputs, 0 otherwise (the outputs'
//            last computations are kept to the end).
//   U[s][k]  continuous in [0, C]: quanta live while node k of stage s runs,
//            without workspace (C = capacity: budget minus fixed bytes).
//   F[s][i][k] continuous in [0, 1] (Checkmate's FREE): node i's buffer is
//            freed right after node k runs in stage s; i is k or a dep of k.
//
// Constraints, for every stage s:
//   dependencies  R[s][k] <= R[s][i] + S[s][i]   for each edge i -> k between
//                                                 different groups
//   retention     S[s+1][i] <= S[s][i] + R[s][i]
//   single copy   S[s][i] + R[s][i] <= 1          (keeping a copy that is
//                 recomputed before any read in the stage is never useful)
//   memory        U[s][first] = sum_i m_i S[s][i] + m_first R[s][first]
//                 U[s][k] = U[s][k'] - sum_i m_i F[s][i][k'] + m_k R[s][k]
//                           (k' the previous node that can run in stage s)
//                 U[s][k] + w_k R[s][k] <= C
//   freeing       F[s][i][k] <= R[s][k]
//                 F[s][i][k] <= 1 - S[s+1][i]
//                 F[s][i][k] <= 1 - R[s][j]  for each reader j > k of i that
//                                             can run in stage s
// Objective: minimize sum R[s][g] * cost_g (plus the constant base cost).
//
// Checkmate's FREE is the product R[s][k] (1 - S[s+1][i]) prod_j (1 -
// R[s][j]); here only its upper bounds are imposed, and F is continuous:
// with integral R and S the bounds leave F in [0, 0] or [0, 1], memory only
// appears in <= C rows, so freeing less than allowed never helps, and every
// integral (R, S) is feasible iff it is with the exact product.
//
// Agreement with `evaluateSchedule`: for a given R, take the minimal S
// (S[s][i] = 1 iff the last computation of i before stage s is read in stage
// s or later, or is an output's final computation). Then the MILP frees every
// buffer right after the last read bound to it -- the evaluator's rule -- and
// U[s][k] + w_k equals the evaluator's live bytes at that step, while U at
// nodes not computed is at most the live bytes of the next computed step. Any
// other S only keeps more. So an R fits the budget under the evaluator iff
// some S makes the MILP feasible, and both have the same optimum.
//
// Sizes are measured in a quantum: the gcd of all sizes, so rows are exact
// small integers. Beyond MilpOptions::maxExactUnits quanta a coarser quantum
// q is used, and two models are solved, each with the capacity rounded down
// to floor(C / q):
//   the relaxation, sizes rounded down: a schedule within the budget keeps
//     sum_i floor(m_i / q) <= floor(sum_i m_i / q) <= floor(C / q) at every
//     step, so every such schedule is feasible here and the relaxation's
//     bound (or proof of infeasibility) holds for the real problem; its plan
//     is kept when it fits the real budget (then, if proven optimal, it is
//     optimal for the real problem too);
//   the restriction, sizes rounded up: every plan it finds fits the budget.
// A plan whose cost meets the relaxation's bound is optimal.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Remat/ExactSolvers.h"

#include "ChildProcess.h"
#include "ProblemShape.h"
#include "ScheduleCheck.h"
#include "SolveClock.h"
#include "StageGroups.h"

#include <coin/Cbc_C_Interface.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

using namespace mlir::ckpt::remat;
using namespace mlir::ckpt::remat::detail;

namespace {

/// A model column (col >= 0) or a constant value (col < 0).
struct Term {
  int col = -1;
  double value = 0;

  static Term constant(double value) { return {-1, value}; }
  static Term column(int col) { return {col, 0}; }
  bool isConstant() const { return col < 0; }
  bool isZero() const { return col < 0 && value == 0; }
  bool isOne() const { return col < 0 && value == 1; }
};

/// A linear expression: columns with coefficients plus a constant.
struct LinExpr {
  std::vector<int> cols;
  std::vector<double> coefs;
  double constant = 0;

  LinExpr &add(Term term, double coef) {
    if (term.isConstant()) {
      constant += coef * term.value;
    } else if (coef != 0) {
      cols.push_back(term.col);
      coefs.push_back(coef);
    }
    return *this;
  }
};

/// How sizes were turned into quanta.
enum class Rounding {
  /// The quantum divides every size: the model is the problem itself.
  Exact,
  /// Sizes rounded up: a restriction, whose plans all fit the budget.
  Up,
  /// Sizes rounded down: a relaxation, whose bound holds for the problem.
  Down,
};

/// Memory sizes in quanta.
struct Quanta {
  int64_t quantum = 1;
  std::vector<double> bytes, workspace;
  /// Quanta available beyond the fixed bytes (rounded down).
  double capacity = 0;
  Rounding rounding = Rounding::Exact;

  bool exact() const { return rounding == Rounding::Exact; }
  /// Whether a proof of infeasibility or a lower bound of this model holds
  /// for the problem itself.
  bool boundsHold() const { return rounding != Rounding::Up; }
  /// Whether every plan of this model fits the budget.
  bool plansFit() const { return rounding != Rounding::Down; }
};

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Measures `problem`'s sizes in quanta (see MilpOptions::maxExactUnits),
/// rounding them as `inexact` says when the gcd of all sizes is too fine.
/// Requires budgetBytes >= problem.fixedBytes.
Quanta quantize(const Problem &problem, int64_t budgetBytes,
                int64_t maxExactUnits, Rounding inexact) {
  Quanta q;
  int64_t gcd = 0, total = 0, maxWorkspace = 0;
  for (const Node &node : problem.nodes) {
    gcd = std::gcd(gcd, std::gcd(node.bytes, node.workspace));
    total += node.bytes;
    maxWorkspace = std::max(maxWorkspace, node.workspace);
  }
  total += maxWorkspace;
  q.quantum = std::max<int64_t>(gcd, 1);
  if (total / q.quantum > maxExactUnits) {
    q.quantum = std::max(q.quantum,
                         ceilDiv(total, std::max<int64_t>(maxExactUnits, 1)));
    q.rounding = inexact;
  }
  auto measure = [&](int64_t bytes) {
    return static_cast<double>(q.rounding == Rounding::Down
                                   ? bytes / q.quantum
                                   : ceilDiv(bytes, q.quantum));
  };
  for (const Node &node : problem.nodes) {
    q.bytes.push_back(measure(node.bytes));
    q.workspace.push_back(measure(node.workspace));
  }
  q.capacity =
      static_cast<double>((budgetBytes - problem.fixedBytes) / q.quantum);
  return q;
}

/// What a CBC run reported: read from the model in the process that ran
/// CBC, and carried over a pipe when that was a child process.
struct CbcOutcome {
  bool provenInfeasible = false;
  bool provenOptimal = false;
  /// CBC's best possible objective (COIN_DBL_MAX when unknown).
  double bound = std::numeric_limits<double>::max();
  /// The best solution, one value per column; empty when CBC has none.
  std::vector<double> values;
  /// Why CBC's answer is lost (stopped at the deadline, or the child
  /// failed); empty when CBC returned.
  std::string lost;

  /// Reads the outcome of `Cbc_solve` from `model`.
  static CbcOutcome read(Cbc_Model *model);
  /// The bytes that `parse` reads back.
  std::string serialize() const;
  /// Reads `bytes` written by `serialize`; false if they are malformed.
  bool parse(const std::string &bytes);
};

/// Builds the MILP in a CBC model and reads its solution back.
class CheckmateModel {
public:
  CheckmateModel(const Problem &problem, const Quanta &quanta)
      : problem(problem), quanta(quanta), groups(buildStageGroups(problem)),
        model(Cbc_newModel()) {}
  ~CheckmateModel() { Cbc_deleteModel(model); }
  CheckmateModel(const CheckmateModel &) = delete;
  CheckmateModel &operator=(const CheckmateModel &) = delete;

  /// Adds every column and row, then loads them into CBC at once (adding
  /// rows one by one copies CBC's column-major matrix each time: minutes on
  /// a 250-node graph). Stops after the first stage at which the matrix has
  /// more than `maxEntries` entries and returns false (nothing loaded).
  bool build(int64_t maxEntries);
  /// Hands CBC the values of R and S that describe `schedule` as a MIP start.
  /// Returns false (and sets nothing) if the schedule is not in stage form or
  /// does not fit the budget.
  bool setStart(const Schedule &schedule, int64_t budgetBytes);
  /// Solves with CBC within `options`' limit (in a child process killed
  /// past it when `options.enforceTimeLimit`). Call only when the model has
  /// columns and no constant row is violated.
  CbcOutcome solve(const MilpOptions &options);
  /// The schedule of the solution `values` (one value per column).
  Schedule extract(const double *values) const;

  /// A constant row was violated while building.
  bool constantInfeasible = false;
  int binaries = 0, continuous = 0, rows = 0;
  /// Entries of the constraint matrix, and the stages whose rows are in.
  int64_t matrixEntries = 0;
  int32_t stagesBuilt = 0;
  const Problem &problem;
  const Quanta &quanta;
  StageGroups groups;
  Cbc_Model *model;

private:
  Term r(int32_t s, int32_t g) const;
  Term rNode(int32_t s, int32_t k) const { return r(s, groups.groupOf[k]); }
  Term keep(int32_t s, int32_t i) const;
  int addColumn(double lb, double ub, double obj, bool integer);
  void addRow(const LinExpr &expr, char sense, double rhs);
  /// Hands CBC the columns and rows added so far, as one matrix.
  void load();
  bool keepNeeded(int32_t s, int32_t i) const;
  void addStageRows(int32_t s);
  void addMemoryRows(int32_t s);
  std::vector<std::pair<int, double>> addFrees(int32_t s, int32_t k);

  /// rCols[s][g]: column of R[s][g] or -1.
  std::vector<std::vector<int>> rCols;
  /// Columns and rows until `load`: bounds, objective, integrality, and
  /// each row's entries (row, coefficient) per column.
  std::vector<double> colLower, colUpper, objective, rowLower, rowUpper;
  std::vector<int> integers;
  std::vector<std::vector<std::pair<int, double>>> entries;
  /// sCols[s][i]: column of S[s][i] or -1 (i < begin[s]).
  std::vector<std::vector<int>> sCols;
  /// Unique readers and unique deps of every node.
  std::vector<std::vector<int32_t>> readers, deps;
};

} // namespace

Term CheckmateModel::r(int32_t s, int32_t g) const {
  if (g == s)
    return Term::constant(1);
  if (g > s || rCols[s][g] < 0)
    return Term::constant(0);
  return Term::column(rCols[s][g]);
}

Term CheckmateModel::keep(int32_t s, int32_t i) const {
  if (s == groups.size())
    return Term::constant(problem.nodes[i].isOutput ? 1 : 0);
  if (i >= groups.begin[s] || sCols[s][i] < 0)
    return Term::constant(0);
  return Term::column(sCols[s][i]);
}

int CheckmateModel::addColumn(double lb, double ub, double obj, bool integer) {
  const int column = static_cast<int>(objective.size());
  colLower.push_back(lb);
  colUpper.push_back(ub);
  objective.push_back(obj);
  entries.emplace_back();
  if (integer)
    integers.push_back(column);
  ++(integer ? binaries : continuous);
  return column;
}

void CheckmateModel::addRow(const LinExpr &expr, char sense, double rhs) {
  rhs -= expr.constant;
  if (expr.cols.empty()) {
    bool ok = sense == 'L'   ? 0 <= rhs + 1e-9
              : sense == 'G' ? 0 >= rhs - 1e-9
                             : std::fabs(rhs) <= 1e-9;
    constantInfeasible |= !ok;
    return;
  }
  const double infinity = std::numeric_limits<double>::max();
  rowLower.push_back(sense == 'L' ? -infinity : rhs);
  rowUpper.push_back(sense == 'G' ? infinity : rhs);
  for (size_t k = 0; k < expr.cols.size(); ++k)
    entries[expr.cols[k]].push_back({rows, expr.coefs[k]});
  matrixEntries += static_cast<int64_t>(expr.cols.size());
  ++rows;
}

void CheckmateModel::load() {
  if (objective.empty())
    return;
  std::vector<CoinBigIndex> starts = {0};
  std::vector<int> index;
  std::vector<double> value;
  for (const auto &column : entries) {
    for (auto [row, coef] : column) {
      index.push_back(row);
      value.push_back(coef);
    }
    starts.push_back(static_cast<CoinBigIndex>(index.size()));
  }
  Cbc_loadProblem(model, static_cast<int>(objective.size()), rows,
                  starts.data(), index.data(), value.data(), colLower.data(),
                  colUpper.data(), objective.data(), rowLower.data(),
                  rowUpper.data());
  for (int column : integers)
    Cbc_setInteger(model, column);
  entries.clear();
}

bool CheckmateModel::keepNeeded(int32_t s, int32_t i) const {
  if (problem.nodes[i].isOutput)
    return true;
  for (int32_t j : readers[i]) {
    int32_t g = groups.groupOf[j];
    if (g >= s || groups.recomputable[g])
      return true;
  }
  return false;
}

bool CheckmateModel::build(int64_t maxEntries) {
  const int32_t n = static_cast<int32_t>(problem.nodes.size());
  readers.resize(n);
  deps = uniqueDeps(problem);
  for (int32_t k = 0; k < n; ++k)
    for (int32_t i : deps[k])
      readers[i].push_back(k);
  const int32_t numGroups = groups.size();
  rCols.assign(numGroups, {});
  sCols.assign(numGroups, {});
  for (int32_t s = 0; s < numGroups; ++s) {
    rCols[s].assign(s, -1);
    for (int32_t g = 0; g < s; ++g)
      if (groups.recomputable[g])
        rCols[s][g] = addColumn(0, 1, groups.cost[g], true);
    sCols[s].assign(groups.begin[s], -1);
    for (int32_t i = 0; s > 0 && i < groups.begin[s]; ++i)
      if (keepNeeded(s, i))
        sCols[s][i] = addColumn(0, 1, 0, true);
  }
  for (int32_t s = 0; s < numGroups; ++s) {
    addStageRows(s);
    addMemoryRows(s);
    stagesBuilt = s + 1;
    if (matrixEntries > maxEntries) {
      entries.clear();
      return false;
    }
  }
  load();
  return true;
}

void CheckmateModel::addStageRows(int32_t s) {
  const int32_t end = groups.begin[s + 1];
  for (int32_t k = 0; k < end; ++k) {
    Term rk = rNode(s, k);
    for (int32_t i : deps[k])
      if (!rk.isZero() && groups.groupOf[i] != groups.groupOf[k])
        addRow(LinExpr().add(rk, 1).add(rNode(s, i), -1).add(keep(s, i), -1),
               'L', 0);
    // Retention into the next stage (or to the end, for outputs).
    addRow(LinExpr().add(keep(s + 1, k), 1).add(keep(s, k), -1).add(rk, -1),
           'L', 0);
    Term sk = keep(s, k);
    if (!sk.isConstant() && !rk.isConstant())
      addRow(LinExpr().add(sk, 1).add(rk, 1), 'L', 1);
  }
}

std::vector<std::pair<int, double>> CheckmateModel::addFrees(int32_t s,
                                                             int32_t k) {
  std::vector<std::pair<int, double>> frees;
  const int32_t end = groups.begin[s + 1];
  Term rk = rNode(s, k);
  std::vector<int32_t> candidates = deps[k];
  candidates.push_back(k);
  for (int32_t i : candidates) {
    Term next = keep(s + 1, i);
    if (quanta.bytes[i] == 0 || next.isOne())
      continue;
    // Readers of i that may still run in this stage after k.
    std::vector<Term> hazards;
    bool never = false;
    for (int32_t j : readers[i]) {
      Term rj = rNode(s, j);
      if (j <= k || j >= end || rj.isZero())
        continue;
      never |= rj.isOne() || rj.col == rk.col;
      hazards.push_back(rj);
    }
    if (never)
      continue;
    int f = addColumn(0, 1, 0, false);
    Term ft = Term::column(f);
    if (!rk.isConstant())
      addRow(LinExpr().add(ft, 1).add(rk, -1), 'L', 0);
    if (!next.isConstant())
      addRow(LinExpr().add(ft, 1).add(next, 1), 'L', 1);
    for (Term rj : hazards)
      addRow(LinExpr().add(ft, 1).add(rj, 1), 'L', 1);
    frees.push_back({f, quanta.bytes[i]});
  }
  return frees;
}

void CheckmateModel::addMemoryRows(int32_t s) {
  const int32_t end = groups.begin[s + 1];
  int prevU = -1;
  std::vector<std::pair<int, double>> prevFrees;
  for (int32_t k = 0; k < end; ++k) {
    Term rk = rNode(s, k);
    if (rk.isZero())
      continue;
    int u = addColumn(0, quanta.capacity, 0, false);
    LinExpr def;
    def.add(Term::column(u), 1).add(rk, -quanta.bytes[k]);
    if (prevU < 0) {
      for (int32_t i = 0; i < groups.begin[s]; ++i)
        def.add(keep(s, i), -quanta.bytes[i]);
    } else {
      def.add(Term::column(prevU), -1);
      for (auto [f, bytes] : prevFrees)
        def.add(Term::column(f), bytes);
    }
    addRow(def, 'E', 0);
    if (quanta.workspace[k] > 0)
      addRow(LinExpr().add(Term::column(u), 1).add(rk, quanta.workspace[k]),
             'L', quanta.capacity);
    prevFrees = addFrees(s, k);
    prevU = u;
  }
}

CbcOutcome CbcOutcome::read(Cbc_Model *model) {
  CbcOutcome outcome;
  outcome.provenInfeasible = Cbc_isProvenInfeasible(model);
  outcome.provenOptimal = Cbc_isProvenOptimal(model);
  outcome.bound = Cbc_getBestPossibleObjValue(model);
  // A model with no integer column is solved as a plain LP, whose solution
  // is the column solution.
  const double *values = Cbc_bestSolution(model);
  if (!values && Cbc_getNumIntegers(model) == 0 && outcome.provenOptimal)
    values = Cbc_getColSolution(model);
  if (values)
    outcome.values.assign(values, values + Cbc_getNumCols(model));
  return outcome;
}

std::string CbcOutcome::serialize() const {
  std::string bytes;
  // An empty `values` may have a null data(): copy nothing then.
  auto put = [&](const void *data, size_t size) {
    if (size > 0)
      bytes.append(static_cast<const char *>(data), size);
  };
  const char flags[2] = {provenInfeasible, provenOptimal};
  const uint64_t count = values.size();
  put(flags, sizeof flags);
  put(&bound, sizeof bound);
  put(&count, sizeof count);
  put(values.data(), count * sizeof(double));
  return bytes;
}

bool CbcOutcome::parse(const std::string &bytes) {
  size_t at = 0;
  auto get = [&](void *data, size_t size) {
    if (bytes.size() - at < size)
      return false;
    if (size > 0)
      std::memcpy(data, bytes.data() + at, size);
    at += size;
    return true;
  };
  char flags[2];
  uint64_t count = 0;
  if (!get(flags, sizeof flags) || !get(&bound, sizeof bound) ||
      !get(&count, sizeof count) ||
      (bytes.size() - at) / sizeof(double) != count ||
      (bytes.size() - at) % sizeof(double) != 0)
    return false;
  provenInfeasible = flags[0];
  provenOptimal = flags[1];
  values.resize(count);
  return get(values.data(), count * sizeof(double));
}

CbcOutcome CheckmateModel::solve(const MilpOptions &options) {
  Cbc_setObjSense(model, 1);
  Cbc_setLogLevel(model, options.verbose ? 1 : 0);
  if (!options.verbose)
    Cbc_setParameter(model, "slogLevel", "0");
  Cbc_setMaximumSeconds(model, std::max(options.timeLimitSeconds, 0.01));
  Cbc_setParameter(model, "threads", "0");
  Cbc_setParameter(model, "randomSeed", "1");
  Cbc_setParameter(model, "randomCbcSeed", "1");
  if (!options.enforceTimeLimit || !childProcessesAvailable()) {
    Cbc_solve(model);
    return CbcOutcome::read(model);
  }
  const double limit = std::max(options.timeLimitSeconds, 0.01);
  const double deadline = limit + std::max(options.minGraceSeconds,
                                           options.graceFraction * limit);
  ChildProgress progress;
  if (options.progress) {
    progress.onTick = [&](double elapsed) {
      options.progress(elapsed, limit, deadline);
    };
    progress.everySeconds = std::max(options.progressSeconds, 0.1);
  }
  ChildRun run = runInChildProcess(
      deadline,
      [&] {
        Cbc_solve(model);
        return CbcOutcome::read(model).serialize();
      },
      progress);
  CbcOutcome outcome;
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.1f", run.seconds);
  switch (run.ending) {
  case ChildRun::Ending::Finished:
    if (!outcome.parse(run.output)) {
      outcome = CbcOutcome();
      outcome.lost = "CBC's process returned a malformed answer";
    }
    break;
  case ChildRun::Ending::Killed:
    outcome.lost = "CBC overran its time limit and was stopped after " +
                   std::string(seconds) + " s";
    break;
  case ChildRun::Ending::Failed:
    outcome.lost = "CBC's process failed after " + std::string(seconds) +
                   " s: " + run.failure;
    break;
  }
  return outcome;
}

bool CheckmateModel::setStart(const Schedule &schedule, int64_t budgetBytes) {
  const int32_t numGroups = groups.size();
  // R: a first computation of group g ends stage g; every other computation
  // in between is a recomputation in the current stage.
  std::vector<std::vector<char>> recomputed(numGroups);
  for (int32_t s = 0; s < numGroups; ++s)
    recomputed[s].assign(s, 0);
  int32_t stage = 0;
  for (int32_t id : schedule.order) {
    if (id < 0 || static_cast<size_t>(id) >= problem.nodes.size())
      return false;
    if (problem.nodes[id].primary >= 0)
      continue; // Produced with its primary.
    int32_t g = groups.groupOf[id];
    if (stage < numGroups && g == stage) {
      ++stage;
      continue;
    }
    if (stage >= numGroups || g > stage || rCols[stage][g] < 0 ||
        recomputed[stage][g])
      return false;
    recomputed[stage][g] = 1;
  }
  if (stage != numGroups)
    return false;
  // The stage-form schedule of this R, and the minimal S for it: node i is
  // kept into stage s iff its latest computation before the stage is read in
  // it or later (or is an output's final computation).
  Schedule canonical;
  std::vector<size_t> stageStart(numGroups + 1, 0);
  for (int32_t s = 0; s < numGroups; ++s) {
    stageStart[s] = canonical.order.size();
    for (int32_t g = 0; g < s; ++g)
      if (recomputed[s][g])
        appendGroup(groups, g, canonical.order);
    appendGroup(groups, s, canonical.order);
  }
  stageStart[numGroups] = canonical.order.size();
  Evaluation eval = evaluateSchedule(problem, canonical);
  if (!eval.valid() || eval.peakBytes > budgetBytes)
    return false;
  const size_t steps = canonical.order.size();
  std::vector<int64_t> latest(problem.nodes.size(), -1);
  std::vector<int64_t> lastRead(steps, -1);
  for (size_t step = 0; step < steps; ++step) {
    int32_t id = canonical.order[step];
    for (int32_t dep : problem.nodes[id].deps)
      lastRead[latest[dep]] = static_cast<int64_t>(step);
    latest[id] = static_cast<int64_t>(step);
  }
  for (size_t id = 0; id < problem.nodes.size(); ++id)
    if (problem.nodes[id].isOutput)
      lastRead[latest[id]] = static_cast<int64_t>(steps);
  std::vector<int> columns;
  std::vector<double> values;
  std::fill(latest.begin(), latest.end(), -1);
  size_t step = 0;
  for (int32_t s = 0; s < numGroups; ++s) {
    for (; step < stageStart[s]; ++step)
      latest[canonical.order[step]] = static_cast<int64_t>(step);
    for (int32_t g = 0; g < s; ++g)
      if (rCols[s][g] >= 0) {
        columns.push_back(rCols[s][g]);
        values.push_back(recomputed[s][g] ? 1 : 0);
      }
    for (int32_t i = 0; i < static_cast<int32_t>(sCols[s].size()); ++i) {
      if (sCols[s][i] < 0)
        continue;
      int64_t copy = latest[i];
      bool kept = copy >= 0 &&
                  lastRead[copy] >= static_cast<int64_t>(stageStart[s]);
      columns.push_back(sCols[s][i]);
      values.push_back(kept ? 1 : 0);
    }
  }
  if (!columns.empty())
    Cbc_setMIPStartI(model, static_cast<int>(columns.size()), columns.data(),
                     values.data());
  return true;
}

Schedule CheckmateModel::extract(const double *values) const {
  Schedule schedule;
  for (int32_t s = 0; s < groups.size(); ++s)
    for (int32_t g = 0; g <= s; ++g) {
      Term rg = r(s, g);
      if (rg.isOne() || (!rg.isConstant() && values[rg.col] > 0.5))
        appendGroup(groups, g, schedule.order);
    }
  return schedule;
}

namespace {

/// Fills `result` from what CBC reported on `milp`.
void readSolution(const CheckmateModel &milp, const CbcOutcome &outcome,
                  int64_t budgetBytes, SolveResult &result) {
  const Quanta &quanta = milp.quanta;
  const double base = milp.problem.baseCost();
  const double inf = std::numeric_limits<double>::infinity();
  if (!outcome.lost.empty()) {
    result.lowerBound = base;
    result.message += "; " + outcome.lost;
    return;
  }
  if (outcome.provenInfeasible) {
    if (quanta.boundsHold()) {
      result.status = SolveResult::Status::Infeasible;
      result.lowerBound = inf;
      result.message += "; proven infeasible";
    } else {
      result.lowerBound = base;
      result.message += "; infeasible with rounded sizes";
    }
    return;
  }
  // CBC reports COIN_DBL_MAX for an unknown bound.
  const double bound = outcome.bound;
  result.lowerBound =
      quanta.boundsHold() && std::fabs(bound) < 1e299 ? base + bound : base;
  if (outcome.values.empty()) {
    result.message += "; no solution found";
    return;
  }
  result.schedule = milp.extract(outcome.values.data());
  // Zero-cost recomputations are free in the objective; drop useless ones.
  dropNeedlessRecomputations(milp.problem, budgetBytes, result.schedule);
  std::string error = checkSchedule(milp.problem, budgetBytes, result);
  if (!error.empty()) {
    result.schedule = {};
    result.cost = 0;
    result.peakBytes = 0;
    result.message += quanta.plansFit()
                          ? "; internal error, MILP solution rejected: " + error
                          : "; its plan exceeds the budget with exact sizes";
    return;
  }
  // A relaxation's optimum that fits is optimal for the problem: its cost
  // (costs are not rounded) is at most the problem's optimum.
  bool optimal = quanta.boundsHold() && outcome.provenOptimal;
  result.status =
      optimal ? SolveResult::Status::Optimal : SolveResult::Status::Feasible;
  result.lowerBound =
      optimal ? result.cost : std::min(result.lowerBound, result.cost);
}

/// Fills `result` when every variable was a constant (no CBC run): the
/// identity schedule is the only one, so measuring it decides the problem.
void readConstantSolution(CheckmateModel &milp, int64_t budgetBytes,
                          SolveResult &result) {
  result.schedule = milp.extract(nullptr);
  std::string error = checkSchedule(milp.problem, budgetBytes, result);
  if (!error.empty()) {
    result.schedule = {};
    if (milp.quanta.plansFit()) {
      result.message +=
          "; internal error, constant solution rejected: " + error;
    } else {
      result.status = SolveResult::Status::Infeasible;
      result.lowerBound = std::numeric_limits<double>::infinity();
      result.message += "; the only schedule exceeds the budget";
    }
    return;
  }
  result.status = SolveResult::Status::Optimal;
  result.lowerBound = result.cost;
}

const char *roundingName(Rounding rounding) {
  switch (rounding) {
  case Rounding::Exact:
    return "";
  case Rounding::Up:
    return " (sizes rounded up)";
  case Rounding::Down:
    return " (sizes rounded down)";
  }
  return "";
}

/// Builds the model of `quanta`, solves it within `options`' time limit
/// (starting from `start` when given) and reads the answer. `tooLarge`, when
/// given, says whether the model was over `options.maxModelEntries` (then
/// nothing was solved).
SolveResult solveModel(const Problem &problem, int64_t budgetBytes,
                       const Quanta &quanta, const MilpOptions &options,
                       const Schedule *start, bool *tooLarge = nullptr) {
  SolveResult result;
  CheckmateModel milp(problem, quanta);
  const bool built = milp.build(options.maxModelEntries);
  if (tooLarge)
    *tooLarge = !built;
  if (!built) {
    result.lowerBound = problem.baseCost();
    result.message = "model too large: over " +
                     std::to_string(options.maxModelEntries) +
                     " matrix entries (" + std::to_string(milp.matrixEntries) +
                     " in " + std::to_string(milp.rows) + " rows) after " +
                     std::to_string(milp.stagesBuilt) + " of " +
                     std::to_string(milp.groups.size()) +
                     " stages; not solved";
    return result;
  }
  result.message = std::to_string(milp.groups.size()) + " stages, " +
                   std::to_string(milp.binaries) + " binaries, " +
                   std::to_string(milp.continuous) + " continuous, " +
                   std::to_string(milp.rows) + " rows, " +
                   std::to_string(milp.matrixEntries) +
                   " entries; quantum " + std::to_string(quanta.quantum) +
                   " bytes" + roundingName(quanta.rounding);
  if (start && Cbc_getNumCols(milp.model) > 0) {
    result.startedFromGivenSchedule = milp.setStart(*start, budgetBytes);
    result.message += result.startedFromGivenSchedule
                          ? "; started from the given schedule"
                          : "; the given start is not in stage form";
  }
  if (milp.constantInfeasible) {
    result.status = quanta.boundsHold() ? SolveResult::Status::Infeasible
                                        : SolveResult::Status::Unknown;
    result.lowerBound = quanta.boundsHold()
                            ? std::numeric_limits<double>::infinity()
                            : problem.baseCost();
    result.message += "; a constant constraint is violated";
    return result;
  }
  if (Cbc_getNumCols(milp.model) == 0)
    readConstantSolution(milp, budgetBytes, result);
  else
    readSolution(milp, milp.solve(options), budgetBytes, result);
  return result;
}

/// Solves with coarse quanta: the relaxation for a bound (and a plan when its
/// plan fits), then the restriction `up` for a plan, each within half the
/// time.
SolveResult solveRounded(const Problem &problem, int64_t budgetBytes,
                         const Quanta &up, const MilpOptions &options) {
  MilpOptions half = options;
  half.timeLimitSeconds = options.timeLimitSeconds / 2;
  Quanta down = quantize(problem, budgetBytes, options.maxExactUnits,
                         Rounding::Down);
  bool tooLarge = false;
  SolveResult result =
      solveModel(problem, budgetBytes, down, half, options.start, &tooLarge);
  result.message = "relaxation: " + result.message;
  // The restriction's model is built over the same stages, only with sizes
  // rounded the other way (GPT-2's full step: 5% more entries), so it would
  // be refused too: do not build it again.
  if (tooLarge || result.status == SolveResult::Status::Optimal ||
      result.status == SolveResult::Status::Infeasible)
    return result;
  const Schedule *start =
      result.hasSchedule() ? &result.schedule : options.start;
  SolveResult restricted = solveModel(problem, budgetBytes, up, half, start);
  result.message += "; restriction: " + restricted.message;
  result.startedFromGivenSchedule |= restricted.startedFromGivenSchedule;
  if (restricted.hasSchedule() &&
      (!result.hasSchedule() || restricted.cost < result.cost)) {
    result.schedule = std::move(restricted.schedule);
    result.cost = restricted.cost;
    result.peakBytes = restricted.peakBytes;
    result.status = SolveResult::Status::Feasible;
  }
  if (result.hasSchedule()) {
    // Costs are sums of the same numbers in another order: allow rounding.
    if (result.cost <= result.lowerBound * (1 + 1e-12) + 1e-9) {
      result.status = SolveResult::Status::Optimal;
      result.lowerBound = result.cost;
      result.message += "; the plan meets the relaxation's bound";
    }
    result.lowerBound = std::min(result.lowerBound, result.cost);
  }
  return result;
}

} // namespace

SolveResult mlir::ckpt::remat::solveMilp(const Problem &problem,
                                         int64_t budgetBytes,
                                         const MilpOptions &options) {
  detail::SolveClock clock;
  SolveResult result;
  auto finish = [&]() { return clock.finish(result); };
  if (!clock.accept(problem, result))
    return finish();
  if (budgetBytes < problem.fixedBytes) {
    result.status = SolveResult::Status::Infeasible;
    result.lowerBound = std::numeric_limits<double>::infinity();
    result.message = "the fixed bytes alone exceed the budget";
    return finish();
  }
  Quanta quanta =
      quantize(problem, budgetBytes, options.maxExactUnits, Rounding::Up);
  result = quanta.exact()
               ? solveModel(problem, budgetBytes, quanta, options, options.start)
               : solveRounded(problem, budgetBytes, quanta, options);
  // A start never makes the answer worse: CBC may run out of time before it
  // has completed the start into a solution and return a costlier one.
  if (options.start) {
    Evaluation start = evaluateSchedule(problem, *options.start);
    if (start.valid() && start.peakBytes <= budgetBytes &&
        (!result.hasSchedule() || start.totalCost < result.cost)) {
      result.schedule = *options.start;
      result.cost = start.totalCost;
      result.peakBytes = start.peakBytes;
      result.status = SolveResult::Status::Feasible;
      result.lowerBound = std::min(result.lowerBound, result.cost);
      result.message += "; kept the start, cheaper than CBC's plan";
    }
  }
  return finish();
}

SolveResult mlir::ckpt::remat::solveMilp(const Problem &problem,
                                         int64_t budgetBytes,
                                         double timeLimitSeconds) {
  MilpOptions options;
  options.timeLimitSeconds = timeLimitSeconds;
  return solveMilp(problem, budgetBytes, options);
}
