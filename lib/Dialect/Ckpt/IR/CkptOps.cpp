//===- CkptOps.cpp - Verifiers of ckpt operations -------------------------===//
//
// Op registration and the verifiers that check cross-operand shapes, element
// types and attribute ranges. Costs live in CkptCost.cpp.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/IR/CkptVerification.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"

#include <cmath>

using namespace mlir;
using namespace mlir::ckpt;

void CkptDialect::registerOps() {
  addOperations<
#define GET_OP_LIST
#include "ckpt/Dialect/Ckpt/IR/CkptOps.cpp.inc"
      >();
}

#include "ckpt/Dialect/Ckpt/IR/CkptInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "ckpt/Dialect/Ckpt/IR/CkptOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static int64_t rankOf(Value value) {
  return cast<ShapedType>(value.getType()).getRank();
}

static SmallVector<int64_t> concat(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  SmallVector<int64_t> result(a);
  result.append(b.begin(), b.end());
  return result;
}

static LogicalResult verifyRank(Operation *op, Value value, int64_t rank,
                                StringRef what) {
  if (rankOf(value) == rank)
    return success();
  return op->emitOpError() << "expects " << what << " of rank " << rank
                           << ", got rank " << rankOf(value);
}

static LogicalResult verifyMinRank(Operation *op, Value value, int64_t rank,
                                   StringRef what) {
  if (rankOf(value) >= rank)
    return success();
  return op->emitOpError() << "expects " << what << " of rank >= " << rank
                           << ", got rank " << rankOf(value);
}

/// Verifies that `value` is a finite number in [lo, hi) (or [lo, hi] when
/// `closed`).
static LogicalResult verifyRange(Operation *op, double value, StringRef name,
                                 double lo, double hi, bool closed = false) {
  if (std::isfinite(value) && value >= lo &&
      (closed ? value <= hi : value < hi))
    return success();
  return op->emitOpError() << "expects " << name << " in [" << lo << ", " << hi
                           << (closed ? "]" : ")") << ", got " << value;
}

static LogicalResult verifyFinite(Operation *op, double value, StringRef name) {
  if (std::isfinite(value))
    return success();
  return op->emitOpError() << "expects a finite " << name;
}

