// RUN: ckpt-opt %s -split-input-file -verify-diagnostics

// ckpt.recompute marks recomputed forward values only.
func.func @recompute_on_backward(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'ckpt.recompute' may only mark a forward ckpt op (a recomputed forward value)}}
  %0 = ckpt.relu bwd %a {ckpt.recompute} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @recompute_not_unit(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'ckpt.recompute' must be a unit attribute}}
  %0 = ckpt.relu fwd %a {ckpt.recompute = 1 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A marked forward op is fine.
func.func @recompute_ok(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = ckpt.relu fwd %a {ckpt.recompute} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
