"""Checks scripts/select-sanitizer-tests.py's choice (select), its reading of
lit's results (lit_seconds), what keeping a test costs (keep_cost) and its
entry names (label), without a coverage build. Usage: check_select.py SCRIPT RESULTS.json"""

import importlib.util
import sys

spec = importlib.util.spec_from_file_location("select_sanitizer_tests", sys.argv[1])
sel = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sel)

# Cheapest cover: `a` and `d` reach every line; `e` reaches them all alone,
# but at ten times the cost.
coverage = {"a": {1, 2, 3}, "b": {1, 2}, "c": {3}, "d": {4}, "e": {1, 2, 3, 4}}
seconds = {"a": 1, "b": 1, "c": 1, "d": 1, "e": 10}
picked, universe = sel.select(coverage, seconds)
print("cover:", picked, sorted(universe))

# Reverse delete: `p` is picked first (3 lines a second), then `q`, which
# reaches all of p's lines too, so `p` goes again.
coverage = {"p": {1, 2, 3}, "q": {1, 2, 3, 4, 5, 6, 7}, "r": {4, 5, 6, 7}}
seconds = {"p": 1, "q": 2.5, "r": 5}
print("reverse delete:", sel.select(coverage, seconds)[0])

# Ties broken by name, so the choice is deterministic.
print("ties:", sel.select({"y": {1}, "x": {1}}, {"x": 1, "y": 1})[0])
print("empty:", sel.select({}, {}))

print("times:", sorted(sel.lit_seconds(sys.argv[2]).items()))
# What keeping a test costs: its sanitized time beyond its normal time.
sanitized, normal = {"t": 10.0, "u": 3.0, "v": 1.0}, {"t": 2.5, "v": 1.5}
for test in ("t", "u", "v", "w"):
    print("cost %s: %.1f (%s)" % ((test,) + sel.keep_cost(test, 0.25, sanitized, normal)))
print("labels:", sel.label("gtest:Suite.Case"), "|", sel.label("Import/corpus.test"))
