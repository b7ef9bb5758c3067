//===- CkptMaskOps.cpp - Verifiers of the mask and indexing ops -----------===//
//
// Verifiers of the ops that build attention masks and position ids: iota,
// compare, select, pad and gather (tril / triu and the logical ops verify
// through shared helpers in their ODS classes). Costs live in CkptCost.cpp.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/IR/CkptVerification.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::ckpt;

static Type elementTypeOf(Value value) {
  return cast<ShapedType>(value.getType()).getElementType();
}

//===----------------------------------------------------------------------===//
// iota
//===----------------------------------------------------------------------===//

/// The value of an iota number (an i64 or f64 attribute) as a double.
static double numberOf(Attribute attr) {
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return static_cast<double>(integer.getInt());
  return cast<FloatAttr>(attr).getValueAsDouble();
}

/// The value of an iota number when it is integral and fits an i64.
static std::optional<int64_t> integralOf(Attribute attr) {
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return integer.getInt();
  double v = cast<FloatAttr>(attr).getValueAsDouble();
  // 2^63 is exact; every double below it in magnitude that is integral fits.
  if (!std::isfinite(v) || v != std::trunc(v) || v < -0x1p63 || v >= 0x1p63)
    return std::nullopt;
  return static_cast<int64_t>(v);
}

LogicalResult IotaOp::verify() {
  auto type = cast<RankedTensorType>(getResult().getType());
  if (type.getRank() != 1)
    return emitOpError() << "expects a result of rank 1, got rank "
                         << type.getRank();
  for (auto [name, attr] : {std::pair<StringRef, Attribute>{"start", getStart()},
                            {"step", getStep()}})
    if (!std::isfinite(numberOf(attr)))
      return emitOpError() << "expects a finite " << name;
  if (numberOf(getStep()) == 0.0)
    return emitOpError() << "expects a non-zero step";
  auto integerType = dyn_cast<IntegerType>(type.getElementType());
  if (!integerType)
    return success();
  std::optional<int64_t> start = integralOf(getStart()),
                         step = integralOf(getStep());
  if (!start || !step)
    return emitOpError() << "expects an integral start and step for "
                         << integerType << " elements";
  // The sequence is monotonic: its ends bound every element.
  int64_t n = type.getDimSize(0);
  if (n == 0)
    return success();
  __int128 last = static_cast<__int128>(*start) +
                  static_cast<__int128>(n - 1) * static_cast<__int128>(*step);
  unsigned width = integerType.getWidth();
  __int128 low = -(static_cast<__int128>(1) << (width - 1));
  __int128 high = (static_cast<__int128>(1) << (width - 1)) - 1;
  if (*start >= low && *start <= high && last >= low && last <= high)
    return success();
  return emitOpError() << "expects every element to fit " << integerType
                       << ", got start " << *start << ", step " << *step
                       << " and " << n << " elements";
}

//===----------------------------------------------------------------------===//
// compare and select
//===----------------------------------------------------------------------===//

LogicalResult CompareOp::verify() {
  if (failed(verifySameElementType(*this, getLhs(), {getRhs()})))
    return failure();
  return verifyBroadcastResult(*this, {getLhs(), getRhs()}, getResult());
}

LogicalResult SelectOp::verify() {
  if (failed(verifySameElementType(*this, getResult(),
                                   {getOnTrue(), getOnFalse()})))
    return failure();
  return verifyBroadcastResult(*this, {getCond(), getOnTrue(), getOnFalse()},
                               getResult());
}

//===----------------------------------------------------------------------===//
// pad and gather
//===----------------------------------------------------------------------===//

LogicalResult PadOp::verify() {
  ArrayRef<int64_t> input = shapeOf(getInput());
  ArrayRef<int64_t> low = getLow(), high = getHigh();
  if (low.size() != input.size() || high.size() != input.size())
    return emitOpError() << "expects one low and one high pad per dimension ("
                         << input.size() << "), got " << low.size() << " and "
                         << high.size();
  SmallVector<int64_t> expected;
  for (auto [d, size] : llvm::enumerate(input)) {
    if (low[d] < 0 || high[d] < 0)
      return emitOpError() << "expects non-negative pads, got low "
                           << low[d] << " and high " << high[d]
                           << " in dimension " << d;
    expected.push_back(size + low[d] + high[d]);
  }
  if (failed(verifySameElementType(*this, getInput(), {getResult()})) ||
      failed(verifyShape(*this, getResult(), expected,
                         "a result (input + low + high)")))
    return failure();
  return verifyConstantOfType(*this, getValue().convertToDouble(),
                              elementTypeOf(getInput()), "value",
                              /*allowNaN=*/true);
}

LogicalResult GatherOp::verify() {
  ArrayRef<int64_t> input = shapeOf(getInput()), index = shapeOf(getIndex());
  int64_t dim = getDimAttr().getInt();
  if (failed(verifySameElementType(*this, getInput(), {getResult()})))
    return failure();
  if (index.size() != input.size())
    return emitOpError() << "expects an index of the input's rank "
                         << input.size() << ", got rank " << index.size();
  if (dim >= static_cast<int64_t>(input.size()))
    return emitOpError() << "dim " << dim << " is out of range for rank "
                         << input.size();
  for (auto [d, size] : llvm::enumerate(index))
    if (static_cast<int64_t>(d) != dim && size > input[d])
      return emitOpError() << "expects index size " << size
                           << " in dimension " << d
                           << " to be at most the input's (" << input[d]
                           << ")";
  return verifyShape(*this, getResult(), index,
                     "a result (the index's shape)");
}
