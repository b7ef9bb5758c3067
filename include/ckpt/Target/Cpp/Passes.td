//===- Passes.td - Code generation passes ------------------*- tablegen -*-===//
//
// The code generators as passes embedders can run at the end of their own
// pipelines; `ckpt-opt --emit=cpp|cuda` runs the same passes.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_TARGET_CPP_PASSES_TD
#define CKPT_TARGET_CPP_PASSES_TD

include "mlir/Pass/PassBase.td"

class EmitStepsOptions {
  list<Option> options = [
    Option<"output", "output", "std::string", /*default=*/"\"\"",
           "Directory to write the files into (created if missing, with its parents)">,
    Option<"alignment", "alignment", "int64_t", /*default=*/"0",
           "The alignment the memory plan was made with (0: inferred from the plan)">,
  ];
}

def EmitCppPass : Pass<"ckpt-emit-cpp", "::mlir::ModuleOp">, EmitStepsOptions {
  let summary = "Write every planned step as C++ for the host runtime";
  let description = [{
    Generates, for every function with a body (each must carry a memory
    plan, `ckpt-plan-memory`), `<step>.cpp`, `<step>.h` and
    `<step>.plan.json` for the host runtime (`exportModuleToCpp`,
    docs/codegen.md) and writes them into the directory `output`: all files
    into a temporary directory first, then renamed into place, so a failure
    leaves no partial file. A step the generator refuses (an op without a
    host kernel, a missing or stale plan) is an error at the op, and nothing
    is written. The IR is not changed. `ckpt-opt --emit=cpp -o DIR` runs the
    same generator last.

    `ckpt-opt step.mlir --ckpt-plan-memory --ckpt-emit-cpp=output=out --emit=none`.
  }];
}

def EmitCudaPass : Pass<"ckpt-emit-cuda", "::mlir::ModuleOp">, EmitStepsOptions {
  let summary = "Write every planned step as CUDA for the device runtime";
  let description = [{
    As `ckpt-emit-cpp`, for the CUDA device runtime (runtime/cuda,
    docs/gpu.md): `<step>.cu`, `<step>.h` and `<step>.plan.json`, the same
    straight-line program calling the device kernels; f16 and bf16 tensors
    are allowed. `ckpt-opt --emit=cuda -o DIR` runs the same generator last.

    `ckpt-opt step.mlir --ckpt-plan-memory --ckpt-emit-cuda=output=out --emit=none`.
  }];
}

#endif // CKPT_TARGET_CPP_PASSES_TD
