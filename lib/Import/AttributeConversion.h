//===- AttributeConversion.h - JSON attributes to MLIR attributes -*- C++ -*-===//
//
// Graph format v1 encodes op attributes by name; each name has one type across
// all ckpt ops (docs/graph-format.md). This converts one JSON attribute.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_LIB_IMPORT_ATTRIBUTECONVERSION_H
#define CKPT_LIB_IMPORT_ATTRIBUTECONVERSION_H

#include "mlir/IR/Attributes.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace mlir::ckpt {

/// Converts the JSON value of attribute `name` to its MLIR attribute. On
/// success returns the attribute, or a null attribute for a `false` flag
/// (which means "absent"). On failure returns failure and sets `error` to the
/// reason (unknown attribute name, or a value of the wrong JSON type).
FailureOr<Attribute> convertJsonAttribute(MLIRContext *context,
                                          llvm::StringRef name,
                                          const llvm::json::Value &value,
                                          std::string &error);

} // namespace mlir::ckpt

#endif // CKPT_LIB_IMPORT_ATTRIBUTECONVERSION_H
