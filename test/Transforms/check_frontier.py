"""Checks a `ckpt-pareto` CSV: budgets decrease, the overhead of the plan
shown never decreases as the budget shrinks, every plan fits its budget, and
the proven lower bound never exceeds the overhead. With offload columns:
every budget with a recompute-only plan has an offload plan, no slower and
within the budget, and its overhead never decreases as the budget shrinks;
with --host-budget N, no plan holds more than N bytes on the host."""

import csv
import sys


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    assert len(rows) >= 2, rows
    host_budget = None
    if "--host-budget" in sys.argv:
        host_budget = int(sys.argv[sys.argv.index("--host-budget") + 1])
    offload = "offload_overhead" in rows[0]
    previous = None
    previous_offload = None
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
        if not offload:
            continue
        if row["plan_peak_bytes"]:
            assert row["offload_peak_bytes"], row
            assert float(row["offload_overhead"]) <= float(row["overhead"]) + 1e-9, row
        if row["offload_peak_bytes"]:
            assert int(row["offload_peak_bytes"]) <= budget, row
            overhead = float(row["offload_overhead"])
            if previous_offload is not None:
                assert overhead >= previous_offload - 1e-12, row
            previous_offload = overhead
            if host_budget is not None:
                assert int(row["host_peak_bytes"]) <= host_budget, row
            if int(row["offloaded_values"]) == 0:
                assert int(row["bytes_to_host"]) == 0, row
    print("frontier ok")


if __name__ == "__main__":
    main()
