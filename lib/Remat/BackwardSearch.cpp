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
#include <unordered_set>

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
  /// Number of nodes that are members of `set` or ancestors of one.
  int32_t ancestorCount(const std::vector<int32_t> &set) const;
  /// The nodes left to compute from `set`: its ancestor count, or in a
  /// window the members and ancestors reached without passing through an
  /// available value (the available ones not counted).
  int32_t remainingCount(const std::vector<int32_t> &set);
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
  /// Whether a set reached so far is `set` less one or two members.
  bool holdsReachedSet(const std::vector<int32_t> &set, const SetKey &key);
  /// Adds a reached set with its parent and the node computed between them;
  /// returns its index.
  int32_t addState(std::vector<int32_t> set, const SetKey &key, int32_t parent,
                   int32_t computed);

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
  std::unordered_set<SetKey, SetKeyHash> reached;
  int64_t work = 0;
  int64_t storedMembers = 0;
};

int32_t Search::ancestorCount(const std::vector<int32_t> &set) const {
  std::vector<uint64_t> closure(words, 0);
  for (int32_t v : set) {
    const uint64_t *row = &ancestors[static_cast<size_t>(v) * words];
    for (size_t w = 0; w < words; ++w)
      closure[w] |= row[w];
  }
  int32_t count = 0;
  for (uint64_t bits : closure)
    count += __builtin_popcountll(bits);
  return count;
}

int32_t Search::remainingCount(const std::vector<int32_t> &set) {
  if (!window) {
    work += static_cast<int64_t>(words);
    return ancestorCount(set);
  }
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
                             const SetKey &key) {
  const bool pairs = !window || set.size() <= kMaxPairPrunedMembers;
  for (size_t i = 0; i < set.size(); ++i) {
    SetKey less = key.minus(keyA[set[i]], keyB[set[i]]);
    ++work;
    if (reached.count(less))
      return true;
    for (size_t j = i + 1; pairs && j < set.size(); ++j) {
      ++work;
      if (reached.count(less.minus(keyA[set[j]], keyB[set[j]])))
        return true;
    }
  }
  return false;
}

int32_t Search::addState(std::vector<int32_t> set, const SetKey &key,
                         int32_t parent, int32_t computed) {
  int32_t id = static_cast<int32_t>(sets.size());
  // The start keeps its members; the others get them when expanded.
  if (parent >= 0)
    set.clear();
  storedMembers += static_cast<int64_t>(set.size());
  sets.push_back(std::move(set));
  parentOf.push_back(parent);
  computedBefore.push_back(computed);
  reached.insert(key);
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
  if (!detail::isFreelyReorderable(problem)) {
    result.message = "the backward search needs every node recomputable, "
                     "no projections, and the last node as the only output";
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
    if (options.problemOrder) {
      result.message = "a window is not searched in the problem's order";
      return result;
    }
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

  // Best first: fewest ancestors, then fewest bytes, then first reached.
  using Entry = std::tuple<int32_t, int64_t, int32_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> open;
  int32_t goal = -1;
  {
    SetKey key = keyOf(start);
    int64_t bytes = bytesOf(start);
    int32_t count = remainingCount(start);
    if (problem.fixedBytes + bytes > budget) {
      result.outcome = BackwardSearchResult::Outcome::Exhausted;
      result.message = "the needed values alone exceed the budget";
      return result;
    }
    addState(std::move(start), key, -1, -1);
    if (isGoal(sets[0]))
      goal = 0;
    else
      open.push({count, bytes, 0});
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
    const int32_t id = std::get<2>(open.top());
    open.pop();
    ++result.expanded;
    if (parentOf[id] >= 0) {
      // Rebuild the members from the (expanded) parent's.
      const std::vector<int32_t> &later = sets[parentOf[id]];
      const int32_t h = computedBefore[id];
      std::vector<int32_t> &members = sets[id];
      std::set_union(later.begin(), later.end(), deps[h].begin(),
                     deps[h].end(), std::back_inserter(members));
      members.erase(std::find(members.begin(), members.end(), h));
      storedMembers += static_cast<int64_t>(members.size());
      work += static_cast<int64_t>(members.size());
    }
    const std::vector<int32_t> set = sets[id];
    const int64_t held = problem.fixedBytes + bytesOf(set);
    for (int32_t h : set) {
      // In the problem's order, only the latest member may leave the set's
      // ancestors (be computed for the first time, going forward); the
      // others only as inputs still needed by another member.
      if (options.problemOrder && h != set.back() && !isNeededByAnother(set, h))
        continue;
      // While h is computed: the set (h included) and h's other inputs.
      int64_t during = held + problem.nodes[h].workspace;
      for (int32_t u : deps[h])
        if (!std::binary_search(set.begin(), set.end(), u))
          during += problem.nodes[u].bytes;
      work += 1 + static_cast<int64_t>(deps[h].size());
      if (during > budget)
        continue;
      earlier.clear();
      std::set_union(set.begin(), set.end(), deps[h].begin(), deps[h].end(),
                     std::back_inserter(earlier));
      earlier.erase(std::find(earlier.begin(), earlier.end(), h));
      SetKey earlierKey = keyOf(earlier);
      work += static_cast<int64_t>(earlier.size());
      if (reached.count(earlierKey) || holdsReachedSet(earlier, earlierKey))
        continue;
      const int32_t count = remainingCount(earlier);
      const int64_t bytes = bytesOf(earlier);
      const bool reachedGoal = isGoal(earlier);
      int32_t next = addState({}, earlierKey, id, h);
      if (reachedGoal) {
        goal = next;
        break;
      }
      open.push({count, bytes, next});
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
