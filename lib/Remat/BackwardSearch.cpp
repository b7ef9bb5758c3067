//===- BackwardSearch.cpp - Pebbling search back from the last node -------===//
//
// See BackwardSearch.h for the search space, why it is complete, and why
// skipping supersets of reached sets keeps it so.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Remat/BackwardSearch.h"

#include "ProblemShape.h"

#include <algorithm>
#include <queue>
#include <random>
#include <tuple>
#include <unordered_map>

using namespace mlir::ckpt::remat;

namespace {

/// A set's identity: the sums, over its members, of two independent random
/// 64-bit keys (so a member's key can be added or taken away in O(1)).
struct SetKey {
  uint64_t first = 0;
  uint64_t second = 0;

  bool operator==(const SetKey &other) const {
    return first == other.first && second == other.second;
  }
  SetKey minus(uint64_t a, uint64_t b) const { return {first - a, second - b}; }
};

struct SetKeyHash {
  size_t operator()(const SetKey &key) const {
    return static_cast<size_t>(key.first ^ (key.second * 0x9e3779b97f4a7c15ull));
  }
};

/// One search run.
class Search {
public:
  Search(const Problem &problem, int64_t budgetBytes,
         const BackwardSearchOptions &options,
         const BackwardWindow *window = nullptr)
      : problem(problem), budget(budgetBytes), options(options),
        n(static_cast<int32_t>(problem.nodes.size())),
        deps(detail::uniqueDeps(problem)), window(window) {}

  BackwardSearchResult run() {
    BackwardSearchResult result = search();
    result.work = work;
    return result;
  }

private:
  BackwardSearchResult search();
  /// The members' bytes.
  int64_t bytesOf(const std::vector<int32_t> &set) const {
    int64_t sum = 0;
    for (int32_t v : set)
      sum += problem.nodes[v].bytes;
    return sum;
  }
  SetKey keyOf(const std::vector<int32_t> &set) const {
    SetKey key;
    for (int32_t v : set) {
      key.first += keyA[v];
      key.second += keyB[v];
    }
    return key;
  }
  /// The members of `set` and their ancestors, as bits.
  std::vector<uint64_t> ancestorClosure(const std::vector<int32_t> &set) const;
  /// Number of nodes that are members of `set` or ancestors of one.
  int32_t ancestorCount(const std::vector<int32_t> &set) const;
  /// The sum of the costs of those nodes.
  double ancestorCost(const std::vector<int32_t> &set) const;
  /// The nodes left to compute from `set`: its ancestor count, or in a
  /// window the members and ancestors reached without passing through an
  /// available value (the available ones not counted).
  int32_t remainingCount(const std::vector<int32_t> &set);
  /// The priority of `set`, reached at `spent`: its remaining count, or
  /// with `minimizeCost` the cost spent plus its remaining nodes' costs.
  double priorityOf(const std::vector<int32_t> &set, double spent);
  /// The costs of the nodes counted by the last `remainingCount` call in a
  /// window, and the largest of them from `firstNew` on (-1: none).
  double remainingCostSum = 0;
  int32_t remainingLastNew = -1;
  /// Whether the search may stop at `set`.
  bool isGoal(const std::vector<int32_t> &set) const {
    for (int32_t v : set)
      if (!available[v])
        return false;
    return true;
  }
  /// Whether `h`, a member of `set`, is an ancestor of another member.
  bool isNeededByAnother(const std::vector<int32_t> &set, int32_t h) const {
    for (int32_t v : set)
      if (v != h && (ancestors[static_cast<size_t>(v) * words + h / 64] >>
                     (h % 64)) & 1)
        return true;
    return false;
  }
  /// Whether a set reached so far at no more than `spent` is `set` less
  /// one or two members.
  bool holdsReachedSet(const std::vector<int32_t> &set, const SetKey &key,
                       double spent);
  /// Whether `key` was reached at no more than `spent`.
  bool reachedAtMost(const SetKey &key, double spent) const {
    auto it = reached.find(key);
    return it != reached.end() && it->second <= spent;
  }
  /// Adds a reached set with its parent and the node computed between them;
  /// returns its index.
  int32_t addState(std::vector<int32_t> set, const SetKey &key, int32_t parent,
                   int32_t computed, double spent);