static LogicalResult verifyPositive(Operation *op, double value,
                                    StringRef name) {
  if (std::isfinite(value) && value > 0)
    return success();
  return op->emitOpError() << "expects a positive finite " << name << ", got "
                           << value;
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

/// Checks `op(lhs) x op(rhs)` on the trailing two dimensions and returns the
/// result matrix shape {M, N} in `mn`.
static LogicalResult verifyMatrixDims(Operation *op, ArrayRef<int64_t> lhs,
                                      ArrayRef<int64_t> rhs, bool transposeLhs,
                                      bool transposeRhs,
                                      SmallVectorImpl<int64_t> &mn) {
  int64_t l0 = lhs[lhs.size() - 2], l1 = lhs.back();
  int64_t r0 = rhs[rhs.size() - 2], r1 = rhs.back();
  int64_t m = transposeLhs ? l1 : l0, kl = transposeLhs ? l0 : l1;
  int64_t kr = transposeRhs ? r1 : r0, n = transposeRhs ? r0 : r1;
  if (kl != kr)
    return op->emitOpError()
           << "contraction dimensions differ: lhs has K = " << kl
           << ", rhs has K = " << kr;
  mn.assign({m, n});
  return success();
}

LogicalResult MatmulOp::verify() {
  if (failed(verifyRank(*this, getLhs(), 2, "lhs")) ||
      failed(verifyRank(*this, getRhs(), 2, "rhs")) ||
      failed(verifySameElementType(*this, getResult(), {getLhs(), getRhs()})))
    return failure();
  SmallVector<int64_t> mn;
  if (failed(verifyMatrixDims(*this, shapeOf(getLhs()), shapeOf(getRhs()),
                              getTransposeLhs(), getTransposeRhs(), mn)))
    return failure();
  return verifyShape(*this, getResult(), mn, "a result");
}

LogicalResult MatmulAccOp::verify() {
  if (failed(verifyRank(*this, getLhs(), 2, "lhs")) ||
      failed(verifyRank(*this, getRhs(), 2, "rhs")) ||
      failed(verifySameElementType(*this, getResult(),
                                   {getAcc(), getLhs(), getRhs()})))
    return failure();
  SmallVector<int64_t> mn;
  if (failed(verifyMatrixDims(*this, shapeOf(getLhs()), shapeOf(getRhs()),
                              getTransposeLhs(), getTransposeRhs(), mn)) ||
      failed(verifyShape(*this, getResult(), mn, "a result")))
    return failure();
  return verifyShape(*this, getAcc(), mn, "an accumulator");
}

LogicalResult BatchMatmulOp::verify() {
  if (failed(verifyMinRank(*this, getLhs(), 3, "lhs")) ||
      failed(verifyRank(*this, getRhs(), rankOf(getLhs()),
                        "rhs (the rank of lhs)")) ||
      failed(verifySameElementType(*this, getResult(), {getLhs(), getRhs()})))
    return failure();
  ArrayRef<int64_t> lhs = shapeOf(getLhs()), rhs = shapeOf(getRhs());
  std::optional<SmallVector<int64_t>> batch =
      broadcastShapes(lhs.drop_back(2), rhs.drop_back(2));
  if (!batch)
    return emitOpError() << "batch dimensions " << formatShape(lhs.drop_back(2))
                         << " and " << formatShape(rhs.drop_back(2))
                         << " are not broadcast-compatible";
  SmallVector<int64_t> mn;
  if (failed(verifyMatrixDims(*this, lhs, rhs, getTransposeLhs(),
                              getTransposeRhs(), mn)))
    return failure();
  return verifyShape(*this, getResult(), concat(*batch, mn), "a result");
}

LogicalResult LinearOp::verify() {
  SmallVector<Value> floats = {getInput(), getWeight()};
  if (getBias())
    floats.push_back(getBias());
  if (failed(verifyMinRank(*this, getInput(), 1, "input")) ||
      failed(verifyRank(*this, getWeight(), 2, "weight")) ||
      failed(verifySameElementType(*this, getResult(), floats)))
    return failure();
  ArrayRef<int64_t> input = shapeOf(getInput()), weight = shapeOf(getWeight());
  if (input.back() != weight[1])
    return emitOpError() << "input features (" << input.back()
                         << ") differ from the weight's second dimension ("
                         << weight[1] << ")";
  if (getBias() && failed(verifyShape(*this, getBias(), {weight[0]}, "bias")))
    return failure();
  return verifyShape(*this, getResult(), concat(input.drop_back(), {weight[0]}),
                     "a result");
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult PowOp::verify() {
  return verifyFinite(*this, getExponent().convertToDouble(), "exponent");
}

/// The bounds of `clamp` / `clamp_grad`: finite (a graph document cannot
/// hold infinities) and ordered, so that the op is PyTorch's hardtanh.
static LogicalResult verifyClampBounds(Operation *op, double min, double max) {
  if (failed(verifyFinite(op, min, "min")) ||
      failed(verifyFinite(op, max, "max")))
    return failure();
  if (min <= max)
    return success();
  return op->emitOpError() << "expects min <= max, got min = " << min
                           << " and max = " << max;
}

LogicalResult ClampOp::verify() {
  return verifyClampBounds(*this, getMin().convertToDouble(),
                           getMax().convertToDouble());
}

LogicalResult ClampGradOp::verify() {
  return verifyClampBounds(*this, getMin().convertToDouble(),
                           getMax().convertToDouble());
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

/// A float fill value may be any non-NaN double (it rounds to the element
/// type); an integer fill value must be integral and fit the element type.
LogicalResult FillOp::verify() {
  return verifyConstantOfType(
      *this, getValue().convertToDouble(),
      cast<RankedTensorType>(getResult().getType()).getElementType(),
      "value");
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

/// Shared checks of layer and RMS normalization: axis range, weight/bias
/// shapes `input[axis:]`, statistics shapes `input[:axis]`.
static LogicalResult
verifyTrailingNorm(Operation *op, Value input, int64_t axis, ValueRange params,
                   ValueRange stats, ValueRange sameAsInput,
                   ValueRange paramGrads, unsigned maxParamGrads) {
  int64_t rank = rankOf(input);
  if (axis >= rank)
    return op->emitOpError()
           << "axis " << axis << " is out of range for rank " << rank;
  ArrayRef<int64_t> shape = shapeOf(input);
  for (Value value : sameAsInput)
    if (value.getType() != input.getType())
      return op->emitOpError() << "expects type " << input.getType()
                               << " (the input's), got " << value.getType();
  for (Value param : params)
    if (failed(verifyShape(op, param, shape.drop_front(axis),
                           "a weight/bias (the normalized dimensions)")) ||
        failed(verifySameElementType(op, input, param)))
      return failure();
  for (Value stat : stats)
    if (failed(verifyShape(op, stat, shape.take_front(axis),
                           "statistics (the leading dimensions)")))
      return failure();
  if (paramGrads.size() > maxParamGrads)
    return op->emitOpError()
           << "returns at most " << maxParamGrads
           << " parameter gradients, got " << paramGrads.size();
  if (!paramGrads.empty() && params.empty())
    return op->emitOpError()
           << "returns parameter gradients but has no weight operand";
  for (Value grad : paramGrads)
    if (failed(verifyShape(op, grad, shape.drop_front(axis),
                           "parameter gradients")) ||
        failed(verifySameElementType(op, input, grad)))
      return failure();
  return success();
}

static SmallVector<Value> present(std::initializer_list<Value> values) {
  SmallVector<Value> result;
  for (Value value : values)
    if (value)
      result.push_back(value);
  return result;
}

LogicalResult LayerNormOp::verify() {
  if (failed(verifyFinite(*this, getEpsilon().convertToDouble(), "epsilon")))
    return failure();
  return verifyTrailingNorm(*this, getInput(), getAxis(),
                            present({getWeight(), getBias()}),
                            {getMean(), getRstd()}, {getResult()}, {}, 0);
}

LogicalResult LayerNormGradOp::verify() {
  return verifyTrailingNorm(*this, getInput(), getAxis(),
                            present({getWeight()}), {getMean(), getRstd()},
                            {getGrad(), getInputGrad()}, getParamGrads(), 2);
}

LogicalResult RmsNormOp::verify() {
  if (failed(verifyFinite(*this, getEpsilon().convertToDouble(), "epsilon")))
    return failure();
  return verifyTrailingNorm(*this, getInput(), getAxis(),
                            present({getWeight()}), {getRstd()}, {getResult()},
                            {}, 0);
}

LogicalResult RmsNormGradOp::verify() {
  return verifyTrailingNorm(*this, getInput(), getAxis(),
                            present({getWeight()}), {getRstd()},
                            {getGrad(), getInputGrad()}, getParamGrads(), 1);
}

/// Shared checks of batch normalization: channel dimension 1, per-channel
/// parameters and statistics.
static LogicalResult verifyBatchNorm(Operation *op, Value input,
                                     ValueRange params, ValueRange stats,
                                     ValueRange sameAsInput,
                                     ValueRange paramGrads) {
  if (failed(verifyMinRank(op, input, 2, "input")))
    return failure();
  int64_t channels = shapeOf(input)[1];
  for (Value value : sameAsInput)
    if (value.getType() != input.getType())
      return op->emitOpError() << "expects type " << input.getType()
                               << " (the input's), got " << value.getType();
  for (Value value : params)
    if (failed(verifyShape(op, value, {channels}, "per-channel parameters")) ||
        failed(verifySameElementType(op, input, value)))
      return failure();
  for (Value value : stats)
    if (failed(verifyShape(op, value, {channels}, "per-channel statistics")))
      return failure();
  if (paramGrads.size() > 2)
    return op->emitOpError() << "returns at most 2 parameter gradients, got "
                             << paramGrads.size();
  if (!paramGrads.empty() && params.empty())
    return op->emitOpError()
           << "returns parameter gradients but has no weight operand";
  for (Value value : paramGrads)
    if (failed(verifyShape(op, value, {channels}, "parameter gradients")) ||
        failed(verifySameElementType(op, input, value)))
      return failure();
  return success();
}

LogicalResult BatchNormOp::verify() {
  if (failed(verifyFinite(*this, getEpsilon().convertToDouble(), "epsilon")))
    return failure();
  return verifyBatchNorm(*this, getInput(), present({getWeight(), getBias()}),
                         {getMean(), getRstd()}, {getResult()}, {});
}

LogicalResult BatchNormGradOp::verify() {
  return verifyBatchNorm(*this, getInput(), present({getWeight()}),
                         {getMean(), getRstd()}, {getGrad(), getInputGrad()},
                         getParamGrads());
}

//===----------------------------------------------------------------------===//
// Dropout, embedding, loss
//===----------------------------------------------------------------------===//

LogicalResult DropoutOp::verify() {
  if (failed(verifyRange(*this, getP().convertToDouble(), "p", 0.0, 1.0)))
    return failure();
  if (getResult().getType() != getInput().getType())
    return emitOpError() << "expects the result type " << getInput().getType()
                         << " (the input's), got " << getResult().getType();
  return verifyShape(*this, getMask(), shapeOf(getInput()), "a mask");
}

LogicalResult DropoutGradOp::verify() {
  if (failed(verifyRange(*this, getP().convertToDouble(), "p", 0.0, 1.0)))
    return failure();
  return verifyShape(*this, getMask(), shapeOf(getGrad()), "a mask");
}

LogicalResult EmbeddingOp::verify() {
  if (failed(verifyRank(*this, getTable(), 2, "table")) ||
      failed(verifySameElementType(*this, getTable(), getResult())))
    return failure();
  return verifyShape(*this, getResult(),
                     concat(shapeOf(getIndices()), {shapeOf(getTable())[1]}),
                     "a result (indices shape + embedding dim)");
}

LogicalResult EmbeddingGradOp::verify() {
  if (failed(verifyRank(*this, getResult(), 2, "a result (the table)")) ||
      failed(verifySameElementType(*this, getGrad(), getResult())))
    return failure();
  if (failed(
          verifyShape(*this, getGrad(),
                      concat(shapeOf(getIndices()), {shapeOf(getResult())[1]}),
                      "a gradient (indices shape + embedding dim)")))
    return failure();
  // The attribute constraint makes it non-negative; it must name a row.
  int64_t rows = shapeOf(getResult())[0];
  if (std::optional<uint64_t> padding = getPaddingIdx();
      padding && static_cast<int64_t>(*padding) >= rows)
    return emitOpError() << "expects padding_idx < " << rows
                         << " (a row of the table), got " << *padding;
  return success();
}

/// Shape of the loss for a reduction over rows of shape `rows`.
static SmallVector<int64_t> lossShape(LossReduction reduction,
                                      ArrayRef<int64_t> rows) {
  if (reduction == LossReduction::None)
    return SmallVector<int64_t>(rows);
  return {};
}

static LogicalResult verifyCrossEntropyShapes(Operation *op, Value logits,
                                              Value targets, Value lse,
                                              Value loss,
                                              LossReduction reduction) {
  if (failed(verifyMinRank(op, logits, 1, "logits")))
    return failure();
  ArrayRef<int64_t> rows = shapeOf(logits).drop_back();
  if (failed(verifyShape(op, targets, rows, "targets (the logits' rows)")) ||
      failed(verifyShape(op, lse, rows, "lse (the logits' rows)")) ||
      failed(verifyShape(op, loss, lossShape(reduction, rows),
                         "a loss (or its gradient)")))
    return failure();
  return verifySameElementType(op, logits, loss);
}

LogicalResult CrossEntropyOp::verify() {
  return verifyCrossEntropyShapes(*this, getLogits(), getTargets(), getLse(),
                                  getLoss(), getReduction());
}

LogicalResult CrossEntropyGradOp::verify() {
  if (failed(verifyCrossEntropyShapes(*this, getLogits(), getTargets(),
                                      getLse(), getGrad(), getReduction())))
    return failure();
  if (getResult().getType() != getLogits().getType())
    return emitOpError() << "expects the result type " << getLogits().getType()
                         << " (the logits'), got " << getResult().getType();
  return success();
}

/// The operands of `mse_loss` / `mse_loss_grad`: input and target of one
/// type, a reduction to a scalar (`mean` or `sum`), and the loss or its
/// gradient `scalar` rank 0 of the input's element type.
static LogicalResult verifyMseLoss(Operation *op, Value input, Value target,
                                   Value scalar, LossReduction reduction,
                                   StringRef scalarName) {
  if (input.getType() != target.getType())
    return op->emitOpError() << "expects the target type " << input.getType()
                             << " (the input's), got " << target.getType();
  if (reduction == LossReduction::None)
    return op->emitOpError()
           << "expects reduction 'mean' or 'sum' (a scalar loss), got 'none'";
  auto expected = RankedTensorType::get(
      {}, cast<ShapedType>(input.getType()).getElementType());
  if (scalar.getType() != expected)
    return op->emitOpError() << "expects the " << scalarName << " type "
                             << expected << ", got " << scalar.getType();
  return success();
}

LogicalResult MseLossOp::verify() {
  return verifyMseLoss(*this, getInput(), getTarget(), getLoss(),
                       getReduction(), "loss");
}

LogicalResult MseLossGradOp::verify() {
  if (failed(verifyMseLoss(*this, getInput(), getTarget(), getGrad(),
                           getReduction(), "grad")))
    return failure();
  if (getResult().getType() != getInput().getType())
    return emitOpError() << "expects the result type " << getInput().getType()
                         << " (the input's), got " << getResult().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  if (failed(verifySameElementType(*this, getInput(), getResult())))
    return failure();
  auto in = cast<ShapedType>(getInput().getType());
  auto out = cast<ShapedType>(getResult().getType());
  if (in.getNumElements() != out.getNumElements())
    return emitOpError() << "cannot reshape " << in.getNumElements()
                         << " elements into " << out.getNumElements();
  return success();
}

LogicalResult TransposeOp::verify() {
  ArrayRef<int64_t> perm = getPerm();
  ArrayRef<int64_t> input = shapeOf(getInput());
  if (perm.size() != input.size())
    return emitOpError() << "permutation has " << perm.size()
                         << " entries for an input of rank " << input.size();
  SmallVector<bool> seen(perm.size(), false);
  SmallVector<int64_t> expected;
  for (int64_t dim : perm) {
    if (dim < 0 || dim >= int64_t(perm.size()) || seen[dim])
      return emitOpError() << "'perm' is not a permutation of 0.."
                           << int64_t(perm.size()) - 1;
    seen[dim] = true;
    expected.push_back(input[dim]);
  }
  if (failed(verifySameElementType(*this, getInput(), getResult())))
    return failure();
  return verifyShape(*this, getResult(), expected, "a result");
}

LogicalResult BroadcastOp::verify() {
  if (failed(verifySameElementType(*this, getInput(), getResult())))
    return failure();
  if (!isBroadcastableTo(shapeOf(getInput()), shapeOf(getResult())))
    return emitOpError() << "cannot broadcast shape "
                         << formatShape(shapeOf(getInput())) << " to "
                         << formatShape(shapeOf(getResult()));
  return success();
}

LogicalResult SliceOp::verify() {
  ArrayRef<int64_t> input = shapeOf(getInput()), result = shapeOf(getResult());
  ArrayRef<int64_t> starts = getStarts(), steps = getSteps();
  if (failed(verifySameElementType(*this, getInput(), getResult())) ||
      failed(verifyRank(*this, getResult(), input.size(),
                        "a result (the input's rank)")))
    return failure();
  if (starts.size() != input.size() || steps.size() != input.size())
    return emitOpError() << "expects " << input.size()
                         << " starts and steps, got " << starts.size()
                         << " and " << steps.size();
  for (size_t d = 0; d < input.size(); ++d) {
    if (starts[d] < 0 || steps[d] < 1)
      return emitOpError() << "dimension " << d
                           << ": start must be >= 0 and step >= 1, got start "
                           << starts[d] << " and step " << steps[d];
    // The last index read is start + (size - 1) * step; it must be in bounds.
    if (result[d] > 0 &&
        (starts[d] >= input[d] ||
         (result[d] - 1) > (input[d] - 1 - starts[d]) / steps[d]))
      return emitOpError() << "dimension " << d << ": " << result[d]
                           << " elements from " << starts[d] << " in steps of "
                           << steps[d] << " exceed the input size " << input[d];
  }
  return success();
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "requires at least one input";
  int64_t axis = getAxis();
  ArrayRef<int64_t> result = shapeOf(getResult());
  if (failed(verifyAxis(*this, getResult().getType(), axis)) ||
      failed(verifySameElementType(*this, getResult(), getInputs())))
    return failure();
  int64_t total = 0;
  for (auto [i, input] : llvm::enumerate(getInputs())) {
    ArrayRef<int64_t> shape = shapeOf(input);
    if (shape.size() != result.size())
      return emitOpError() << "input #" << i << " has rank " << shape.size()
                           << ", the result has rank " << result.size();
    for (size_t d = 0; d < shape.size(); ++d)
      if (int64_t(d) != axis && shape[d] != result[d])
        return emitOpError()
               << "input #" << i << " has size " << shape[d] << " in dimension "
               << d << ", the result has " << result[d];
    total += shape[axis];
  }
  if (total != result[axis])
    return emitOpError() << "inputs add up to " << total << " along axis "
                         << axis << ", the result has " << result[axis];
  return success();
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

/// Shared checks of attention ops; returns the output shape in `outShape`.
static LogicalResult verifyAttention(Operation *op, Value q, Value k, Value v,
                                     double scale, double dropoutP,
                                     SmallVectorImpl<int64_t> &outShape) {
  if (failed(verifyRank(op, q, 4, "query")) ||
      failed(verifyRank(op, k, 4, "key")) ||
      failed(verifyRank(op, v, 4, "value")) ||
      failed(verifySameElementType(op, q, {k, v})) ||
      failed(verifyPositive(op, scale, "scale")) ||
      failed(verifyRange(op, dropoutP, "dropout_p", 0.0, 1.0)))
    return failure();
  ArrayRef<int64_t> qs = shapeOf(q), ks = shapeOf(k), vs = shapeOf(v);
  if (ks[0] != qs[0] || vs[0] != qs[0])
    return op->emitOpError() << "query, key and value batch sizes differ ("
                             << qs[0] << ", " << ks[0] << ", " << vs[0] << ")";
  if (ks[1] != vs[1] || ks[1] == 0 || qs[1] % ks[1] != 0)
    return op->emitOpError()
           << "query heads (" << qs[1]
           << ") must be a multiple of key/value heads, which must agree ("
           << ks[1] << ", " << vs[1] << ")";
  if (ks[2] != vs[2])
    return op->emitOpError() << "key and value sequence lengths differ ("
                             << ks[2] << ", " << vs[2] << ")";
  if (ks[3] != qs[3])
    return op->emitOpError() << "query and key head dimensions differ ("
                             << qs[3] << ", " << ks[3] << ")";
  outShape.assign({qs[0], qs[1], qs[2], vs[3]});
  return success();
}

/// The optional attention mask: the query's float type or i1, broadcastable
/// to [B, H, S, Skv].
static LogicalResult verifyAttentionMask(Operation *op, Value mask, Value q,
                                         Value k) {
  if (!mask)
    return success();
  Type element = cast<ShapedType>(mask.getType()).getElementType();
  Type qElement = cast<ShapedType>(q.getType()).getElementType();
  if (!element.isInteger(1) && element != qElement)
    return op->emitOpError()
           << "expects a mask of i1 or the query's element type (" << qElement
           << "), got " << element;
  ArrayRef<int64_t> qs = shapeOf(q);
  SmallVector<int64_t> scores{qs[0], qs[1], qs[2], shapeOf(k)[2]};
  if (!isBroadcastableTo(shapeOf(mask), scores))
    return op->emitOpError() << "mask shape " << formatShape(shapeOf(mask))
                             << " does not broadcast to the scores' shape "
                             << formatShape(scores);
  return success();
}

LogicalResult AttentionOp::verify() {
  SmallVector<int64_t> outShape;
  if (failed(verifyAttention(*this, getQuery(), getKey(), getValue(),
                             getScale().convertToDouble(),
                             getDropoutP().convertToDouble(), outShape)) ||
      failed(verifyShape(*this, getResult(), outShape, "a result")) ||
      failed(verifySameElementType(*this, getQuery(), getResult())) ||
      failed(verifyAttentionMask(*this, getMask(), getQuery(), getKey())))
    return failure();
  return verifyShape(*this, getLse(), ArrayRef<int64_t>(outShape).drop_back(),
                     "lse");
}

LogicalResult AttentionGradOp::verify() {
  SmallVector<int64_t> outShape;
  if (failed(verifyAttention(*this, getQuery(), getKey(), getValue(),
                             getScale().convertToDouble(),
                             getDropoutP().convertToDouble(), outShape)) ||
      failed(verifyShape(*this, getOutput(), outShape, "an output")) ||
      failed(verifyShape(*this, getGrad(), outShape, "an output gradient")) ||
      failed(
          verifySameElementType(*this, getQuery(), {getOutput(), getGrad()})) ||
      failed(verifyShape(*this, getLse(),
                         ArrayRef<int64_t>(outShape).drop_back(), "lse")) ||
      failed(verifyAttentionMask(*this, getMask(), getQuery(), getKey())))
    return failure();
  if (getQueryGrad().getType() != getQuery().getType() ||
      getKeyGrad().getType() != getKey().getType() ||
      getValueGrad().getType() != getValue().getType())
    return emitOpError()
           << "expects gradients of the query, key and value types";
  return success();
}
