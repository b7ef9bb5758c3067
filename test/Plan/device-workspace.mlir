// The device workspace (`ckpt.device_workspace`, set by
// ckpt-reserve-device-workspace) is live from entry to exit: the memory
// simulation, the plan and its lower bound count it, and the plan gives it an
// offset of its own.
// RUN: ckpt-opt %s -split-input-file --ckpt-reserve-device-workspace="size=1KiB" --ckpt-print-memory="per-op=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MEM
// RUN: ckpt-opt %s -split-input-file --ckpt-reserve-device-workspace="size=1KiB" --ckpt-plan-memory="verify=true explain=true" 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: ckpt-opt %s -split-input-file --ckpt-reserve-device-workspace="size=1KiB" --ckpt-reserve-device-workspace="size=0" --ckpt-plan-memory="verify=true" | FileCheck %s --check-prefix=NONE
// RUN: ckpt-opt %s -split-input-file --ckpt-reserve-device-workspace="size=cuda" | FileCheck %s --check-prefix=CUDA
// size= and the pipeline's device-workspace= hold a DeviceWorkspaceOption: a
// bad value is rejected while the options are parsed, naming the option and
// the value, before any pass runs; an empty size= is the pass's error.
// RUN: not ckpt-opt %s -split-input-file --ckpt-reserve-device-workspace="size=0.5x" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FRACTION
// RUN: not ckpt-opt %s -split-input-file --ckpt-reserve-device-workspace="size=lots" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not ckpt-opt %s -split-input-file --ckpt-pipeline="device-workspace=-1MiB plan-memory" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-PIPELINE
// RUN: not ckpt-opt %s -split-input-file --pass-pipeline="builtin.module(ckpt-pipeline{device-workspace=cuda12})" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-PIPELINE-CUDA
// RUN: not ckpt-opt %s -split-input-file --ckpt-reserve-device-workspace="size=" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EMPTY
// Good values round-trip through the printed pipeline; the pipeline hands its
// device-workspace= to the reservation pass, and adds none without it.
// RUN: ckpt-opt %s --pass-pipeline="builtin.module(ckpt-pipeline{device-workspace=64MiB strategy=none})" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT-BYTES
// RUN: ckpt-opt %s --pass-pipeline="builtin.module(func.func(ckpt-reserve-device-workspace{size=cuda}))" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT-CUDA
// RUN: ckpt-opt %s --pass-pipeline="builtin.module(ckpt-pipeline{strategy=none})" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT-NONE

// The simulation (no in-place): x, a, b while exp runs, 768 B, plus 1 KiB;
// at entry x and the workspace. The plan writes a, b, c in place: 512 B
// without the workspace, 1536 with it, met by the arena.
// MEM: remark: memory: entry=1280 peak=1792 at op #1
// PLAN: remark: memory plan: arena=1536 lower-bound=1536 ratio=1.0000 buffers=5 in-place=2
// PLAN-LABEL: func.func @chain(%arg0
// PLAN-SAME: ckpt.arena_lower_bound = 1536 : i64, ckpt.arena_size = 1536 : i64, ckpt.device_workspace = 1024 : i64, ckpt.device_workspace_offset = {{[0-9]+}} : i64
// NONE-LABEL: func.func @chain(%arg0
// NONE-SAME: ckpt.arena_lower_bound = 512 : i64, ckpt.arena_size = 512 : i64
// NONE-NOT: device_workspace
// CUDA: ckpt.device_workspace = 33554688 : i64
// FRACTION: for the --size option: bad device workspace size '0.5x': expected 'cuda', 0, or bytes (64MiB, 4096) up to 4 EiB, not a fraction of the peak
// BAD: for the --size option: bad device workspace size 'lots':
// BAD-PIPELINE: for the --device-workspace option: bad device workspace size '-1MiB':
// BAD-PIPELINE-CUDA: for the --device-workspace option: bad device workspace size 'cuda12':
// EMPTY: error: ckpt-reserve-device-workspace: no size given: expected 'cuda', 0, or bytes (64MiB, 4096)
// PRINT-BYTES: ckpt-reserve-device-workspace{size=64MiB}
// PRINT-BYTES: ckpt-place-checkpoints
// PRINT-CUDA: ckpt-reserve-device-workspace{size=cuda}
// PRINT-NONE-NOT: ckpt-reserve-device-workspace
// PRINT-NONE: ckpt-place-checkpoints
func.func @chain(%x: tensor<64xf32>) -> tensor<64xf32> {
  %a = ckpt.neg fwd %x : tensor<64xf32>
  %b = ckpt.exp fwd %a : tensor<64xf32>
  %c = ckpt.tanh fwd %b : tensor<64xf32>
  return %c : tensor<64xf32>
}

