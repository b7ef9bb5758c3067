// Literals in the generated code read back exactly and compile without a
// warning: floats with 17 significant digits, integers above 2^53, quotes,
// backslashes, newlines and `??` in names (string literals escaped with
// three-digit octal, comments kept on one line). Planned in the same run.

// RUN: rm -rf %t && %ckpt_opt %s --ckpt-plan-memory --emit=cpp -o %t
// RUN: FileCheck %s --input-file=%t/literals.cpp
// RUN: %cxx -std=c++17 -Wall -Wextra -Werror -fsyntax-only -I%ckpt_runtime_include -I%t %t/literals.cpp

// CHECK: {"in\"put\\?\?\?/x\012", Role::Input, DType::F32, 2, {4, 8}, {{[0-9]+}}, -1},
// CHECK: {"p", Role::Param, DType::I64, 1, {3}, {{[0-9]+}}, -1},
// CHECK: {"output:0", Role::Output, DType::F32, 2, {4, 8}, {{[0-9]+}}, -1},
// CHECK: floatAttr("exponent", 3.0)
// CHECK: floatAttr("exponent", 0.10000000000000001)
// The op's location: in the comment, `??` is split and the backslash made a
// slash (a trailing one would continue the comment); the string is escaped.
// CHECK: //     at dir/file.py:7 (blk? ?/ a)
// CHECK: static const OpInfo op = {2, "dropout", "dir/file.py:7 (blk?\?\\ a)", Phase::Forward, false, -1};
// Attributes come sorted by name.
// CHECK: static const Attr attrs[] = {intAttr("offset", 0),
// CHECK-NEXT: floatAttr("p", 0.25),
// CHECK-NEXT: stringAttr("phase", "fwd"),
// CHECK-NEXT: intAttr("seed", 9007199254740993)};
func.func @literals(%x: tensor<4x8xf32> {ckpt.role = #ckpt.role<input>} loc("in\"put\\???/x\n"(unknown)),
                    %p: tensor<3xi64> {ckpt.role = #ckpt.role<param>} loc("p"(unknown)))
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi1>) {
  // No loss: results are named by role and index.
  %0 = ckpt.pow fwd %x, 3.000000e+00 : tensor<4x8xf32>
  %1 = ckpt.pow fwd %x, 1.000000e-01 : tensor<4x8xf32>
  %2, %3 = ckpt.dropout fwd %x p 2.500000e-01 seed 9007199254740993 offset 0 : tensor<4x8xf32> -> (tensor<4x8xf32>, tensor<4x8xi1>) loc("blk??\\ a"("dir/file.py":7:0))
  return %0, %1, %2, %3 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi1>
}
