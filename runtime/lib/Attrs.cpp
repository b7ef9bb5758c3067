//===- Attrs.cpp - Attribute lookup of kernel calls -------------------------===//
#include "ckpt/Runtime/Kernels.h"

#include <cstring>
#include <string>

namespace ckpt::rt {

namespace {
[[noreturn]] void missing(const char *name, const char *kind) {
  throw KernelError(std::string("missing ") + kind + " attribute '" + name + "'");
}
[[noreturn]] void wrongKind(const char *name, const char *kind) {
  throw KernelError(std::string("attribute '") + name + "' is not " + kind);
}
} // namespace

const Attr *Attrs::find(const char *name) const {
  for (size_t i = 0; i < size; ++i)
    if (items[i].name && std::strcmp(items[i].name, name) == 0)
      return &items[i];
  return nullptr;
}

int64_t Attrs::getInt(const char *name) const {
  const Attr *a = find(name);
  if (!a)
    missing(name, "integer");
  if (a->kind != AttrKind::Int)
    wrongKind(name, "an integer");
  return a->i;
}

int64_t Attrs::getInt(const char *name, int64_t fallback) const {
  return find(name) ? getInt(name) : fallback;
}

double Attrs::getFloat(const char *name) const {
  const Attr *a = find(name);
  if (!a)
    missing(name, "float");
  if (a->kind == AttrKind::Int) // Tolerated: an integral value written as Int.
    return static_cast<double>(a->i);
  if (a->kind != AttrKind::Float)
    wrongKind(name, "a float");
  return a->f;
}

double Attrs::getFloat(const char *name, double fallback) const {
  return find(name) ? getFloat(name) : fallback;
}

const int64_t *Attrs::getInts(const char *name, size_t &n) const {
  const Attr *a = find(name);
  if (!a)
    missing(name, "i64 array");
  if (a->kind != AttrKind::Ints)
    wrongKind(name, "an i64 array");
  n = a->size;
  return a->ints;
}

const char *Attrs::getString(const char *name) const {
  const Attr *a = find(name);
  if (!a)
    missing(name, "string");
  if (a->kind != AttrKind::String || !a->s)
    wrongKind(name, "a string");
  return a->s;
}

//===----------------------------------------------------------------------===//
// Operands of kernel calls (shared by the host and device kernels)
//===----------------------------------------------------------------------===//

namespace {
[[noreturn]] void kernelFail(const std::string &message) { throw KernelError(message); }
} // namespace

const Tensor &requireOperand(TensorList list, size_t index, const char *what) {
  if (index >= list.size || !list[index].present())
    kernelFail(std::string("missing ") + what);
  return list[index];
}

const Tensor *findOptionalOperand(TensorList operands, const Attrs &attrs,
                                  size_t numSlots, size_t slot) {
  if (operands.size == numSlots) {
    const Tensor &t = operands[slot];
    return t.present() ? &t : nullptr;
  }
  if (operands.size > numSlots)
    kernelFail("expected at most " + std::to_string(numSlots) + " operands, got " +
         std::to_string(operands.size));
  if (const Attr *seg = attrs.find("operandSegmentSizes")) {
    if (seg->kind != AttrKind::Ints || seg->size != numSlots)
      kernelFail("operandSegmentSizes does not have " + std::to_string(numSlots) +
           " entries");
    size_t pos = 0, total = 0;
    for (size_t i = 0; i < numSlots; ++i)
      total += static_cast<size_t>(seg->ints[i]);
    if (total != operands.size)
      kernelFail("operandSegmentSizes sums to " + std::to_string(total) + " but " +
           std::to_string(operands.size) + " operands were passed");
    for (size_t i = 0; i < slot; ++i)
      pos += static_cast<size_t>(seg->ints[i]);
    if (seg->ints[slot] == 0)
      return nullptr;
    const Tensor &t = operands[pos];
    return t.present() ? &t : nullptr;
  }
  if (slot >= operands.size)
    return nullptr;
  const Tensor &t = operands[slot];
  return t.present() ? &t : nullptr;
}

} // namespace ckpt::rt
