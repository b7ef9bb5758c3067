//===- Passes.td - Passes of the ckpt dialect --------------*- tablegen -*-===//
//
// Pass declarations; generated factories and registration are used through
// Passes.h.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_TRANSFORMS_PASSES_TD
#define CKPT_DIALECT_CKPT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

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
    live: during=<bytes> after=<bytes>[ workspace=<bytes>]
    ```

    (`during` counts the op's operands, results, everything live across it
    and its workspace; `after` what remains once buffers whose last use is
    this op are freed), then one remark per function with the peak, the op
    where it occurs and the saved activations:

    ```
    memory: entry=<bytes> peak=<bytes> at op #<index> saved=<bytes> in <count> buffers
    ```

    Arguments live for the whole step; returned values until its end. The
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
    docs/cost-model.md). The report goes to `output` (default stdout). The
    pass reads the IR only.

    `ckpt-opt model.json --ckpt-report`, `--ckpt-report=json`,
    `--ckpt-report="profile=a100-80gb output=report.txt"`.
  }];
  let options = [
    Option<"json", "json", "bool", /*default=*/"false",
           "Write JSON instead of a table">,
    Option<"profile", "profile", "std::string", /*default=*/"\"h100-sxm\"",
           "Hardware profile: h100-sxm, h200, a100-80gb, or a .json file">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "File to write the report to ('-' for stdout)">,
  ];
}

#endif // CKPT_DIALECT_CKPT_TRANSFORMS_PASSES_TD
