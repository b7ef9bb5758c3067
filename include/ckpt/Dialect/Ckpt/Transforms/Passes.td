//===- Passes.td - Passes of the ckpt dialect --------------*- tablegen -*-===//
//
// Pass declarations; generated factories and registration are used through
// Passes.h.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_TRANSFORMS_PASSES_TD
#define CKPT_DIALECT_CKPT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

// Options several passes take, each with one C++ type and spelling: the
// enum-valued ones are parsed (and a bad value rejected, naming the option
// and the accepted values) while the options are parsed.
class BudgetOption<string desc>
    : Option<"budget", "budget", "::mlir::ckpt::BudgetOption",
             "::mlir::ckpt::BudgetOption()", desc>;
class BudgetScopeOption<string desc>
    : Option<"budgetScope", "budget-scope", "::mlir::ckpt::BudgetScope",
             "::mlir::ckpt::BudgetScope::Step", desc>;
class StrategyOption<string default, string desc>
    : Option<"strategy", "strategy", "::mlir::ckpt::remat::Strategy",
             "::mlir::ckpt::remat::Strategy::" # default, desc>;
class ObjectiveOption<string desc>
    : Option<"objective", "objective", "::mlir::ckpt::Objective",
             "::mlir::ckpt::Objective::Time", desc>;

def PrintCostsPass : Pass<"ckpt-print-costs", "::mlir::func::FuncOp"> {
  let summary = "Report the exact cost of every ckpt op as a remark";
  let description = [{
    Emits, for every op implementing `CostOpInterface`, a remark at the op's
    location of the form

    ```
    cost: flops=<n> read=<bytes> written=<bytes> workspace=<bytes>[ view]
    ```

    and, with `summary`, one remark per function giving the totals per phase.
    The pass reads the IR only. It is how users and tests inspect the cost
    formulas documented in `docs/dialect.md`.

    Example: `ckpt-opt model.mlir --ckpt-print-costs=summary=true`.
  }];
  let options = [
    Option<"perOp", "per-op", "bool", /*default=*/"true",
           "Emit one remark per ckpt op">,
    Option<"summary", "summary", "bool", /*default=*/"false",
           "Emit one remark per function with the totals of each phase">,
  ];
  let statistics = [
    Statistic<"numOps", "ops", "Number of ckpt ops costed">,
  ];
}

def PrintMemoryPass : Pass<"ckpt-print-memory", "::mlir::func::FuncOp"> {
  let summary = "Report the simulated live memory at every op as a remark";
  let description = [{
    Runs the memory simulation (`MemoryTimeline`) on each function of ckpt
    ops in its current op order and emits, at every op, a remark

    ```
    live: during=<bytes> after=<bytes>[ workspace=<bytes>][ host=<bytes>]
    ```

    (`during` counts the op's operands, results, everything live across it
    and its workspace; `after` what remains once buffers whose last use is
    this op are freed), then one remark per function with the peak, the op
    where it occurs and the saved activations:

    ```
    memory: entry=<bytes> peak=<bytes> at op #<index> saved=<bytes> in <count> buffers[ host-peak=<bytes> at op #<index> in <count> host buffers]
    ```

    Arguments live for the whole step; returned values until its end. The
    results of `ckpt.offload` are host buffers: they count in `host` (with
    offload copies only) and `host-peak`, never in the device figures; one
    lives from its offload through the last `ckpt.prefetch` of it. The
    pass reads the IR only; it is the independent check of every plan.
  }];
  let options = [
    Option<"perOp", "per-op", "bool", /*default=*/"true",
           "Emit one remark per op">,
  ];
}