  const Problem &problem;
  const int64_t budget;
  const BackwardSearchOptions &options;
  const int32_t n;
  std::vector<std::vector<int32_t>> deps;
  /// The window searched (null: the whole problem), and its available
  /// values as a mask (all false for the whole problem).
  const BackwardWindow *window;
  std::vector<char> available;
  /// `remainingCount` scratch.
  std::vector<int32_t> visitStamp, stack;
  int32_t stamp = 0;
  std::vector<uint64_t> keyA, keyB;
  /// ancestors[v]: bit u set when u is v or an ancestor of v.
  std::vector<uint64_t> ancestors;
  size_t words = 0;

  /// Every reached set, with the set it was reached from (the later one)
  /// and the node computed in between. Only expanded sets keep their
  /// members (the others are rebuilt from their parent's when expanded):
  /// a set has as many children as members, so this stores far fewer.
  std::vector<std::vector<int32_t>> sets;
  std::vector<int32_t> parentOf, computedBefore;
  /// The cost spent to reach each set (all zero without `minimizeCost`).
  std::vector<double> spentAt;
  std::vector<SetKey> stateKey;
  /// Each set's frontier (ordered windows; -1 otherwise).
  std::vector<int32_t> frontierOf;
  /// Every reached set, with the least cost it was reached at.
  std::unordered_map<SetKey, double, SetKeyHash> reached;
  int64_t work = 0;
  int64_t storedMembers = 0;
};

std::vector<uint64_t>
Search::ancestorClosure(const std::vector<int32_t> &set) const {
  std::vector<uint64_t> closure(words, 0);
  for (int32_t v : set) {
    const uint64_t *row = &ancestors[static_cast<size_t>(v) * words];
    for (size_t w = 0; w < words; ++w)
      closure[w] |= row[w];
  }
  return closure;
}

int32_t Search::ancestorCount(const std::vector<int32_t> &set) const {
  int32_t count = 0;
  for (uint64_t bits : ancestorClosure(set))
    count += __builtin_popcountll(bits);
  return count;
}

double Search::ancestorCost(const std::vector<int32_t> &set) const {
  std::vector<uint64_t> closure = ancestorClosure(set);
  double cost = 0;
  for (size_t w = 0; w < words; ++w)
    for (uint64_t bits = closure[w]; bits; bits &= bits - 1)
      cost += problem.nodes[w * 64 + __builtin_ctzll(bits)].cost;
  return cost;
}

double Search::priorityOf(const std::vector<int32_t> &set, double spent) {
  const int32_t count = remainingCount(set);
  if (!options.minimizeCost)
    return count;
  if (!window) {
    work += count;
    return spent + ancestorCost(set);
  }
  return spent + remainingCostSum;
}

int32_t Search::remainingCount(const std::vector<int32_t> &set) {
  if (!window) {
    work += static_cast<int64_t>(words);
    return ancestorCount(set);
  }
  remainingCostSum = 0;
  remainingLastNew = -1;
  ++stamp;
  int32_t count = 0;
  stack.clear();
  for (int32_t v : set)
    if (!available[v] && visitStamp[v] != stamp) {
      visitStamp[v] = stamp;
      stack.push_back(v);
    }
  while (!stack.empty()) {
    int32_t v = stack.back();
    stack.pop_back();
    ++count;
    remainingCostSum += problem.nodes[v].cost;
    if (v >= window->firstNew)
      remainingLastNew = std::max(remainingLastNew, v);
    work += 1 + static_cast<int64_t>(deps[v].size());
    for (int32_t u : deps[v])
      if (!available[u] && visitStamp[u] != stamp) {
        visitStamp[u] = stamp;
        stack.push_back(u);
      }
  }
  return count;
}

bool Search::holdsReachedSet(const std::vector<int32_t> &set,
                             const SetKey &key, double spent) {
  const bool pairs = !window || set.size() <= kMaxPairPrunedMembers;
  for (size_t i = 0; i < set.size(); ++i) {
    SetKey less = key.minus(keyA[set[i]], keyB[set[i]]);
    ++work;
    if (reachedAtMost(less, spent))
      return true;
    for (size_t j = i + 1; pairs && j < set.size(); ++j) {
      ++work;
      if (reachedAtMost(less.minus(keyA[set[j]], keyB[set[j]]), spent))
        return true;
    }
  }
  return false;
}

int32_t Search::addState(std::vector<int32_t> set, const SetKey &key,
                         int32_t parent, int32_t computed, double spent) {
  int32_t id = static_cast<int32_t>(sets.size());
  // The start keeps its members; the others get them when expanded.
  if (parent >= 0)
    set.clear();
  storedMembers += static_cast<int64_t>(set.size());
  sets.push_back(std::move(set));
  parentOf.push_back(parent);
  computedBefore.push_back(computed);
  spentAt.push_back(spent);
  stateKey.push_back(key);
  auto [it, inserted] = reached.try_emplace(key, spent);
  if (!inserted)
    it->second = std::min(it->second, spent);
  return id;
}

BackwardSearchResult Search::search() {
  BackwardSearchResult result;
  if (std::optional<std::string> error = problem.validate()) {
    result.message = "malformed problem: " + *error;
    return result;
  }
  if (n == 0) {
    result.message = "nothing to compute";
    return result;
  }
  if (n > options.maxNodes) {
    result.message = "more than " + std::to_string(options.maxNodes) + " nodes";
    return result;
  }
  // A window in the problem's order knows which nodes it computes for the
  // first time, so it can keep the others that are not recomputable from
  // being computed again, and any node may be an output (its buffer is
  // then live after the window, so needed).
  const bool orderedWindow = window && options.problemOrder;
  if (orderedWindow ? !detail::hasNoProjections(problem)
                    : !detail::isFreelyReorderable(problem)) {
    result.message =
        orderedWindow
            ? "the backward search needs a problem without projections"
            : "the backward search needs every node recomputable, no "
              "projections, and the last node as the only output";
    return result;
  }
  words = (static_cast<size_t>(n) + 63) / 64;
  ancestors.assign(static_cast<size_t>(n) * words, 0);
  for (int32_t v = 0; v < n; ++v) {
    uint64_t *row = &ancestors[static_cast<size_t>(v) * words];
    row[v / 64] |= uint64_t{1} << (v % 64);
    for (int32_t u : deps[v]) {
      const uint64_t *from = &ancestors[static_cast<size_t>(u) * words];
      for (size_t w = 0; w < words; ++w)
        row[w] |= from[w];
    }
  }
  const int32_t last = n - 1;
  std::vector<int32_t> start{last};
  available.assign(n, 0);
  if (window) {
    start = window->needed;
    for (int32_t v : start)
      if (v < 0 || v >= n) {
        result.message = "a needed value is not a node";
        return result;
      }
    for (int32_t v : window->available) {
      if (v < 0 || v >= n) {
        result.message = "an available value is not a node";
        return result;
      }
      available[v] = 1;
    }
    std::sort(start.begin(), start.end());
    start.erase(std::unique(start.begin(), start.end()), start.end());
    visitStamp.assign(n, 0);
  } else if (ancestorCount({last}) != n) {
    result.message = "a node is not an ancestor of the last node";
    return result;
  }
  result.outcome = BackwardSearchResult::Outcome::Capped;
  // Fixed keys: the same problem gives the same search.
  std::mt19937_64 rng(0x5eed5eedull);
  keyA.resize(n);
  keyB.resize(n);
  for (int32_t v = 0; v < n; ++v) {
    keyA[v] = rng();
    keyB[v] = rng();
  }

  // In a window in the problem's order, each set carries its frontier:
  // the latest new node (from `firstNew`, before `endNew`) not yet
  // computed for the first time, going back. New nodes are first computed
  // in the problem's order, so only the frontier may be computed for the
  // first time, and a new node after it not at all; the frontier may also
  // be computed although no later step reads it (a step the order needs,
  // its value freed at once). The frontier is part of the set's key.
  std::vector<SetKey> frontierKeys;
  const int32_t firstNew = orderedWindow ? window->firstNew : 0;
  if (orderedWindow)
    for (int32_t k = -1; k < n; ++k)
      frontierKeys.push_back({rng(), rng()});
  auto withFrontier = [&](SetKey key, int32_t k) {
    if (orderedWindow) {
      key.first += frontierKeys[k + 1].first;
      key.second += frontierKeys[k + 1].second;
    }
    return key;
  };
  // The costs of the new nodes up to `k` that the last `remainingCount`
  // did not count: each must still be computed once.
  auto orderCost = [&](int32_t k) {
    double cost = 0;
    if (orderedWindow && options.minimizeCost)
      for (int32_t v = firstNew; v <= k; ++v)
        if (visitStamp[v] != stamp)
          cost += problem.nodes[v].cost;
    return cost;
  };
  auto isOrderedGoal = [&](const std::vector<int32_t> &set, int32_t k) {
    return isGoal(set) && (!orderedWindow || k < firstNew);
  };

  // Best first: fewest ancestors (with `minimizeCost`, least cost spent
  // and left, then the most spent: of plans that recompute nothing more,
  // the one nearest its end), then fewest bytes, then first reached.
  using Entry = std::tuple<double, double, int64_t, int32_t>;
  const bool cheapest = options.minimizeCost;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> open;
  int32_t goal = -1;
  {
    const int32_t k0 =
        orderedWindow ? std::min(window->endNew, n) - 1 : -1;
    SetKey key = withFrontier(keyOf(start), k0);
    int64_t bytes = bytesOf(start);
    double count = priorityOf(start, 0);
    count += orderCost(k0);
    if (problem.fixedBytes + bytes > budget) {
      result.outcome = BackwardSearchResult::Outcome::Exhausted;
      result.message = "the needed values alone exceed the budget";
      return result;
    }
    addState(std::move(start), key, -1, -1, 0);
    frontierOf.push_back(k0);
    if (isOrderedGoal(sets[0], k0))
      goal = 0;
    else
      open.push({count, 0.0, bytes, 0});
  }
  std::vector<int32_t> earlier;
  while (!open.empty() && goal < 0) {
    if (work > options.maxWork || storedMembers > options.maxStoredMembers) {
      result.message = std::string("stopped by the ") +
                       (work > options.maxWork ? "work" : "memory") +
                       " cap after " + std::to_string(result.expanded) +
                       " sets";
      return result;
    }
    const int32_t id = std::get<3>(open.top());
    open.pop();
    const double spent = spentAt[id];
    // Cheapest first: a set is stale when reached again for less.
    if (cheapest && reached.at(stateKey[id]) < spent)
      continue;
    ++result.expanded;
    if (parentOf[id] >= 0) {
      // Rebuild the members from the (expanded) parent's.
      const std::vector<int32_t> &later = sets[parentOf[id]];
      const int32_t h = computedBefore[id];
      std::vector<int32_t> &members = sets[id];
      std::set_union(later.begin(), later.end(), deps[h].begin(),
                     deps[h].end(), std::back_inserter(members));
      auto it = std::find(members.begin(), members.end(), h);
      if (it != members.end())
        members.erase(it);
      storedMembers += static_cast<int64_t>(members.size());
      work += static_cast<int64_t>(members.size());
    }
    const std::vector<int32_t> set = sets[id];
    const int32_t frontier = frontierOf[id];
    if (cheapest && isOrderedGoal(set, frontier)) {
      goal = id;
      break;
    }
    const int64_t held = problem.fixedBytes + bytesOf(set);
    // The steps back: each member, and in an ordered window the frontier
    // when no member needs it (computed only for the order).
    std::vector<int32_t> steps(set);
    if (orderedWindow && frontier >= firstNew &&
        !std::binary_search(set.begin(), set.end(), frontier)) {
      remainingCount(set);
      if (visitStamp[frontier] != stamp)
        steps.push_back(frontier);
    }
    for (int32_t h : steps) {
      const bool member = std::binary_search(set.begin(), set.end(), h);
      // In the problem's order, only the latest member may leave the set's
      // ancestors (be computed for the first time, going forward); the
      // others only as inputs still needed by another member.
      if (options.problemOrder && !window && h != set.back() &&
          !isNeededByAnother(set, h))
        continue;
      // A new node after the frontier is computed for the first time later.
      if (orderedWindow && h >= firstNew && h > frontier)
        continue;
      // While h is computed: the set (h included) and h's other inputs.
      int64_t during = held + problem.nodes[h].workspace +
                       (member ? 0 : problem.nodes[h].bytes);
      for (int32_t u : deps[h])
        if (!std::binary_search(set.begin(), set.end(), u))
          during += problem.nodes[u].bytes;
      work += 1 + static_cast<int64_t>(deps[h].size());
      if (during > budget)
        continue;
      earlier.clear();
      std::set_union(set.begin(), set.end(), deps[h].begin(), deps[h].end(),
                     std::back_inserter(earlier));
      if (member)
        earlier.erase(std::find(earlier.begin(), earlier.end(), h));
      const double earlierSpent =
          cheapest ? spent + problem.nodes[h].cost : 0.0;
      // The priority costs work (a walk over the set's ancestors), so it
      // is computed only for sets the pruning keeps; an ordered window
      // needs the walk first (its frontier test reads it).
      double count = 0;
      if (orderedWindow)
        count = priorityOf(earlier, earlierSpent);
      int32_t earlierFrontier = frontier;
      if (orderedWindow) {
        // Computed for the first time (nothing earlier computes it again):
        // the frontier, and the next new node becomes it. Another new node
        // that nothing earlier computes again is computed for the first
        // time by a step the order needs, when it is the frontier. A node
        // that is not recomputable is computed once, as the frontier. No
        // new node left to compute may come after the frontier.
        const bool first = h >= firstNew && h == frontier &&
                           visitStamp[h] != stamp;
        if (first)
          earlierFrontier = frontier - 1;
        if (!problem.nodes[h].recomputable && !first)
          continue;
        if (remainingLastNew > earlierFrontier)
          continue;
        count += orderCost(earlierFrontier);
      }
      SetKey earlierKey = withFrontier(keyOf(earlier), earlierFrontier);
      work += static_cast<int64_t>(earlier.size());
      if (reachedAtMost(earlierKey, earlierSpent) ||
          holdsReachedSet(earlier, earlierKey, earlierSpent))
        continue;
      if (!orderedWindow)
        count = priorityOf(earlier, earlierSpent);
      const int64_t bytes = bytesOf(earlier);
      const bool reachedGoal =
          !cheapest && isOrderedGoal(earlier, earlierFrontier);
      int32_t next = addState({}, earlierKey, id, h, earlierSpent);
      frontierOf.push_back(earlierFrontier);
      if (reachedGoal) {
        goal = next;
        break;
      }
      open.push({count, -earlierSpent, bytes, next});
    }
  }
  if (goal < 0 && options.problemOrder) {
    result.message = "every set in the problem's order visited (" +
                     std::to_string(result.expanded) + "), none leads back";
    return result;
  }
  if (goal < 0) {
    result.outcome = BackwardSearchResult::Outcome::Exhausted;
    result.message = "every set within the budget visited (" +
                     std::to_string(result.expanded) + "): " +
                     (window ? "no sequence fits the window"
                             : "no schedule fits");
    return result;
  }
  // The chain from the empty set back up to {last} is the schedule, in
  // order.
  for (int32_t id = goal; parentOf[id] >= 0; id = parentOf[id])
    result.computations.push_back(computedBefore[id]);
  result.outcome = BackwardSearchResult::Outcome::Found;
  result.message = "found after " + std::to_string(result.expanded) + " sets";
  return result;
}

} // namespace

BackwardSearchResult
mlir::ckpt::remat::searchBackward(const Problem &problem, int64_t budgetBytes,
                                  const BackwardSearchOptions &options) {
  return Search(problem, budgetBytes, options).run();
}

BackwardSearchResult mlir::ckpt::remat::searchBackwardWindow(
    const Problem &problem, int64_t budgetBytes, const BackwardWindow &window,
    const BackwardSearchOptions &options) {
  return Search(problem, budgetBytes, options, &window).run();
}
