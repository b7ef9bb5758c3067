//===- ChunkLossHead.cpp - Row chunks of the vocabulary projection --------===//
//
// Implements `ckpt-chunk-loss-head` (see Passes.td): the projection to the
// vocabulary, its cross-entropy and their backward, rewritten so that the
// logits and their gradient exist one row chunk at a time.
//
// Terms used here:
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

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"
#include "ckpt/Dialect/Ckpt/Transforms/RematLowering.h"
#include "ckpt/Remat/LowerBound.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"

#include <string>

namespace mlir::ckpt {
#define GEN_PASS_DEF_CHUNKLOSSHEADPASS
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"
} // namespace mlir::ckpt

using namespace mlir;
using namespace mlir::ckpt;

namespace {

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
  Value gradRows;
  SmallVector<Reader> readers;
  /// Where the backward pieces go: before the first reader.
  Operation *firstReader = nullptr;
};

RankedTensorType rankedType(Value v) {
  return dyn_cast<RankedTensorType>(v.getType());
}

/// Whether `v` is available before `point` (same block, defined earlier, or
/// a block argument of it, or defined in an enclosing region).
bool isAvailableBefore(Value v, Operation *point) {
  Block *block = point->getBlock();
  if (auto arg = dyn_cast<BlockArgument>(v))
    return arg.getOwner() == block ||
           arg.getOwner()->getParentOp()->isProperAncestor(point);
  Operation *def = v.getDefiningOp();
  if (def->getBlock() == block)
    return def->isBeforeInBlock(point);
  return def->isProperAncestor(point) ||
         def->getParentRegion()->isAncestor(point->getParentRegion());
}

/// Matches the head whose cross-entropy is `loss`; on failure `whyNot`
/// says which part does not have the form.
FailureOr<LossHead> matchLossHead(CrossEntropyOp loss, std::string &whyNot) {
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
      !loss.getLse().hasOneUse() ||
      head.grad->getBlock() != loss->getBlock()) {
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
  head.gradRows = g;
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
      return kind == ReaderKind::InputGrad ? 0
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
  for (const Reader &reader : head.readers)
    if (reader.other && !isAvailableBefore(reader.other, head.firstReader)) {
      whyNot = "an operand of a reader is computed after the first reader";
      return failure();
    }
  if (!isAvailableBefore(head.grad.getGrad(), head.firstReader)) {
    whyNot = "the loss gradient is computed after the first reader";
    return failure();
  }
  return head;
}

/// Builds the rewrite of one matched head.
class HeadRewriter {
public:
  HeadRewriter(LossHead &head, int64_t chunks)
      : head(head), builder(head.loss), ctx(head.loss.getContext()) {
    rows = rankedType(head.loss.getLogits()).getDimSize(0);
    chunks = std::min<int64_t>(chunks, rows);
    pieceRows = (rows + chunks - 1) / chunks;
    for (int64_t start = 0; start < rows; start += pieceRows)
      bounds.push_back({start, std::min(rows, start + pieceRows)});
  }

  /// Number of pieces the head is split into.
  int64_t pieces() const { return static_cast<int64_t>(bounds.size()); }
  /// Rows of each piece but the last (which may have fewer).
  int64_t rowsPerPiece() const { return pieceRows; }

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
      Value rowsIn = sliceRows(head.projection->getLoc(), Phase::Forward,
                               input, start, end);
      inputPieces.push_back(rowsIn);
      targetPieces.push_back(sliceRows(loc, Phase::Forward,
                                       loss.getTargets(), start, end));
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
      total = total ? builder.create<AddOp>(loc, lossType,
                                            phase(Phase::Forward), total,
                                            piece.getLoss())
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
      count = builder.create<ReduceSumOp>(loc, scalarF32(),
                                          phase(Phase::Forward), countedF32,
                                          builder.getDenseI64ArrayAttr({0}),
                                          UnitAttr());
      total = builder.create<DivOp>(loc, lossType, phase(Phase::Forward),
                                    total, count);
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
      Value one = builder.create<FillOp>(loc, scalarF32(),
                                         phase(Phase::Backward),
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
              gradIsLhs ? otherRows : gradPiece,
              product.getTransposeLhsAttr(), product.getTransposeRhsAttr());
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
        sums[r] = sums[r] ? builder
                                .create<AddOp>(reader.op->getLoc(),
                                               result.getType(),
                                               phase(Phase::Backward),
                                               sums[r], partial)
                                .getResult()
                          : partial;
      }
    }
    for (auto [r, reader] : llvm::enumerate(head.readers)) {
      Value result = reader.op->getResult(0);
      if (reader.kind == ReaderKind::InputGrad)
        sums[r] = builder.create<ConcatOp>(reader.op->getLoc(),
                                           result.getType(),
                                           phase(Phase::Backward),
                                           inputGradPieces[r],
                                           builder.getI64IntegerAttr(0));
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
  int64_t rows = 0, pieceRows = 0;
  SmallVector<std::pair<int64_t, int64_t>> bounds;
  SmallVector<Value> inputPieces, targetPieces, logitPieces, lsePieces;
  /// The counted rows of a `mean` loss (f32, rank 0).
  Value count;
};