def ReportPass : Pass<"ckpt-report", "::mlir::ModuleOp"> {
  let summary = "Print what each training step costs: time, FLOPs and memory";
  let description = [{
    For every function of ckpt ops, prints a compact table: FLOPs, bytes and
    estimated time per phase (from the hardware profile's roofline cost
    model), parameter / gradient / input / saved-activation bytes, the peak
    memory and the op where it occurs with its source location, the 10
    largest saved activations with their locations, and a one-line sparkline
    of live memory over the schedule. With `json`, writes the same data as
    JSON (`{"version": 1, "functions": [...]}`; fields in
    docs/cost-model.md). It also states `budget-scope` and the peak in that
    scope (the whole step, or with `activations` only saved activations,
    backward temporaries and op workspace) with the op where it occurs. For
    a step placed with `offload=<link>` it states the copies: the values
    offloaded (the 10 largest with their locations), the bytes each way,
    the host peak, and for the link the placement recorded
    (`ckpt.offload_link`) the copies' time each way and the time the compute
    stream waits for them, simulated on the IR's op order with the cost
    model's op times (lib/Analysis/OffloadReport.cpp; JSON `"offload"`).
    The report goes to `output` (default stdout). The pass reads the IR
    only.

    With `html`, writes one self-contained HTML page instead (inline SVG,
    no script): per step, the memory timeline stacked by buffer kind, and
    with a `budget`, the plan `ckpt-place-checkpoints` makes for it under
    `strategy` (placed on a copy; the IR is not changed): the timeline
    before and after it with the budget line, the plan's summary, its
    recomputed ops by module scope, and the budget -> overhead frontier
    (`frontier-points` budgets, as `ckpt-pareto` solves it) with the
    plan marked. On a step that already carries a plan, the page shows it
    as it is; a step with copies is refused (the page does not draw them).

    `ckpt-opt model.json --ckpt-report`, `--ckpt-report=json`,
    `--ckpt-report="profile=a100-80gb output=report.txt"`,
    `--ckpt-report="html budget=0.5x output=report.html"`.
  }];
  let options = [
    Option<"json", "json", "bool", /*default=*/"false",
           "Write JSON instead of a table">,
    Option<"profile", "profile", "std::string", /*default=*/"\"h100-sxm\"",
           "Hardware profile: h100-sxm, h200, a100-80gb, or a .json file">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "File to write the report to ('-' for stdout)">,
    BudgetScopeOption<"The scope whose peak the report states: step or activations">,
    Option<"html", "html", "bool", /*default=*/"false",
           "Write an HTML page with charts instead of a table">,
    BudgetOption<"With html: plan the step under this budget (as ckpt-place-checkpoints takes it) and show the plan">,
    StrategyOption<"Optimal",
           "With html and a budget: the placement strategy">,
    ObjectiveOption<"With html: cost of recomputation, time or flops">,
    Option<"timeLimit", "time-limit", "double", /*default=*/"10.0",
           "With html: time limit of the exact engine per solve, in seconds">,
    Option<"frontierPoints", "frontier-points", "unsigned", /*default=*/"8",
           "With html: budgets on the frontier chart (0: no frontier)">,
  ];
}

