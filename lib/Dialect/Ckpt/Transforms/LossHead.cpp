//===- LossHead.cpp - The loss head and its row-chunk rewrite -------------===//
//
// See LossHead.h for the form and the terms, and `ckpt-chunk-loss-head` in
// Passes.td for the rewrite.
//
//===----------------------------------------------------------------------===//

#include "LossHead.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"

using namespace mlir;
using namespace mlir::ckpt;
using namespace mlir::ckpt::detail;

namespace {

RankedTensorType rankedType(Value v) {
  return dyn_cast<RankedTensorType>(v.getType());
}

} // namespace

/// Matches the head whose cross-entropy is `loss`; on failure `whyNot`
/// says which part does not have the form.
FailureOr<LossHead> mlir::ckpt::detail::matchLossHead(CrossEntropyOp loss,
                                                      std::string &whyNot) {
  LossHead head;
  head.loss = loss;
  if (loss.getReduction() == LossReduction::None) {
    whyNot = "its reduction is 'none' (the per-row losses are a result)";
    return failure();
  }
  Value logits = loss.getLogits();
  RankedTensorType logitsType = rankedType(logits);
  RankedTensorType targetsType = rankedType(loss.getTargets());
  if (!logitsType || logitsType.getRank() != 2 ||
      !logitsType.getElementType().isF32() || !targetsType ||
      targetsType.getRank() != 1) {
    whyNot = "the logits are not f32 rows [R, V] with targets [R]";
    return failure();
  }
  // The projection, through reshapes each read once.
  Value v = logits;
  while (auto reshape = v.getDefiningOp<ReshapeOp>()) {
    if (v != logits && !v.hasOneUse())
      break;
    head.forwardChain.insert(head.forwardChain.begin(), reshape);
    v = reshape.getInput();
  }
  if (v != logits && !v.hasOneUse()) {
    whyNot = "the projection's result is read elsewhere too";
    return failure();
  }
  if (v.getType() != logitsType) {
    whyNot = "the reshapes from the projection do not keep its rows";
    return failure();
  }
  Operation *projection = v.getDefiningOp();
  if (auto matmul = dyn_cast_or_null<MatmulOp>(projection)) {
    if (matmul.getTransposeLhs()) {
      whyNot = "the projection transposes its rows";
      return failure();
    }
  } else if (!isa_and_nonnull<LinearOp>(projection)) {
    whyNot = "the logits do not come from a matmul or linear op";
    return failure();
  }
  if (rankedType(projection->getOperand(0)).getRank() != 2) {
    whyNot = "the projection's input is not rows [R, D]";
    return failure();
  }
  if (projection->getBlock() != loss->getBlock()) {
    whyNot = "the projection is in another block";
    return failure();
  }
  head.projection = projection;

  // The logits are read by the loss and its gradient only; lse by the
  // gradient only.
  for (Operation *user : logits.getUsers()) {
    if (user == loss.getOperation())
      continue;
    auto grad = dyn_cast<CrossEntropyGradOp>(user);
    if (!grad || head.grad) {
      whyNot = "the logits are read by another op";
      return failure();
    }
    head.grad = grad;
  }
  if (!head.grad || head.grad.getLogits() != logits ||
      head.grad.getTargets() != loss.getTargets() ||
      head.grad.getLse() != loss.getLse() ||
      head.grad.getReduction() != loss.getReduction() ||
      head.grad.getIgnoreIndex() != loss.getIgnoreIndex() ||
      !loss.getLse().hasOneUse() || head.grad->getBlock() != loss->getBlock()) {
    whyNot = "its gradient is not one cross_entropy_grad of the same loss";
    return failure();
  }

  // G, through reshapes each read once.
  Value g = head.grad.getResult();
  while (g.hasOneUse()) {
    auto reshape = dyn_cast<ReshapeOp>(*g.getUsers().begin());
    if (!reshape)
      break;
    head.backwardChain.push_back(reshape);
    g = reshape.getResult();
  }
  if (g.getType() != logitsType) {
    whyNot = "the reshapes of the logits' gradient do not keep its rows";
    return failure();
  }
  for (Operation *user : g.getUsers()) {
    Reader reader{user, ReaderKind::InputGrad, Value()};
    if (auto matmul = dyn_cast<MatmulOp>(user)) {
      bool gradIsLhs = matmul.getLhs() == g, gradIsRhs = matmul.getRhs() == g;
      if (gradIsLhs && !gradIsRhs && !matmul.getTransposeLhs()) {
        reader = {user, ReaderKind::InputGrad, matmul.getRhs()};
      } else if (gradIsLhs && !gradIsRhs && !matmul.getTransposeRhs()) {
        reader = {user, ReaderKind::WeightGradLhs, matmul.getRhs()};
      } else if (gradIsRhs && !gradIsLhs && matmul.getTransposeLhs() &&
                 !matmul.getTransposeRhs()) {
        reader = {user, ReaderKind::WeightGradRhs, matmul.getLhs()};
      } else {
        whyNot = "a matmul reads the logits' gradient in another form";
        return failure();
      }
      if (reader.kind != ReaderKind::InputGrad &&
          (rankedType(reader.other).getRank() != 2 ||
           rankedType(reader.other).getDimSize(0) !=
               logitsType.getDimSize(0))) {
        whyNot = "a weight gradient's other operand is not rows [R, N]";
        return failure();
      }
    } else if (auto sum = dyn_cast<ReduceSumOp>(user)) {
      if (sum.getAxes().size() != 1 || sum.getAxes()[0] != 0) {
        whyNot = "a reduce_sum of the logits' gradient is not over the rows";
        return failure();
      }
      reader = {user, ReaderKind::BiasGrad, Value()};
    } else {
      whyNot = "the logits' gradient is read by '" +
               user->getName().getStringRef().str() + "'";
      return failure();
    }
    if (user->getBlock() != loss->getBlock()) {
      whyNot = "a reader of the logits' gradient is in another block";
      return failure();
    }
    if (!head.firstReader || user->isBeforeInBlock(head.firstReader))
      head.firstReader = user;
    head.readers.push_back(reader);
  }
  // Each piece computes its input-gradient rows first and its weight
  // gradient last, so that the logits gradient piece is dead when the
  // weight gradient's running sum (the largest buffers) is added to; then
  // in program order (use lists are in no useful order).
  llvm::sort(head.readers, [](const Reader &a, const Reader &b) {
    auto rank = [](ReaderKind kind) {
      return kind == ReaderKind::InputGrad  ? 0
             : kind == ReaderKind::BiasGrad ? 1
                                            : 2;
    };
    if (rank(a.kind) != rank(b.kind))
      return rank(a.kind) < rank(b.kind);
    return a.op->isBeforeInBlock(b.op);
  });
  if (head.readers.empty()) {
    whyNot = "nothing reads the logits' gradient";
    return failure();
  }
  DominanceInfo dominance(loss->getParentOp());
  for (const Reader &reader : head.readers)
    if (reader.other &&
        !dominance.properlyDominates(reader.other, head.firstReader)) {
      whyNot = "an operand of a reader is computed after the first reader";
      return failure();
    }
  if (!dominance.properlyDominates(head.grad.getGrad(), head.firstReader)) {
    whyNot = "the loss gradient is computed after the first reader";
    return failure();
  }
  return head;
}