/// The chunk counts `chunks=0` tries.
constexpr int64_t kAutoChunkCounts[] = {2, 4, 8, 16, 32, 64};
/// How far above the lowest floor `chunks=0` accepts a floor, to split the
/// head into fewer pieces.
constexpr double kAutoFloorSlack = 0.01;

/// The proven floor of `func` in `scope` (bytes), or nothing when its
/// problem cannot be built (the reason is left to placement to report).
std::optional<int64_t> provenFloor(func::FuncOp func, BudgetScope scope) {
  ScopedDiagnosticHandler quiet(func.getContext(),
                                [](Diagnostic &) { return success(); });
  RematProblemOptions options;
  options.scope = scope;
  FailureOr<RematProblemWithOrigins> problem = buildRematProblem(func, options);
  if (failed(problem))
    return std::nullopt;
  return remat::computeProvenFloor(problem->problem).bytes;
}

/// The cross-entropy ops of `func`, in walk order.
SmallVector<CrossEntropyOp> lossesOf(func::FuncOp func) {
  SmallVector<CrossEntropyOp> losses;
  func.walk([&](CrossEntropyOp loss) { losses.push_back(loss); });
  return losses;
}

struct ChunkLossHeadPass
    : public mlir::ckpt::impl::ChunkLossHeadPassBase<ChunkLossHeadPass> {
  using ChunkLossHeadPassBase::ChunkLossHeadPassBase;

  /// With `chunks=0`: the fewest pieces among kAutoChunkCounts whose
  /// rewrite of head `index` gives `func` a proven floor within
  /// kAutoFloorSlack of the lowest any count gives (more pieces cost more
  /// weight-gradient traffic for little memory), or 1 when no count lowers
  /// the floor as it is. `floors` gets the floor as it is and the chosen
  /// one.
  int64_t chooseChunks(func::FuncOp func, size_t index,
                       std::pair<int64_t, int64_t> &floors) {
    std::optional<int64_t> unchunked = provenFloor(func, budgetScope);
    if (!unchunked)
      return 1;
    SmallVector<std::pair<int64_t, int64_t>> tried; // (count, floor)
    for (int64_t count : kAutoChunkCounts) {
      auto trial = cast<func::FuncOp>(func->clone());
      CrossEntropyOp loss = lossesOf(trial)[index];
      std::string whyNot;
      FailureOr<LossHead> head = matchLossHead(loss, whyNot);
      bool more = false;
      if (succeeded(head)) {
        HeadRewriter rewriter(*head, count);
        // More chunks than rows give the same pieces.
        more = rewriter.pieces() == count;
        rewriter.rewrite();
        if (std::optional<int64_t> floor = provenFloor(trial, budgetScope))
          tried.push_back({count, *floor});
      }
      trial->erase();
      if (!more)
        break;
    }
    int64_t lowest = *unchunked;
    for (auto [count, floor] : tried)
      lowest = std::min(lowest, floor);
    floors = {*unchunked, *unchunked};
    if (lowest >= *unchunked)
      return 1;
    for (auto [count, floor] : tried)
      if (static_cast<double>(floor) <=
          static_cast<double>(lowest) * (1.0 + kAutoFloorSlack)) {
        floors.second = floor;
        return count;
      }
    return 1;
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (chunks == 1)
      return;
    SmallVector<CrossEntropyOp> losses = lossesOf(func);
    for (auto [index, loss] : llvm::enumerate(losses)) {
      std::string whyNot;
      FailureOr<LossHead> head = matchLossHead(loss, whyNot);
      if (failed(head)) {
        if (explain)
          loss.emitRemark() << "loss head left as it is: " << whyNot;
        continue;
      }
      int64_t count = chunks;
      std::pair<int64_t, int64_t> floors{0, 0};
      if (count == 0) {
        count = chooseChunks(func, index, floors);
        if (count == 1) {
          if (explain)
            loss.emitRemark()
                << "loss head left as it is: no chunk count lowers the "
                   "proven floor in budget-scope="
                << stringifyBudgetScope(budgetScope) << " (" << floors.first
                << " bytes)";
          continue;
        }
        // The head is matched again: the trials matched it on copies.
        head = matchLossHead(loss, whyNot);
      }
      HeadRewriter rewriter(*head, count);
      int64_t rows = rankedType(loss.getLogits()).getDimSize(0);
      int64_t vocabulary = rankedType(loss.getLogits()).getDimSize(1);
      if (explain) {
        InFlightDiagnostic remark =
            loss.emitRemark()
            << "loss head chunked: " << rows << " rows x " << vocabulary
            << " classes in " << rewriter.pieces() << " pieces of at most "
            << rewriter.rowsPerPiece() << " rows";
        if (chunks == 0)
          remark << "; proven floor in budget-scope="
                 << stringifyBudgetScope(budgetScope) << " " << floors.first
                 << " -> " << floors.second << " bytes";
      }
      rewriter.rewrite();
    }
  }
};

} // namespace