def PlaceCheckpointsPass : Pass<"ckpt-place-checkpoints", "::mlir::func::FuncOp"> {
  let summary = "Decide which forward values to recompute under a memory budget";
  let description = [{
    Builds the rematerialization problem of each training step (one node per
    op result; views alias their root; memory counted in `budget-scope`), chooses
    which forward values to keep for the backward pass with `strategy`, and
    rewrites the function: recomputations become clones of forward ops
    marked `ckpt.recompute`, placed just before the backward ops that need
    them; dropped values end at their last forward use; a recomputed dropout
    keeps its seed and offset, so it reproduces the same mask. The rewritten
    function's peak memory is then measured again by the independent memory
    simulation (`MemoryTimeline`) and must be within the budget.

    Strategies:
    - `none`: keep everything (the no-recompute schedule).
    - `full`: `torch.utils.checkpoint` around every block: keep only what
      crosses block boundaries. Blocks are the module scopes of the ops
      (`h.3.attn.c_attn` belongs to block `h.3`: the path up to its first
      numeric component); ops outside blocks are kept.
    - `sqrt`: Chen et al. 2016: segments of ceil(sqrt(#blocks)) consecutive
      blocks, keeping only what crosses segment boundaries.
    - `selective`: Megatron-LM's selective recomputation: recompute the
      attention core (the score `batch_matmul`, `softmax`, the dropout on the
      probabilities and the probabilities x V `batch_matmul`) and keep GEMM
      outputs. A fused `ckpt.attention` already saves only its log-sum-exp,
      so there is nothing to drop for it.
    - `greedy` (needs a budget): drops the forward values the backward pass
      reads in order of bytes per unit of recomputation cost until the plan
      fits, then undoes every drop that is not needed, most expensive first.
      A heuristic with no optimality guarantee.
    - `optimal` (needs a budget): every engine behind one interface
      (`remat::solveOptimal`): the scalable segment-chain DP (Rotor-style
      dynamic program over a chain of segments, each with a Pareto set of
      keep options; values may be recomputed several times), the greedy
      search, the baselines above, the generic engine, the cost repair of the
      best plan, and the exact engines `exact-engines` names: by default the
      enumeration of the stage space on tiny graphs; with `all` also the MILP
      on graphs of at most 100 nodes within `time-limit` seconds. The cheapest
      plan that fits wins, so it never costs more than a baseline that fits;
      the remark of `explain` gives the engine, a proven lower bound on the
      cost and the gap.
    - `chain` (needs a budget): the segment-chain engine alone, for
      comparisons (`optimal` includes it).
    - `generic` (needs a budget): the generic engine alone
      (`remat::solveGeneric`): any recomputable value may be freed after a
      read and recomputed before a later one, in the given op order, with no
      forward/backward split (e.g. the random layered benchmark graphs).
      `optimal` includes it for functions that are not training steps (a
      forward prefix followed by a non-recomputable backward part).
    - `exact` (needs a budget): Checkmate's MILP (Jain et al. 2020) solved by
      CBC within `time-limit` seconds: optimal within Checkmate's stage space
      when proven, otherwise the best plan found and its proven lower bound.
      CBC runs in a child process stopped 25% (at least 5 s) past the limit;
      a model of over 8 million matrix entries is not built. A budget below
      a proven floor is reported without running CBC.

    `budget` is absolute (`24GiB`, `512MiB`, `1.5GB`, `1000000`) or a
    fraction of the no-recompute peak (`0.5x`, the peak in the budget's
    scope); empty means no budget. The budget is resolved into bytes once and
    recorded on the function as `ckpt.budget` (bytes, scope, the budget as
    given; docs/checkpointing.md); without `budget`, a `ckpt.budget` already
    on the function is the budget (placed under its `target` when it has
    one, as `ckpt-fit-arena` sets it), in that attribute's scope. With `budget-scope=step` (default) the
    budget and the peak compared with it cover the whole step: parameters,
    inputs, parameter gradients, activations, temporaries, op workspace and
    the device workspace. With `activations` they cover what a PyTorch user
    calls activation memory: the forward values saved for the backward pass
    and the backward's temporaries (with op workspace); parameters, inputs,
    the parameter gradients returned by the step (for their whole lifetime)
    and the device workspace are left out. The problem is built in the
    scope's terms (gradients weigh 0 in `activations`), and the rewritten
    IR's peak in the scope is recomputed by the memory simulation
    (`computeScopedPeak`). A plan that does not fit, or no plan at all, is
    an error that states the budget as given and in bytes, the proven floor
    in the scope, and what the no-recompute peak is made of (parameters,
    inputs, gradients, activations, temporaries) with the share that
    recomputation can reduce. `explain` emits a remark per function with the
    plan's figures. `decisions=FILE` also writes the plan as data (JSON,
    written whole or not at all): its figures, and per value of the step as
    given whether its forward computation is saved for the backward pass and
    how often it is computed (docs/checkpointing.md); the `torch.compile`
    backend (python/ckpt_torch) partitions PyTorch's graph by it.

    With `offload=<link>` (`pcie-gen4`, `pcie-gen5`, `nvlink-c2c`; needs
    `objective=time` and an engine strategy: chain, generic, optimal or
    exact) each saved activation may also be offloaded: copied to host
    memory after its last forward read and copied back before its first
    backward read, on copy streams that overlap compute
    (`remat::solveWithOffload`; `host-budget` caps the host bytes). The
    plan with offload replaces the keep/recompute plan only when
    `remat::evaluateOffloadSchedule` measures it faster (exposed copy time
    included) or when only it fits. Its copies become `ckpt.offload`,
    `ckpt.offload_wait` (placed after the last op the model issues before
    the copy ends) and `ckpt.prefetch`; the memory simulation then measures
    the rewritten function's device peak, which must not exceed the
    evaluator's or the budget, and its host peak, which must not exceed the
    evaluator's or `host-budget`. The remarks give the values offloaded,
    the bytes each way, the host peak and the exposed copy time.
    `decisions` does not describe copies: a plan with copies and
    `decisions` is an error.
  }];
  let options = [
    BudgetOption<"Memory budget: bytes with a unit (24GiB, 512MiB, 4096B) or a fraction of the no-recompute peak (0.5x, up to 100x); a bare number is an error">,
    BudgetScopeOption<"What the budget and the peak cover: step (everything) or activations (saved activations and backward temporaries: no parameters, inputs or parameter gradients)">,
    StrategyOption<"None",
           "none, full, sqrt, selective, greedy, chain, generic, optimal or exact">,
    ObjectiveOption<"Cost of recomputation: time (roofline on the profile) or flops">,
    Option<"profile", "profile", "std::string", /*default=*/"\"h100-sxm\"",
           "Hardware profile for the time objective (h100-sxm, h200, a100-80gb or a .json file)">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark with the plan's figures">,
    Option<"summary", "summary", "bool", /*default=*/"true",
           "Say what the plan decided, in words: budget, peak, overhead, engine and bound, and the recomputed values by module scope (a remark without location; ckpt-opt prints it unless --quiet)">,
    Option<"timeLimit", "time-limit", "double", /*default=*/"60.0",
           "Time limit of the exact engine (MILP), in seconds">,
    Option<"exactEngines", "exact-engines", "::mlir::ckpt::remat::ExactEngines",
           /*default=*/"::mlir::ckpt::remat::ExactEngines::Enumeration",
           "Exact engines strategy=optimal runs beside the scalable ones: none, enumeration (of the stage space, on tiny graphs) or all (also the MILP on graphs of at most 100 nodes, within time-limit); false means none, true all">,
    Option<"decisions", "decisions", "std::string", /*default=*/"\"\"",
           "Also write the plan's per-value decisions (saved, computations) as JSON to this file (one function only)">,
    Option<"alignment", "alignment", "int64_t", /*default=*/"1",
           "Count every buffer rounded up to this many bytes (a power of two), as a memory plan with this alignment holds it; a fraction budget still refers to the exact no-recompute peak (ckpt-pipeline with plan-memory sets the plan's alignment)">,
    Option<"offload", "offload", "std::string", /*default=*/"\"\"",
           "Also consider offloading saved activations to host memory over this link: pcie-gen4, pcie-gen5 or nvlink-c2c (empty: keep or recompute only); needs objective=time and an engine strategy">,
    Option<"hostBudget", "host-budget", "::mlir::ckpt::BudgetOption",
           "::mlir::ckpt::BudgetOption()",
           "With offload: host bytes the offloaded values may hold at once (24GiB, 512MiB; empty: no limit)">,
  ];
  let statistics = [
    Statistic<"numRecomputed", "recomputed-ops", "Number of recomputed ops">,
    Statistic<"numOffloaded", "offloaded-values", "Number of values offloaded to host memory">,
  ];
}

def ParetoPass : Pass<"ckpt-pareto", "::mlir::ModuleOp"> {
  let summary = "Print the budget -> recomputation overhead frontier";
  let description = [{
    For every training step, solves checkpoint placement with the `optimal`
    strategy at `points` budgets evenly spaced from the no-recompute peak
    down to the memory floor (the least any plan needs), and prints the
    frontier as a table: budget (bytes and fraction of the no-recompute
    peak), the plan's peak, its estimated
    overhead, a proven lower bound on the overhead, and the engine that found
    the plan. A plan found for a smaller budget also fits a larger one, so
    each row shows the cheapest plan found whose peak fits. With `output`,
    also writes the frontier to that file: CSV if it ends in `.csv`, else
    JSON. Every byte figure (budgets, peaks, the floor) is in the terms of
    `budget-scope`, as for `ckpt-place-checkpoints`: the whole step, or with
    `activations` only saved activations and backward temporaries. The pass
    reads the IR only.

    With `offload=<link>` (`pcie-gen4`, `pcie-gen5`, `nvlink-c2c`; needs
    the time objective), each budget is also planned with offload as a
    third choice per saved activation (`remat::solveWithOffload`: keep,
    recompute, or copy to host memory after its forward use and back before
    its backward use, on copy streams beside compute), and the table adds
    the best plan's step time over the plain step ("offload ovh", exposed
    copy time included), the bytes it copies to the host and the copy time
    left exposed. `host-budget` caps the host memory of offloaded values
    (bytes with a unit; none by default). Every offload plan is checked by
    `remat::evaluateOffloadSchedule`, which alone gives its peak and time.

    `ckpt-opt g.json --ckpt-pareto="points=8 output=frontier.csv"`.
  }];
  let options = [
    Option<"points", "points", "unsigned", /*default=*/"10",
           "Number of budgets (at least 2)">,
    Option<"output", "output", "std::string", /*default=*/"\"\"",
           "Also write the frontier to this file (.csv: CSV, else JSON)">,
    BudgetScopeOption<"What budgets and peaks cover: step (everything) or activations (saved activations and backward temporaries: no parameters, inputs or parameter gradients)">,
    ObjectiveOption<"time (roofline on the profile) or flops">,
    Option<"profile", "profile", "std::string", /*default=*/"\"h100-sxm\"",
           "Hardware profile for the time objective">,
    Option<"timeLimit", "time-limit", "double", /*default=*/"10.0",
           "Time limit of the exact engine per budget, in seconds">,
    Option<"offload", "offload", "std::string", /*default=*/"\"\"",
           "Also plan with offload over this host link: pcie-gen4, pcie-gen5 or nvlink-c2c (empty: no offload)">,
    Option<"hostBudget", "host-budget", "::mlir::ckpt::BudgetOption",
           "::mlir::ckpt::BudgetOption()",
           "With offload: host bytes the offloaded values may hold (24GiB, 512MiB; empty: no limit)">,
  ];
}

