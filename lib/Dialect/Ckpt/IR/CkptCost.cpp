//===- CkptCost.cpp - Exact costs of ckpt operations ----------------------===//
//
// CostOpInterface implementations. Conventions (docs/dialect.md): a
// multiply-add is 2 FLOPs; every arithmetic, comparison or transcendental
// function on one element is 1 FLOP; a reduction over L elements is L FLOPs;
// bytes read and written count each operand and result once unless noted.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/IR/CkptVerification.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::ckpt;

//===----------------------------------------------------------------------===//
// Size helpers
//===----------------------------------------------------------------------===//

static constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

int64_t mlir::ckpt::mulSat(int64_t a, int64_t b) {
  int64_t result;
  if (__builtin_mul_overflow(a, b, &result))
    return kInt64Max;
  return result;
}

int64_t mlir::ckpt::addSat(int64_t a, int64_t b) {
  int64_t result;
  if (__builtin_add_overflow(a, b, &result))
    return kInt64Max;
  return result;
}

/// Product of any number of factors, saturating.
template <typename... Ts> static int64_t product(int64_t first, Ts... rest) {
  int64_t result = first;
  ((result = mulSat(result, rest)), ...);
  return result;
}

/// Sum of any number of terms, saturating.
template <typename... Ts> static int64_t sum(int64_t first, Ts... rest) {
  int64_t result = first;
  ((result = addSat(result, rest)), ...);
  return result;
}

int64_t mlir::ckpt::getElementBytes(Type elementType) {
  // Shape and data-movement ops accept tensors of any element type, so this
  // must not assume an integer or float (getIntOrFloatBitWidth would be
  // undefined behaviour on anything else).
  if (elementType.isIntOrFloat()) {
    unsigned bits = elementType.getIntOrFloatBitWidth();
    return std::max<int64_t>(1, (bits + 7) / 8);
  }
  if (isa<IndexType>(elementType))
    return IndexType::kInternalStorageBitWidth / 8;
  if (auto complex = dyn_cast<ComplexType>(elementType))
    return mulSat(2, getElementBytes(complex.getElementType()));
  if (auto vector = dyn_cast<VectorType>(elementType))
    return mulSat(vector.getNumElements(),
                  getElementBytes(vector.getElementType()));
  // A type without a known storage size (e.g. from another dialect): count
  // it as one pointer-sized (8-byte) handle.
  return 8;
}

int64_t mlir::ckpt::getNumElements(Type tensorType) {
  int64_t count = 1;
  for (int64_t dim : cast<ShapedType>(tensorType).getShape())
    count = mulSat(count, dim);
  return count;
}

int64_t mlir::ckpt::getTensorBytes(Type tensorType) {
  return mulSat(getNumElements(tensorType),
                getElementBytes(cast<ShapedType>(tensorType).getElementType()));
}

int64_t mlir::ckpt::getTotalBytes(ValueRange values) {
  int64_t total = 0;
  for (Value value : values)
    total = addSat(total, getTensorBytes(value.getType()));
  return total;
}

Value mlir::ckpt::getStorageRoot(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    auto costOp = dyn_cast<CostOpInterface>(def);
    if (!costOp || !costOp.isView())
      break;
    value = def->getOperand(0);
  }
  return value;
}

OpCost mlir::ckpt::getDataMovementCost(Operation *op) {
  OpCost cost;
  cost.bytesRead = getTotalBytes(op->getOperands());
  cost.bytesWritten = getTotalBytes(op->getResults());
  return cost;
}

OpCost mlir::ckpt::getElementwiseCost(Operation *op, int64_t flopsPerElement) {
  OpCost cost = getDataMovementCost(op);
  cost.flops =
      mulSat(flopsPerElement, getNumElements(op->getResult(0).getType()));
  return cost;
}

static int64_t numel(Value value) { return getNumElements(value.getType()); }

