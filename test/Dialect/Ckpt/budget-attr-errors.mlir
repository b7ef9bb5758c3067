// RUN: ckpt-opt %s -split-input-file -verify-diagnostics

// ckpt.budget (a resolved budget: bytes, scope, the budget as given, and an
// optional tighter placement target) is verified where it is parsed.

// expected-error @+1 {{'ckpt.budget' must be a dictionary}}
func.func @not_a_dictionary() attributes {ckpt.budget = 4096 : i64} {
  return
}

// -----

// expected-error @+1 {{'ckpt.budget' needs 'bytes', an i64 of at least 1}}
func.func @no_bytes() attributes {ckpt.budget = {requested = "0.5x", scope = "step"}} {
  return
}

// -----

// expected-error @+1 {{'ckpt.budget' needs 'bytes', an i64 of at least 1}}
func.func @zero_bytes() attributes {ckpt.budget = {bytes = 0 : i64, requested = "0.5x", scope = "step"}} {
  return
}

// -----

// expected-error @+1 {{'ckpt.budget' needs 'scope', one of step or activations as a string}}
func.func @bad_scope() attributes {ckpt.budget = {bytes = 10 : i64, requested = "10B", scope = "weights"}} {
  return
}

// -----

// expected-error @+1 {{'ckpt.budget' needs 'requested', the budget as given (a string)}}
func.func @no_requested() attributes {ckpt.budget = {bytes = 10 : i64, scope = "step"}} {
  return
}

// -----

// expected-error @+1 {{'ckpt.budget' 'target' must be an i64 from 1 to 'bytes'}}
func.func @target_above_budget() attributes {ckpt.budget = {bytes = 10 : i64, requested = "10B", scope = "step", target = 11 : i64}} {
  return
}

// -----

// expected-error @+1 {{'ckpt.budget' has an unknown field 'fraction'}}
func.func @unknown_field() attributes {ckpt.budget = {bytes = 10 : i64, fraction = 5.0e-01 : f64, requested = "0.5x", scope = "step"}} {
  return
}

// -----

// expected-error @+1 {{'ckpt.budget' may only be set on a func.func}}
module attributes {ckpt.budget = {bytes = 10 : i64, requested = "10B", scope = "step"}} {
}

// -----

// A well-formed budget, with and without a target.
func.func @resolved() attributes {ckpt.budget = {bytes = 10 : i64, requested = "10B", scope = "step"}} {
  return
}
func.func @with_target() attributes {ckpt.budget = {bytes = 10 : i64, requested = "0.5x", scope = "activations", target = 8 : i64}} {
  return
}
