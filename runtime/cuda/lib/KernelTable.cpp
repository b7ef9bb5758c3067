//===- KernelTable.cpp - The device kernels by mnemonic -------------------===//
#include "ckpt/Runtime/Cuda/CudaKernels.h"

#include <cstring>

namespace ckpt::rt::cuda {

namespace {
#define CKPT_CUDA_KERNEL_ENTRY(NAME) {#NAME, &kernels::NAME},
const CudaKernelEntry kTable[] = {
    CKPT_CUDA_KERNEL_LIST(CKPT_CUDA_KERNEL_ENTRY)};
#undef CKPT_CUDA_KERNEL_ENTRY
} // namespace

const CudaKernelEntry *cudaKernelTable(size_t &count) {
  count = sizeof kTable / sizeof kTable[0];
  return kTable;
}

CudaKernelFn findCudaKernel(const char *name) {
  for (const CudaKernelEntry &e : kTable)
    if (std::strcmp(e.name, name) == 0)
      return e.kernel;
  return nullptr;
}

} // namespace ckpt::rt::cuda
