"""Running the C++ planner (the ``ckpt-opt`` CLI) on an exported step."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Any, Dict, Optional, Union

_REPO_BIN = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                         "build", "bin", "ckpt-opt")


class PlanError(RuntimeError):
    """ckpt-opt found no plan (its message says why) or could not run."""


def find_ckpt_opt(explicit: Optional[str] = None) -> str:
    """``explicit``, else ``$CKPT_OPT``, else this checkout's
    ``build/bin/ckpt-opt``, else ``ckpt-opt`` on the PATH."""
    for cand in (explicit, os.environ.get("CKPT_OPT"), _REPO_BIN, shutil.which("ckpt-opt")):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    raise PlanError("ckpt-opt not found: build it (scripts/build.sh), set CKPT_OPT, or pass "
                    "ckpt_opt= to ckpt_torch.backend")


@dataclass
class PlannerOptions:
    """The options of ``ckpt-place-checkpoints`` (docs/checkpointing.md)."""

    budget: str = ""
    budget_scope: str = "activations"
    strategy: str = "optimal"
    objective: str = "time"
    profile: str = "h100-sxm"
    time_limit: float = 10.0
    #: "none", "enumeration" (ckpt-opt's default: the stage space enumerated
    #: on tiny graphs) or "all" (also the MILP within ``time_limit`` on graphs
    #: of at most 100 nodes); False and True mean "none" and "all".
    exact_engines: Union[bool, str] = "enumeration"

    def exact_engines_spelling(self) -> str:
        """``exact_engines`` as ``exact-engines=`` spells it."""
        if isinstance(self.exact_engines, bool):
            return "all" if self.exact_engines else "none"
        return self.exact_engines

    def pass_options(self, budget: str) -> str:
        """Without a budget nothing is recomputed (strategy ``none``)."""
        opts = [f"strategy={self.strategy if budget else 'none'}", f"budget-scope={self.budget_scope}",
                f"objective={self.objective}", f"profile={self.profile}",
                f"time-limit={self.time_limit:g}",
                f"exact-engines={self.exact_engines_spelling()}"]
        if budget:
            opts.insert(0, f"budget={budget}")
        return " ".join(opts)


def _run(ckpt_opt: str, args, what: str, timeout: float):
    proc = subprocess.run([ckpt_opt, *args], capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        msg = proc.stderr.strip() or f"exit status {proc.returncode}"
        raise PlanError(f"ckpt-opt {what} failed:\n{msg}")
    return proc


def smallest_feasible(ckpt_opt: str, graph_path: str, opts: PlannerOptions, workdir: str,
                      points: int = 6, timeout: float = 600) -> int:
    """The smallest plan peak (bytes, in ``opts.budget_scope``) that
    ``ckpt-pareto`` finds: the budget of ``budget="min"``."""
    out = os.path.join(workdir, "frontier.json")
    _run(ckpt_opt, [graph_path, f"--ckpt-pareto=points={points} output={out} "
                    f"budget-scope={opts.budget_scope} objective={opts.objective} "
                    f"profile={opts.profile} time-limit={opts.time_limit:g}", "-o", os.devnull],
         "ckpt-pareto", timeout)
    with open(out) as f:
        frontier = json.load(f)
    peaks = [row["plan_peak_bytes"] for fn in frontier["functions"] for row in fn["points"]
             if row.get("plan_peak_bytes") is not None]
    if not peaks:
        raise PlanError(f"ckpt-pareto found no plan: {json.dumps(frontier)[:400]}")
    return int(min(peaks))


def plan(graph: Dict[str, Any], opts: PlannerOptions, ckpt_opt: Optional[str] = None,
         timeout: float = 600) -> Dict[str, Any]:
    """Plans the exported step ``graph`` (graph format v1) and returns the
    decisions document (format ``ckpt-plan-decisions``)."""
    from ckpt_graphs import format as graph_format
    exe = find_ckpt_opt(ckpt_opt)
    with tempfile.TemporaryDirectory(prefix="ckpt_torch.") as tmp:
        path = os.path.join(tmp, "step.json")
        graph_format.dump(graph, path)
        budget = opts.budget
        if budget == "min":
            budget = f"{smallest_feasible(exe, path, opts, tmp, timeout=timeout)}B"
        out = os.path.join(tmp, "decisions.json")
        _run(exe, [path, f"--ckpt-place-checkpoints={opts.pass_options(budget)} decisions={out}",
                   "-o", os.devnull], "ckpt-place-checkpoints", timeout)
        with open(out) as f:
            decisions = json.load(f)
    if budget != opts.budget:
        decisions["budget_resolved_from"] = opts.budget
    return decisions