RowChunks mlir::ckpt::detail::rowChunks(int64_t rows, int64_t chunks) {
  RowChunks split;
  chunks = std::max<int64_t>(1, std::min(chunks, rows));
  split.rowsPerPiece = (rows + chunks - 1) / chunks;
  split.pieces = (rows + split.rowsPerPiece - 1) / split.rowsPerPiece;
  return split;
}

namespace {

/// Builds the rewrite of one matched head.
class HeadRewriter {
public:
  HeadRewriter(LossHead &head, int64_t chunks)
      : head(head), builder(head.loss), ctx(head.loss.getContext()) {
    int64_t rows = rankedType(head.loss.getLogits()).getDimSize(0);
    int64_t pieceRows = rowChunks(rows, chunks).rowsPerPiece;
    for (int64_t start = 0; start < rows; start += pieceRows)
      bounds.push_back({start, std::min(rows, start + pieceRows)});
  }

  void rewrite() {
    buildForward();
    buildBackward();
    eraseOld();
  }

private:
  PhaseAttr phase(Phase p) { return PhaseAttr::get(ctx, p); }
  RankedTensorType withRows(RankedTensorType type, int64_t n) {
    SmallVector<int64_t> shape(type.getShape());
    shape[0] = n;
    return RankedTensorType::get(shape, type.getElementType());
  }
  RankedTensorType scalarF32() {
    return RankedTensorType::get({}, Float32Type::get(ctx));
  }
  /// Rows [start, end) of `v`.
  Value sliceRows(Location loc, Phase p, Value v, int64_t start, int64_t end) {
    RankedTensorType type = rankedType(v);
    SmallVector<int64_t> starts(type.getRank(), 0), steps(type.getRank(), 1);
    starts[0] = start;
    return builder
        .create<SliceOp>(loc, withRows(type, end - start), phase(p), v,
                         builder.getDenseI64ArrayAttr(starts),
                         builder.getDenseI64ArrayAttr(steps))
        .getResult();
  }