/// Product of `shape`'s dimensions.
static int64_t volume(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count = mulSat(count, dim);
  return count;
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

/// FLOPs of `numMatrices` products of MxK by KxN matrices: 2*B*M*N*K.
static int64_t gemmFlops(int64_t numMatrices, Value lhs, bool transposeLhs,
                         Value result) {
  ArrayRef<int64_t> l = shapeOf(lhs), r = shapeOf(result);
  int64_t k = transposeLhs ? l[l.size() - 2] : l.back();
  return product(2, numMatrices, r[r.size() - 2], r.back(), k);
}

OpCost MatmulOp::getCost() {
  OpCost cost = getDataMovementCost(*this);
  cost.flops = gemmFlops(1, getLhs(), getTransposeLhs(), getResult());
  return cost;
}

OpCost MatmulAccOp::getCost() {
  OpCost cost = getDataMovementCost(*this);
  cost.flops = addSat(gemmFlops(1, getLhs(), getTransposeLhs(), getResult()),
                      numel(getResult()));
  return cost;
}

OpCost BatchMatmulOp::getCost() {
  OpCost cost = getDataMovementCost(*this);
  int64_t batch = volume(shapeOf(getResult()).drop_back(2));
  cost.flops = gemmFlops(batch, getLhs(), getTransposeLhs(), getResult());
  return cost;
}

OpCost LinearOp::getCost() {
  OpCost cost = getDataMovementCost(*this);
  ArrayRef<int64_t> w = shapeOf(getWeight());
  int64_t rows = volume(shapeOf(getInput()).drop_back());
  cost.flops = product(2, rows, w[0], w[1]);
  if (getBias())
    cost.flops = addSat(cost.flops, product(rows, w[0]));
  return cost;
}

//===----------------------------------------------------------------------===//
// Elementwise and activations
//===----------------------------------------------------------------------===//

OpCost PowOp::getCost() { return getElementwiseCost(*this, 1); }

OpCost ConvertOp::getCost() { return getDataMovementCost(*this); }

OpCost FillOp::getCost() { return getDataMovementCost(*this); }

// One multiply and one add per element; nothing is read.
OpCost IotaOp::getCost() { return getElementwiseCost(*this, 2); }

// One comparison or choice per result element (logical_and / logical_or
// take theirs from their ODS class).
OpCost CompareOp::getCost() { return getElementwiseCost(*this, 1); }

OpCost SelectOp::getCost() { return getElementwiseCost(*this, 1); }

OpCost LogicalNotOp::getCost() { return getElementwiseCost(*this, 1); }

OpCost GeluOp::getCost() {
  return getElementwiseCost(
      *this, getApproximation() == GeluApproximation::Tanh ? 9 : 5);
}

OpCost GeluGradOp::getCost() {
  return getElementwiseCost(
      *this, getApproximation() == GeluApproximation::Tanh ? 18 : 11);
}

// Two comparisons per element, as the exporter counted the opaque hardtanh.
OpCost ClampOp::getCost() { return getElementwiseCost(*this, 2); }

OpCost ClampGradOp::getCost() { return getElementwiseCost(*this, 2); }

// Hard activations: every addition, product, division, min, max and
// comparison per element counts (CkptOps.td states each formula).
OpCost HardswishOp::getCost() { return getElementwiseCost(*this, 5); }

OpCost HardswishGradOp::getCost() { return getElementwiseCost(*this, 5); }

OpCost HardsigmoidOp::getCost() { return getElementwiseCost(*this, 4); }

OpCost HardsigmoidGradOp::getCost() { return getElementwiseCost(*this, 3); }

//===----------------------------------------------------------------------===//
// Softmax and normalization
//===----------------------------------------------------------------------===//

/// Number of rows of `value` along `axis`: elements / size of `axis`.
static int64_t rowsAlong(Value value, int64_t axis) {
  int64_t extent = shapeOf(value)[axis];
  return extent == 0 ? 0 : numel(value) / extent;
}

OpCost SoftmaxOp::getCost() { return getElementwiseCost(*this, 5); }

OpCost LogSoftmaxOp::getCost() {
  OpCost cost = getElementwiseCost(*this, 5);
  cost.flops = addSat(cost.flops, rowsAlong(getInput(), getAxis()));
  return cost;
}

/// Elements N and rows R of a trailing normalization from `axis`.
static std::pair<int64_t, int64_t> normExtent(Value input, int64_t axis) {
  return {numel(input), volume(shapeOf(input).take_front(axis))};
}

OpCost LayerNormOp::getCost() {
  auto [n, r] = normExtent(getInput(), getAxis());
  OpCost cost = getDataMovementCost(*this);
  cost.flops =
      sum(product(5, n), product(4, r), getWeight() ? n : 0, getBias() ? n : 0);
  return cost;
}

/// Extra FLOPs of a normalization gradient for the weight and the parameter
/// gradients: N to scale by the weight, 2*N for the weight gradient, N for
/// the bias gradient.
static int64_t normParamGradFlops(int64_t n, bool hasWeight,
                                  size_t numParamGrads) {
  return sum(hasWeight ? n : 0, numParamGrads >= 1 ? product(2, n) : 0,
             numParamGrads >= 2 ? n : 0);
}

OpCost LayerNormGradOp::getCost() {
  auto [n, r] = normExtent(getInput(), getAxis());
  OpCost cost = getDataMovementCost(*this);
  cost.flops =
      sum(product(9, n), product(2, r),
          normParamGradFlops(n, bool(getWeight()), getParamGrads().size()));
  return cost;
}

OpCost RmsNormOp::getCost() {
  auto [n, r] = normExtent(getInput(), getAxis());
  OpCost cost = getDataMovementCost(*this);
  cost.flops = sum(product(3, n), product(3, r), getWeight() ? n : 0);
  return cost;
}

OpCost RmsNormGradOp::getCost() {
  auto [n, r] = normExtent(getInput(), getAxis());
  OpCost cost = getDataMovementCost(*this);
  cost.flops =
      sum(product(6, n), r,
          normParamGradFlops(n, bool(getWeight()), getParamGrads().size()));
  return cost;
}

OpCost BatchNormOp::getCost() {
  int64_t n = numel(getInput()), c = shapeOf(getInput())[1];
  OpCost cost = getDataMovementCost(*this);
  cost.flops =
      sum(product(5, n), product(4, c), getWeight() ? n : 0, getBias() ? n : 0);
  return cost;
}

OpCost BatchNormGradOp::getCost() {
  int64_t n = numel(getInput()), c = shapeOf(getInput())[1];
  OpCost cost = getDataMovementCost(*this);
  cost.flops =
      sum(product(9, n), product(2, c),
          normParamGradFlops(n, bool(getWeight()), getParamGrads().size()));
  return cost;
}

//===----------------------------------------------------------------------===//
// Dropout, embedding, loss, reductions
//===----------------------------------------------------------------------===//

OpCost DropoutOp::getCost() { return getElementwiseCost(*this, 2); }

OpCost EmbeddingOp::getCost() {
  // Only the gathered rows of the table are read.
  OpCost cost;
  cost.bytesRead = addSat(getTensorBytes(getIndices().getType()),
                          getTensorBytes(getResult().getType()));
  cost.bytesWritten = getTensorBytes(getResult().getType());
  return cost;
}

OpCost EmbeddingGradOp::getCost() {
  // The whole table gradient is written (zero-fill, then scatter-add).
  OpCost cost = getDataMovementCost(*this);
  cost.flops = numel(getGrad());
  return cost;
}

/// Extra FLOPs of reducing R per-row losses.
static int64_t reductionFlops(LossReduction reduction, int64_t rows) {
  switch (reduction) {
  case LossReduction::Mean:
    return addSat(rows, 1);
  case LossReduction::Sum:
    return rows;
  case LossReduction::None:
    return 0;
  }
  llvm_unreachable("unknown loss reduction");
}

OpCost CrossEntropyOp::getCost() {
  int64_t n = numel(getLogits()), r = numel(getTargets());
  OpCost cost = getDataMovementCost(*this);
  cost.flops =
      sum(product(4, n), product(3, r), reductionFlops(getReduction(), r));
  return cost;
}

OpCost CrossEntropyGradOp::getCost() {
  int64_t n = numel(getLogits()), r = numel(getTargets());
  OpCost cost = getDataMovementCost(*this);
  cost.flops = sum(product(3, n), r);
  return cost;
}

// Subtract, square and add per element; `mean` divides once.
OpCost MseLossOp::getCost() {
  OpCost cost = getDataMovementCost(*this);
  cost.flops = addSat(product(3, numel(getInput())),
                      getReduction() == LossReduction::Mean ? 1 : 0);
  return cost;
}

// Subtract and two products per element.
OpCost MseLossGradOp::getCost() {
  OpCost cost = getDataMovementCost(*this);
  cost.flops = product(3, numel(getInput()));
  return cost;
}

OpCost ReduceSumOp::getCost() {
  OpCost cost = getDataMovementCost(*this);
  cost.flops = numel(getInput());
  return cost;
}

OpCost ReduceMeanOp::getCost() {
  OpCost cost = getDataMovementCost(*this);
  cost.flops = addSat(numel(getInput()), numel(getResult()));
  return cost;
}

OpCost ReduceMaxOp::getCost() {
  OpCost cost = getDataMovementCost(*this);
  cost.flops = numel(getInput());
  return cost;
}

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

bool ReshapeOp::isView() { return true; }

OpCost ReshapeOp::getCost() { return OpCost(); }

bool TransposeOp::isView() {
  // The layout is unchanged iff the non-unit dimensions keep their order.
  ArrayRef<int64_t> input = shapeOf(getInput());
  int64_t last = -1;
  for (int64_t dim : getPerm()) {
    if (input[dim] == 1)
      continue;
    if (dim < last)
      return false;
    last = dim;
  }
  return true;
}

OpCost TransposeOp::getCost() {
  return isView() ? OpCost() : getDataMovementCost(*this);
}

OpCost BroadcastOp::getCost() { return getDataMovementCost(*this); }

OpCost SliceOp::getCost() {
  // Only the selected elements are read.
  OpCost cost;
  cost.bytesRead = cost.bytesWritten = getTensorBytes(getResult().getType());
  return cost;
}

OpCost ConcatOp::getCost() { return getDataMovementCost(*this); }

OpCost PadOp::getCost() { return getDataMovementCost(*this); }

// The whole index, and one input element per result element.
OpCost GatherOp::getCost() {
  OpCost cost;
  Type element = cast<ShapedType>(getInput().getType()).getElementType();
  cost.bytesRead = addSat(getTensorBytes(getIndex().getType()),
                          mulSat(numel(getResult()), getElementBytes(element)));
  cost.bytesWritten = getTensorBytes(getResult().getType());
  return cost;
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

namespace {
/// Extents of an attention problem.
struct AttentionExtent {
  int64_t batchHeads; // B*H (query heads)
  int64_t seq;        // S
  int64_t headDim;    // D
  int64_t valueDim;   // Dv
  int64_t pairs;      // unmasked (query, key) pairs per head
};
} // namespace

static AttentionExtent getAttentionExtent(Value query, Value key, Value value,
                                          bool causal) {
  ArrayRef<int64_t> q = shapeOf(query), k = shapeOf(key), v = shapeOf(value);
  AttentionExtent e;
  e.batchHeads = product(q[0], q[1]);
  e.seq = q[2];
  e.headDim = q[3];
  e.valueDim = v[3];
  int64_t skv = k[2];
  if (!causal) {
    e.pairs = product(e.seq, skv);
  } else {
    // sum_{i=0}^{S-1} min(i+1, Skv) = t(t+1)/2 + (S-t)*Skv, t = min(S, Skv).
    // Halve the even factor first so that a saturated product stays
    // saturated instead of being halved.
    int64_t t = std::min(e.seq, skv);
    int64_t triangle =
        t % 2 == 0 ? product(t / 2, t + 1) : product(t, (t + 1) / 2);
    e.pairs = addSat(triangle, product(e.seq - t, skv));
  }
  return e;
}

OpCost AttentionOp::getCost() {
  AttentionExtent e =
      getAttentionExtent(getQuery(), getKey(), getValue(), getCausal());
  int64_t perHead =
      sum(product(2, e.pairs, e.headDim), product(2, e.pairs, e.valueDim),
          product(5, e.pairs), product(e.seq, e.valueDim));
  if (getDropoutP().convertToDouble() > 0.0)
    perHead = addSat(perHead, product(2, e.pairs));
  if (getMask())
    perHead = addSat(perHead, e.pairs); // The bias add or keep select.
  OpCost cost = getDataMovementCost(*this);
  cost.flops = mulSat(e.batchHeads, perHead);
  return cost;
}

OpCost AttentionGradOp::getCost() {
  AttentionExtent e =
      getAttentionExtent(getQuery(), getKey(), getValue(), getCausal());
  int64_t perHead =
      sum(product(6, e.pairs, e.headDim), product(4, e.pairs, e.valueDim),
          product(6, e.pairs), product(2, e.seq, e.valueDim));
  if (getDropoutP().convertToDouble() > 0.0)
    perHead = addSat(perHead, product(2, e.pairs));
  if (getMask())
    perHead = addSat(perHead, e.pairs); // The bias add or keep select.
  OpCost cost = getDataMovementCost(*this);
  cost.flops = mulSat(e.batchHeads, perHead);
  // Row sums delta = rowsum(dout * out) in f32.
  cost.workspaceBytes = product(4, e.batchHeads, e.seq);
  return cost;
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

/// Cost of a convolution with input `x` `[N, C, H, W]`, weight `w`
/// `[O, C/g, kh, kw]` and output `y` `[N, O, Ho, Wo]`.
static OpCost convolutionCost(Operation *op, Value x, Value w, Value y,
                              ArrayRef<int64_t> strides,
                              ArrayRef<int64_t> padding) {
  ArrayRef<int64_t> xs = shapeOf(x), ws = shapeOf(w), ys = shapeOf(y);
  OpCost cost = getDataMovementCost(op);
  cost.flops = product(2, volume(ys), ws[1], ws[2], ws[3]);
  bool pointwise = ws[2] == 1 && ws[3] == 1 && strides[0] == 1 &&
                   strides[1] == 1 && padding[0] == 0 && padding[1] == 0;
  if (!pointwise) {
    int64_t elementBytes =
        getElementBytes(cast<ShapedType>(x.getType()).getElementType());
    cost.workspaceBytes =
        product(xs[1], ws[2], ws[3], ys[2], ys[3], elementBytes);
  }
  return cost;
}

OpCost Conv2dOp::getCost() {
  OpCost cost = convolutionCost(*this, getInput(), getWeight(), getResult(),
                                getStrides(), getPadding());
  if (getBias())
    cost.flops = addSat(cost.flops, numel(getResult()));
  return cost;
}

OpCost Conv2dGradInputOp::getCost() {
  return convolutionCost(*this, getResult(), getWeight(), getGrad(),
                         getStrides(), getPadding());
}

OpCost Conv2dGradWeightOp::getCost() {
  return convolutionCost(*this, getInput(), getResult(), getGrad(),
                         getStrides(), getPadding());
}

OpCost MaxPool2dOp::getCost() {
  OpCost cost = getDataMovementCost(*this);
  ArrayRef<int64_t> kernel = getKernel();
  cost.flops = product(numel(getResult()), kernel[0], kernel[1]);
  return cost;
}

OpCost MaxPool2dGradOp::getCost() {
  OpCost cost = getDataMovementCost(*this);
  cost.flops = numel(getGrad());
  return cost;
}

OpCost AvgPool2dOp::getCost() {
  OpCost cost = getDataMovementCost(*this);
  ArrayRef<int64_t> kernel = getKernel();
  cost.flops =
      mulSat(numel(getResult()), addSat(product(kernel[0], kernel[1]), 1));
  return cost;
}

OpCost AvgPool2dGradOp::getCost() {
  OpCost cost = getDataMovementCost(*this);
  ArrayRef<int64_t> kernel = getKernel();
  cost.flops =
      mulSat(numel(getGrad()), addSat(product(kernel[0], kernel[1]), 1));
  return cost;
}

//===----------------------------------------------------------------------===//
// Optimizer and opaque
//===----------------------------------------------------------------------===//

OpCost AdamwUpdateOp::getCost() { return getElementwiseCost(*this, 16); }

OpCost OpaqueOp::getCost() {
  OpCost cost = getDataMovementCost(*this);
  cost.flops = getFlops();
  if (std::optional<uint64_t> bytes = getBytesRead())
    cost.bytesRead = *bytes;
  if (std::optional<uint64_t> bytes = getBytesWritten())
    cost.bytesWritten = *bytes;
  if (std::optional<uint64_t> bytes = getWorkspace())
    cost.workspaceBytes = *bytes;
  return cost;
}

std::optional<int64_t> OpaqueOp::getExplicitCost() {
  if (std::optional<uint64_t> cost = getComputeCost())
    return static_cast<int64_t>(*cost);
  return std::nullopt;
}
