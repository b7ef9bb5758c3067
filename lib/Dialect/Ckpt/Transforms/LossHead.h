//===- LossHead.h - The loss head and its row-chunk rewrite -----*- C++ -*-===//
//
// Private to CkptTransforms: the form of a loss head that
// `ckpt-chunk-loss-head` rewrites (a projection to the vocabulary, its
// cross-entropy and their backward), its matcher, and the rewrite into row
// chunks (LossHead.cpp). Terms:
//   X  the projection's input rows, [R, D]
//   L  the logits, [R, V] (the projection's result, possibly through
//      reshapes that end at the same type)
//   G  the logits' gradient, [R, V] (the cross_entropy_grad result, or a
//      reshape chain from it that ends at the same type)
//   reader  an op reading G: the input gradient `G x W`, the weight
//      gradient `G^T x Y` or `Y^T x G` (Y: rows, [R, N]), or the bias
//      gradient `reduce_sum(G)` over the rows.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_LIB_DIALECT_CKPT_TRANSFORMS_LOSSHEAD_H
#define CKPT_LIB_DIALECT_CKPT_TRANSFORMS_LOSSHEAD_H

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"

#include <cstdint>
#include <string>

namespace mlir::ckpt::detail {

/// How an op reads the logits' gradient G.
enum class ReaderKind {
  /// `G x W` (G the lhs, not transposed): rows of the input gradient.
  InputGrad,
  /// `G^T x Y` (G the lhs, transposed): a sum over the rows.
  WeightGradLhs,
  /// `Y^T x G` (G the rhs, Y transposed): a sum over the rows.
  WeightGradRhs,
  /// `reduce_sum(G)` over axis 0: a sum over the rows.
  BiasGrad,
};

/// One reader of G.
struct Reader {
  Operation *op;
  ReaderKind kind;
  /// The operand that is not G (none for the bias gradient).
  Value other;
};

/// A loss head in the form the rewrite handles.
struct LossHead {
  Operation *projection = nullptr;
  /// Reshapes from the projection's result to the logits, in order.
  SmallVector<ReshapeOp> forwardChain;
  CrossEntropyOp loss;
  CrossEntropyGradOp grad;
  /// Reshapes from the grad op's result to G, in order.
  SmallVector<ReshapeOp> backwardChain;
  /// Input gradients first, then bias, then weight gradients (each piece
  /// computes them in this order), each kind in program order.
  SmallVector<Reader> readers;
  /// Where the backward pieces go: before the first reader.
  Operation *firstReader = nullptr;
};

/// Matches the head whose cross-entropy is `loss`; on failure `whyNot`
/// says which part does not have the form.
FailureOr<LossHead> matchLossHead(CrossEntropyOp loss, std::string &whyNot);

/// How `rows` rows split into `chunks` chunks: pieces of `rowsPerPiece`
/// rows (the last may have fewer); fewer pieces than chunks when
/// `chunks > rows` or the division leaves too few rows for the last ones.
struct RowChunks {
  int64_t pieces = 0;
  int64_t rowsPerPiece = 0;
};
RowChunks rowChunks(int64_t rows, int64_t chunks);

/// Rewrites the matched `head` into `chunks` row chunks (see
/// `ckpt-chunk-loss-head` in Passes.td) and erases the ops it replaces.
void rewriteLossHead(LossHead &head, int64_t chunks);

} // namespace mlir::ckpt::detail

#endif // CKPT_LIB_DIALECT_CKPT_TRANSFORMS_LOSSHEAD_H