def ChunkLossHeadPass : Pass<"ckpt-chunk-loss-head", "::mlir::func::FuncOp"> {
  let summary = "Split the vocabulary projection and its cross-entropy into row chunks";
  let description = [{
    Rewrites each loss head -- a projection (`ckpt.matmul` of rows `X [R, D]`
    with a weight, or `ckpt.linear`), reshapes back to `[R, V]`, a
    `ckpt.cross_entropy` (`mean` or `sum`) and its `ckpt.cross_entropy_grad`,
    whose gradient (through reshapes) is read only by the input-gradient
    product `G x W`, the weight-gradient product `G^T x X` (either operand
    order) and the bias gradient `reduce_sum` over rows -- into `chunks`
    pieces of about `R / chunks` rows. Each piece computes its own logits
    and loss (`sum`), and in the backward pass its own logits gradient, its
    rows of the input gradient (concatenated) and its share of the weight
    and bias gradients (summed). The whole `[R, V]` logits tensor and its
    gradient no longer exist: each piece's logits are a value placement can
    keep or recompute, so the memory floor drops from the logits and their
    gradient to about one piece of each.

    A `mean` loss divides the sum of the pieces by the number of rows whose
    target is not `ignore_index` (counted with `ckpt.compare`, `ckpt.convert`
    and `ckpt.reduce_sum`), and the backward pass scales the loss gradient
    by `1 / count` once, as the unchunked gradient does. Values equal the
    unchunked step's up to fp32 rounding: the logits and their gradient are
    the same arithmetic per element (a BLAS may still round a product of
    fewer rows differently), the loss and the weight and bias gradients add
    the pieces' partial sums in another order (docs/checkpointing.md,
    "The chunked loss head", states the bound). Each piece's weight
    gradient is added to the running sum by `ckpt.matmul_acc`: two
    weight-sized buffers are live while it runs, which can set the new
    floor where the weight is large beside the logits.

    `chunks=0` chooses the count. With a `budget`, it plans the step as it
    is and after each rewrite of 2, 4, 8, ..., 64 chunks with
    `strategy=optimal` under the budget (resolved against each step's own
    no-recompute peak, as placement resolves it) and keeps the cheapest
    step, recomputation and the rewrite's own ops included. Without one (or
    when no candidate has a plan), it keeps the fewest chunks whose proven
    memory floor in `budget-scope` is within 1% of the lowest any count
    gives (each piece adds a pass over the weight gradient); a head is left
    as it is when no count
    lowers the floor (where the weight is large beside the logits, the
    running sum of its gradient outweighs them). Heads that do not
    have the form are left as they are; with `explain` a remark at each
    cross-entropy says what was done or why not. `chunks=1` changes
    nothing. With `when-needed` (and `chunks=0` and a budget) nothing is
    planned: a head is chunked only when its proven floor is over the
    budget, into the fewest of 2, 4, ..., 64 pieces whose floor fits it, or
    else the count with the lowest floor (the head is left when none lowers
    it) -- what `ckpt-pipeline` does by default (`chunk-when-infeasible`).

    `ckpt-opt gpt2.json --pass-pipeline='builtin.module(func.func(ckpt-chunk-loss-head{budget-scope=activations}))'`
  }];
  let options = [
    Option<"chunks", "chunks", "unsigned", /*default=*/"0",
           "Number of row chunks (at most the number of rows); 0: the count that lowers the proven floor most, if any; 1: leave the head as it is">,
    BudgetScopeOption<"With chunks=0: the scope of the floors and the budget, step (everything) or activations (no parameters, inputs or parameter gradients)">,
    BudgetOption<"With chunks=0: plan each candidate count (and the head as it is) with strategy=optimal under this budget and keep the cheapest step; empty: compare floors">,
    ObjectiveOption<"With a budget: the cost compared, time (roofline on the profile) or flops">,
    Option<"profile", "profile", "std::string", /*default=*/"\"h100-sxm\"",
           "With a budget and objective=time: the hardware profile">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark at each cross-entropy: chunked, or why not">,
    Option<"whenNeeded", "when-needed", "bool", /*default=*/"false",
           "With chunks=0 and a budget: chunk only a head whose proven floor is over the budget, into the fewest pieces whose floor fits it (or those with the lowest floor), comparing floors only">,
  ];
}

