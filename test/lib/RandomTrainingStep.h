//===- RandomTrainingStep.h - Random training steps for tests ---*- C++ -*-===//
//
// Writes random, valid training steps in the ckpt dialect: a forward DAG with
// skip connections, views and multi-result ops over tensors of one size, a
// loss, and a backward chain reading every forward value in reverse order,
// with one parameter gradient. Used by the placement property test and the
// pipeline fuzzer; header-only, so that neither links anything extra.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_TEST_LIB_RANDOMTRAININGSTEP_H
#define CKPT_TEST_LIB_RANDOMTRAININGSTEP_H

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace mlir::ckpt::test {

/// Returns the text of a random step with `numOps` forward ops. `pick(n)`
/// must return a number in [0, n). Forward ops get scopes `blk.<i/3>.op`, so
/// that block-based strategies find blocks.
inline std::string writeRandomTrainingStep(int numOps,
                                           const std::function<int(int)> &pick) {
  const int size = 64 * (1 + pick(4)); // elements of every tensor
  std::string type = llvm::formatv("tensor<{0}xf32>", size).str();
  std::string text = llvm::formatv(
      "func.func @step(%x: {0} {{ckpt.role = #ckpt.role<param>}, %seed: "
      "tensor<f32> {{ckpt.role = #ckpt.role<seed>}) -> (tensor<f32> "
      "{{ckpt.role = #ckpt.role<loss>}, {0} {{ckpt.grad_of = 0 : i64, "
      "ckpt.role = #ckpt.role<grad>}) attributes {{ckpt.step} {{\n",
      type);
  std::vector<std::string> values = {"%x"};
  for (int i = 0; i < numOps; ++i) {
    int count = static_cast<int>(values.size());
    std::string a = values[pick(count)];
    std::string b = values[std::max(0, count - 1 - pick(3))];
    std::string loc =
        llvm::formatv("loc(\"blk.{0}.op\"(\"f\":{1}:1))", i / 3, i + 1);
    std::string v = llvm::formatv("%f{0}", i);
    switch (pick(5)) {
    case 0:
      text += llvm::formatv("  {0} = ckpt.exp fwd {1} : {2} {3}\n", v, a, type,
                            loc);
      break;
    case 1:
      text += llvm::formatv("  {0} = ckpt.add fwd {1}, {2} : {3}, {3} -> {3} "
                            "{4}\n",
                            v, a, b, type, loc);
      break;
    case 2:
      text += llvm::formatv("  {0} = ckpt.mul fwd {1}, {2} : {3}, {3} -> {3} "
                            "{4}\n",
                            v, a, b, type, loc);
      break;
    case 3: // A view and an op reading it.
      text += llvm::formatv(
          "  {0}v = ckpt.reshape fwd {1} : {2} -> tensor<{3}x64xf32> {4}\n"
          "  {0}r = ckpt.relu fwd {0}v : tensor<{3}x64xf32> {4}\n"
          "  {0} = ckpt.reshape fwd {0}r : tensor<{3}x64xf32> -> {2} {4}\n",
          v, a, type, size / 64, loc);
      break;
    default: // A multi-result op.
      text += llvm::formatv("  {0}, {0}m = ckpt.dropout fwd {1} p "
                            "1.000000e-01 seed {2} offset 0 : {3} -> ({3}, "
                            "tensor<{4}xi1>) {5}\n",
                            v, a, i, type, size, loc);
      break;
    }
    values.push_back(v);
  }
  text += llvm::formatv("  %loss = ckpt.reduce_sum fwd {0} axes [0] : {1} -> "
                        "tensor<f32>\n",
                        values.back(), type);
  text += llvm::formatv(
      "  %g = ckpt.broadcast bwd %seed : tensor<f32> -> {0}\n", type);
  std::string grad = "%g";
  for (int i = numOps - 1; i >= 0; --i) {
    std::string next = llvm::formatv("%g{0}", i);
    text += llvm::formatv("  {0} = ckpt.mul bwd {1}, %f{2} : {3}, {3} -> {3}\n",
                          next, grad, i, type);
    grad = next;
  }
  text += llvm::formatv("  return %loss, {0} : tensor<f32>, {1}\n}\n", grad,
                        type);
  return text;
}

} // namespace mlir::ckpt::test

#endif // CKPT_TEST_LIB_RANDOMTRAININGSTEP_H
