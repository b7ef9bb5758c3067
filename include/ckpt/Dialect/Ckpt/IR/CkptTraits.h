//===- CkptTraits.h - Op traits of the ckpt dialect --------------*- C++
//-*-===//
//
// Traits shared by every ckpt operation.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_IR_CKPTTRAITS_H
#define CKPT_DIALECT_CKPT_IR_CKPTTRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace mlir::ckpt {

/// Largest tensor, in bytes, a ckpt op accepts (2^50 bytes = 1 PiB). Larger
/// types are rejected by the verifier so that cost arithmetic stays exact.
constexpr int64_t kMaxTensorBytes = int64_t(1) << 50;

namespace detail {
/// Verifies that every tensor operand and result of `op` is at most
/// kMaxTensorBytes large.
LogicalResult verifyBoundedTensors(Operation *op);
} // namespace detail

/// Op trait: every tensor operand and result has a byte size of at most
/// kMaxTensorBytes.
template <typename ConcreteType>
class BoundedTensors : public OpTrait::TraitBase<ConcreteType, BoundedTensors> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return detail::verifyBoundedTensors(op);
  }
};

} // namespace mlir::ckpt

#endif // CKPT_DIALECT_CKPT_IR_CKPTTRAITS_H