def ReserveDeviceWorkspacePass
    : Pass<"ckpt-reserve-device-workspace", "::mlir::func::FuncOp"> {
  let summary = "Reserve the device runtime's scratch in the step's memory";
  let description = [{
    Sets `ckpt.device_workspace` on every function with a body: bytes of
    device scratch the target runtime holds for the whole step (for the CUDA
    runtime: the cuBLASLt workspace and a few scalars, `size=cuda`). The
    memory simulation counts it as live from entry to exit, so the
    no-recompute peak, budgets (in `budget-scope=step`), checkpoint
    placement, the report and the memory plan all include it; the plan gives
    it an arena offset (`ckpt.device_workspace_offset`) and `--emit=cuda`
    keeps the runtime's scratch there instead of after the arena. Run it
    before placement: a `0.5x` budget is then half of a peak that includes
    the workspace. `size=0` removes the attribute.

    `ckpt-opt step.json --pass-pipeline='builtin.module(func.func(ckpt-reserve-device-workspace{size=cuda}), ckpt-pipeline{budget=0.5x plan-memory})'`,
    or `ckpt-pipeline{device-workspace=cuda ...}`.
  }];
  let options = [
    Option<"size", "size", "::mlir::ckpt::DeviceWorkspaceOption",
           /*default=*/"::mlir::ckpt::DeviceWorkspaceOption(\"cuda\")",
           "cuda (the CUDA runtime's scratch: 32 MiB + 256 B) or bytes with a unit (64MiB, 4096)">,
  ];
}