  void buildForward() {
    CrossEntropyOp loss = head.loss;
    Location loc = loss.getLoc();
    builder.setInsertionPoint(loss);
    Value input = head.projection->getOperand(0);
    RankedTensorType logitsType = rankedType(loss.getLogits());
    RankedTensorType lossType = rankedType(loss.getLoss());
    Value total;
    for (auto [start, end] : bounds) {
      Value rowsIn = sliceRows(head.projection->getLoc(), Phase::Forward, input,
                               start, end);
      inputPieces.push_back(rowsIn);
      targetPieces.push_back(
          sliceRows(loc, Phase::Forward, loss.getTargets(), start, end));
      Operation *projection = builder.clone(*head.projection);
      projection->setOperand(0, rowsIn);
      projection->getResult(0).setType(withRows(logitsType, end - start));
      logitPieces.push_back(projection->getResult(0));
      auto piece = builder.create<CrossEntropyOp>(
          loc, lossType,
          RankedTensorType::get({end - start}, Float32Type::get(ctx)),
          phase(Phase::Forward),
          LossReductionAttr::get(ctx, LossReduction::Sum),
          projection->getResult(0), targetPieces.back(),
          loss.getIgnoreIndexAttr());
      lsePieces.push_back(piece.getLse());
      total = total ? builder
                          .create<AddOp>(loc, lossType, phase(Phase::Forward),
                                         total, piece.getLoss())
                          .getResult()
                    : piece.getLoss();
    }
    if (loss.getReduction() == LossReduction::Mean) {
      // The rows whose target is not ignore_index, as f32.
      RankedTensorType targetsType = rankedType(loss.getTargets());
      Value ignore = builder.create<FillOp>(
          loc, RankedTensorType::get({}, targetsType.getElementType()),
          phase(Phase::Forward),
          builder.getF64FloatAttr(static_cast<double>(
              loss.getIgnoreIndexAttr().getValue().getSExtValue())));
      Value counted = builder.create<CompareOp>(
          loc,
          RankedTensorType::get(targetsType.getShape(),
                                IntegerType::get(ctx, 1)),
          phase(Phase::Forward),
          ComparePredicateAttr::get(ctx, ComparePredicate::Ne),
          loss.getTargets(), ignore);
      Value countedF32 = builder.create<ConvertOp>(
          loc,
          RankedTensorType::get(targetsType.getShape(), Float32Type::get(ctx)),
          phase(Phase::Forward), counted);
      count = builder.create<ReduceSumOp>(
          loc, scalarF32(), phase(Phase::Forward), countedF32,
          builder.getDenseI64ArrayAttr({0}), UnitAttr());
      total = builder.create<DivOp>(loc, lossType, phase(Phase::Forward), total,
                                    count);
    }
    loss.getLoss().replaceAllUsesWith(total);
  }

