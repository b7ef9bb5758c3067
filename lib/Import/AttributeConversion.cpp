//===- AttributeConversion.cpp - JSON attributes to MLIR attributes -------===//

#include "AttributeConversion.h"

#include "ckpt/Dialect/Ckpt/IR/CkptDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringSwitch.h"

#include <limits>

using namespace mlir;
using namespace mlir::ckpt;

namespace {
/// The JSON encoding of an attribute, fixed by its name.
enum class AttrKind {
  Int,
  Float,
  Number,
  IntArray,
  Flag,
  Approximation,
  Reduction,
  Predicate,
  String,
  Unknown
};
} // namespace

static AttrKind getAttrKind(llvm::StringRef name) {
  return llvm::StringSwitch<AttrKind>(name)
      .Cases("axis", "seed", "offset", "groups", "ignore_index", AttrKind::Int)
      .Cases("diagonal", "dim", AttrKind::Int)
      // `step` is adamw's step count and iota's increment: an integer stays
      // an i64 attribute, so adamw is unchanged.
      .Cases("start", "step", AttrKind::Number)
      .Cases("flops", "bytes_read", "bytes_written", "workspace", AttrKind::Int)
      .Case("padding_idx", AttrKind::Int)
      .Cases("p", "epsilon", "scale", "dropout_p", "lr", "beta1", "beta2",
             AttrKind::Float)
      .Cases("eps", "weight_decay", "exponent", "value", "min", "max",
             AttrKind::Float)
      .Cases("axes", "perm", "starts", "steps", "kernel", "strides",
             AttrKind::IntArray)
      .Cases("padding", "dilation", "low", "high", AttrKind::IntArray)
      .Cases("transpose_lhs", "transpose_rhs", "causal", "keep_dims",
             "count_include_pad", AttrKind::Flag)
      .Case("approximation", AttrKind::Approximation)
      .Case("reduction", AttrKind::Reduction)
      .Case("predicate", AttrKind::Predicate)
      .Case("name", AttrKind::String)
      .Default(AttrKind::Unknown);
}

FailureOr<Attribute> mlir::ckpt::convertJsonAttribute(
    MLIRContext *context, llvm::StringRef name, const llvm::json::Value &value,
    std::string &error) {
  Builder builder(context);
  switch (getAttrKind(name)) {
  case AttrKind::Int:
    if (std::optional<int64_t> v = value.getAsInteger())
      return Attribute(builder.getI64IntegerAttr(*v));
    error = "expected an integer";
    return failure();
  case AttrKind::Float:
    if (std::optional<double> v = value.getAsNumber())
      return Attribute(builder.getF64FloatAttr(*v));
    // JSON has no infinities: a fill's value may spell them as strings
    // (a -inf attention mask); the op's verifier decides where they fit.
    if (name == "value") {
      if (std::optional<llvm::StringRef> str = value.getAsString()) {
        if (*str == "inf" || *str == "-inf")
          return Attribute(builder.getF64FloatAttr(
              *str == "inf" ? std::numeric_limits<double>::infinity()
                            : -std::numeric_limits<double>::infinity()));
      }
      error = "expected a number, \"inf\" or \"-inf\"";
      return failure();
    }
    error = "expected a number";
    return failure();
  case AttrKind::Number:
    // An integer (a JSON number without a fraction) is exact as an i64.
    if (std::optional<int64_t> v = value.getAsInteger())
      return Attribute(builder.getI64IntegerAttr(*v));
    if (std::optional<double> v = value.getAsNumber())
      return Attribute(builder.getF64FloatAttr(*v));
    error = "expected a number";
    return failure();
  case AttrKind::IntArray: {
    const llvm::json::Array *array = value.getAsArray();
    if (!array) {
      error = "expected an array of integers";
      return failure();
    }
    SmallVector<int64_t> values;
    for (const llvm::json::Value &elem : *array) {
      std::optional<int64_t> v = elem.getAsInteger();
      if (!v) {
        error = "expected an array of integers";
        return failure();
      }
      values.push_back(*v);
    }
    return Attribute(builder.getDenseI64ArrayAttr(values));
  }
  case AttrKind::Flag:
    if (std::optional<bool> v = value.getAsBoolean())
      return *v ? Attribute(builder.getUnitAttr()) : Attribute();
    error = "expected true or false";
    return failure();
  case AttrKind::Approximation: {
    std::optional<llvm::StringRef> str = value.getAsString();
    std::optional<GeluApproximation> v =
        str ? symbolizeGeluApproximation(*str) : std::nullopt;
    if (v)
      return Attribute(GeluApproximationAttr::get(context, *v));
    error = "expected \"erf\" or \"tanh\"";
    return failure();
  }
  case AttrKind::Reduction: {
    std::optional<llvm::StringRef> str = value.getAsString();
    std::optional<LossReduction> v =
        str ? symbolizeLossReduction(*str) : std::nullopt;
    if (v)
      return Attribute(LossReductionAttr::get(context, *v));
    error = "expected \"mean\", \"sum\" or \"none\"";
    return failure();
  }
  case AttrKind::Predicate: {
    std::optional<llvm::StringRef> str = value.getAsString();
    std::optional<ComparePredicate> v =
        str ? symbolizeComparePredicate(*str) : std::nullopt;
    if (v)
      return Attribute(ComparePredicateAttr::get(context, *v));
    error = "expected \"eq\", \"ne\", \"lt\", \"le\", \"gt\" or \"ge\"";
    return failure();
  }
  case AttrKind::String:
    if (std::optional<llvm::StringRef> str = value.getAsString())
      return Attribute(builder.getStringAttr(*str));
    error = "expected a string";
    return failure();
  case AttrKind::Unknown:
    break;
  }
  error = "unknown attribute";
  return failure();
}