def PlanMemoryPass : Pass<"ckpt-plan-memory", "::mlir::ModuleOp"> {
  let summary = "Assign every buffer of each step a fixed offset in one arena";
  let description = [{
    For every function of ckpt ops, in its final op order, takes the buffers
    of the memory simulation (`MemoryTimeline`: arguments, non-view results
    with their lifetimes from definition to last use, views sharing their
    base's storage, returned values living to the end) plus one buffer per op
    workspace, and packs them into one arena (`plan::planMemory`, plain C++
    in lib/Plan). Sizes are rounded up to `alignment` and offsets are
    multiples of it. With `in-place`, the result of an elementwise op takes
    over the storage of an operand of the same aligned size that dies at that
    op. With `separate-parameters`, parameters and gradients get a region of
    their own at the start of the arena. The plan is attached to the IR:

    ```mlir
    func.func @step(%x: tensor<4x8xf32> {ckpt.offset = 0 : i64, ...}) attributes
        {ckpt.arena_size = 4096 : i64, ckpt.arena_lower_bound = 4096 : i64, ckpt.step} {
      %y = ckpt.relu fwd %x {ckpt.offset = array<i64: 256>} : tensor<4x8xf32>
    ```

    The arena is at least the lower bound (the peak of aligned bytes live at
    once); `explain` emits a remark with both and their ratio. With `verify`,
    the independent checker (`plan::checkPlan`) proves that no two buffers
    live at the same step overlap and that all lie inside the arena; a
    failure is an internal error. With `output`, the plan is also written as
    JSON (docs/memory-plan.md). Planning is the last stage: a pass that
    changes the op order afterwards invalidates the plan.

    `ckpt-opt step.mlir --ckpt-plan-memory="verify=true explain=true"`.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"256",
           "Alignment of every offset and size, in bytes (a power of two)">,
    Option<"inPlace", "in-place", "bool", /*default=*/"true",
           "Let an elementwise op write its result over an operand dying there">,
    Option<"separateParameters", "separate-parameters", "bool",
           /*default=*/"false",
           "Place parameters and gradients in a region of their own at the arena's start">,
    Option<"algorithm", "algorithm", "::mlir::ckpt::plan::PlanAlgorithm",
           /*default=*/"::mlir::ckpt::plan::PlanAlgorithm::Portfolio",
           "portfolio (several orders, restarts, exact search when small) or greedy-by-size">,
    Option<"restarts", "restarts", "unsigned", /*default=*/"32",
           "Randomized orders tried by the portfolio">,
    Option<"verify", "verify", "bool", /*default=*/"false",
           "Check the plan with the independent checker">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark per function with the arena, the lower bound and their ratio">,
    Option<"output", "output", "std::string", /*default=*/"\"\"",
           "Also write the plan to this file as JSON">,
  ];
  let statistics = [
    Statistic<"numInPlace", "in-place-buffers",
              "Buffers written over a dying operand">,
  ];
}

def FitArenaPass : Pass<"ckpt-fit-arena", "::mlir::ModuleOp"> {
  let summary = "Place checkpoints and plan memory so that the arena fits the budget";
  let description = [{
    The driver of `ckpt-pipeline` with `plan-memory`. For every function with
    a body, resolves `budget` once (as `ckpt-place-checkpoints` does: a
    fraction refers to the no-recompute peak in `budget-scope`) and records
    it as `ckpt.budget`, then runs `ckpt-place-checkpoints` and
    `ckpt-plan-memory` on a copy of the function. The arena holds the whole
    step, so its limit is the budget plus, in `budget-scope=activations`,
    what the scope leaves out (arguments, device workspace, parameter
    gradients, each aligned). If the planned arena is over it, placement is
    re-run from the original function under a tighter `target` in
    `ckpt.budget` (below the budget by what packing lost, doubling with every
    miss; once a target has no plan, halfway between it and the tightest
    target whose arena was over), at most `max-resolves` times; then the
    pass fails saying by how much the smallest arena planned misses the
    budget. The accepted copy replaces the function.

    `ckpt-opt step.json --ckpt-fit-arena="budget=0.5x strategy=greedy"`.
  }];
  let options = [
    BudgetOption<"Memory budget: bytes with a unit (24GiB, 512MiB, 4096B) or a fraction of the no-recompute peak (0.5x); a bare number is an error; empty: none">,
    BudgetScopeOption<"What the budget and the peak cover: step (everything) or activations (saved activations and backward temporaries: no parameters, inputs or parameter gradients)">,
    StrategyOption<"Optimal",
           "none, full, sqrt, selective, greedy, chain, generic, optimal or exact (greedy and the engines need a budget)">,
    ObjectiveOption<"Cost of recomputation: time (roofline on the profile) or flops">,
    Option<"profile", "profile", "std::string", /*default=*/"\"h100-sxm\"",
           "Hardware profile for the time objective (h100-sxm, h200, a100-80gb or a .json file)">,
    Option<"timeLimit", "time-limit", "double", /*default=*/"60.0",
           "Time limit of the exact engine (MILP), in seconds">,
    Option<"offload", "offload", "std::string", /*default=*/"\"\"",
           "Also consider offloading saved activations to host memory over this link: pcie-gen4, pcie-gen5 or nvlink-c2c (empty: keep or recompute only); needs objective=time and an engine strategy">,
    Option<"hostBudget", "host-budget", "::mlir::ckpt::BudgetOption",
           "::mlir::ckpt::BudgetOption()",
           "With offload: host bytes the offloaded values may hold at once (24GiB, 512MiB; empty: no limit)">,
    Option<"alignment", "alignment", "int64_t", /*default=*/"256",
           "Alignment of the memory plan, in bytes (placement counts buffers at it)">,
    Option<"inPlace", "in-place", "bool", /*default=*/"true",
           "Let elementwise ops overwrite an operand dying there">,
    Option<"verifyPlan", "verify-plan", "bool", /*default=*/"false",
           "Check the memory plan with the independent checker">,
    Option<"maxResolves", "max-resolves", "unsigned", /*default=*/"8",
           "How many times placement is re-run with a tightened target when the planned arena exceeds the budget">,
  ];
}

#endif // CKPT_DIALECT_CKPT_TRANSFORMS_PASSES_TD