  void buildBackward() {
    CrossEntropyGradOp grad = head.grad;
    Location loc = grad.getLoc();
    builder.setInsertionPoint(head.firstReader);
    Value dloss = grad.getGrad();
    RankedTensorType dlossType = rankedType(dloss);
    if (count) {
      // The unchunked gradient multiplies the loss gradient by 1 / count.
      Value one =
          builder.create<FillOp>(loc, scalarF32(), phase(Phase::Backward),
                                 builder.getF64FloatAttr(1.0));
      Value reciprocal = builder.create<DivOp>(
          loc, scalarF32(), phase(Phase::Backward), one, count);
      dloss = builder.create<MulOp>(loc, dlossType, phase(Phase::Backward),
                                    dloss, reciprocal);
    }
    RankedTensorType logitsType = rankedType(head.loss.getLogits());
    SmallVector<SmallVector<Value>> inputGradPieces(head.readers.size());
    SmallVector<Value> sums(head.readers.size());
    for (auto [k, bound] : llvm::enumerate(bounds)) {
      auto [start, end] = bound;
      Value gradPiece = builder.create<CrossEntropyGradOp>(
          loc, withRows(logitsType, end - start), phase(Phase::Backward),
          LossReductionAttr::get(ctx, LossReduction::Sum), dloss,
          logitPieces[k], targetPieces[k], lsePieces[k],
          grad.getIgnoreIndexAttr());
      for (auto [r, reader] : llvm::enumerate(head.readers)) {
        // The other operand's rows first: the piece reads them.
        Value otherRows;
        bool weightGrad = reader.kind == ReaderKind::WeightGradLhs ||
                          reader.kind == ReaderKind::WeightGradRhs;
        if (weightGrad)
          otherRows = rowsOf(reader.other, k);
        Value result = reader.op->getResult(0);
        if (weightGrad && sums[r]) {
          // Added to the running sum by the product itself: the sum and
          // the new sum are live while it runs, not also a product.
          auto product = cast<MatmulOp>(reader.op);
          bool gradIsLhs = reader.kind == ReaderKind::WeightGradLhs;
          sums[r] = builder.create<MatmulAccOp>(
              reader.op->getLoc(), result.getType(), phase(Phase::Backward),
              sums[r], gradIsLhs ? gradPiece : otherRows,
              gradIsLhs ? otherRows : gradPiece, product.getTransposeLhsAttr(),
              product.getTransposeRhsAttr());
          continue;
        }
        Operation *piece = builder.clone(*reader.op);
        switch (reader.kind) {
        case ReaderKind::InputGrad:
          piece->setOperand(0, gradPiece);
          piece->getResult(0).setType(
              withRows(rankedType(result), end - start));
          inputGradPieces[r].push_back(piece->getResult(0));
          continue;
        case ReaderKind::WeightGradLhs:
          piece->setOperand(0, gradPiece);
          piece->setOperand(1, otherRows);
          break;
        case ReaderKind::WeightGradRhs:
          piece->setOperand(0, otherRows);
          piece->setOperand(1, gradPiece);
          break;
        case ReaderKind::BiasGrad:
          piece->setOperand(0, gradPiece);
          break;
        }
        Value partial = piece->getResult(0);
        sums[r] =
            sums[r]
                ? builder
                      .create<AddOp>(reader.op->getLoc(), result.getType(),
                                     phase(Phase::Backward), sums[r], partial)
                      .getResult()
                : partial;
      }
    }
    for (auto [r, reader] : llvm::enumerate(head.readers)) {
      Value result = reader.op->getResult(0);
      if (reader.kind == ReaderKind::InputGrad)
        sums[r] = builder.create<ConcatOp>(
            reader.op->getLoc(), result.getType(), phase(Phase::Backward),
            inputGradPieces[r], builder.getI64IntegerAttr(0));
      result.replaceAllUsesWith(sums[r]);
    }
  }

  /// Rows of chunk `k` of `rowsValue`: the forward piece when it is the
  /// projection's input, otherwise a slice made here.
  Value rowsOf(Value rowsValue, size_t k) {
    if (rowsValue == head.projection->getOperand(0))
      return inputPieces[k];
    return sliceRows(rowsValue.getLoc(), Phase::Backward, rowsValue,
                     bounds[k].first, bounds[k].second);
  }

  void eraseOld() {
    for (const Reader &reader : head.readers)
      reader.op->erase();
    for (ReshapeOp reshape : llvm::reverse(head.backwardChain))
      reshape->erase();
    head.grad->erase();
    head.loss->erase();
    for (ReshapeOp reshape : llvm::reverse(head.forwardChain))
      reshape->erase();
    head.projection->erase();
  }

  LossHead &head;
  OpBuilder builder;
  MLIRContext *ctx;
  /// Rows [first, second) of each piece.
  SmallVector<std::pair<int64_t, int64_t>> bounds;
  SmallVector<Value> inputPieces, targetPieces, logitPieces, lsePieces;
  /// The counted rows of a `mean` loss (f32, rank 0).
  Value count;
};

} // namespace

void mlir::ckpt::detail::rewriteLossHead(LossHead &head, int64_t chunks) {
  HeadRewriter(head, chunks).rewrite();
}
