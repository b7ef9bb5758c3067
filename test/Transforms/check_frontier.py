"""Checks a `ckpt-pareto` CSV: budgets decrease, the overhead of the plan
shown never decreases as the budget shrinks, every plan fits its budget, and
the proven lower bound never exceeds the overhead."""

import csv
import sys


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    assert len(rows) >= 2, rows
    previous = None
    for row in rows:
        budget = int(row["budget_bytes"])
        if row["plan_peak_bytes"]:
            assert int(row["plan_peak_bytes"]) <= budget, row
            overhead = float(row["overhead"])
            bound = float(row["lower_bound_overhead"])
            assert bound <= overhead + 1e-12, row
            if previous is not None:
                assert overhead >= previous - 1e-12, row
            previous = overhead
    print("frontier ok")


if __name__ == "__main__":
    main()
