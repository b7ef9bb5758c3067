//===- HostDevice.h - Code shared by host and GPU ---------------*- C++ -*-===//
//
// `CKPT_HD` marks inline functions that both the device kernels (nvcc) and
// the host unit tests (the host compiler, without CUDA headers) compile.
//
//===----------------------------------------------------------------------===//
#ifndef CKPT_RUNTIME_CUDA_HOSTDEVICE_H
#define CKPT_RUNTIME_CUDA_HOSTDEVICE_H

#if defined(__CUDACC__)
#define CKPT_HD __host__ __device__
#else
#define CKPT_HD
#endif

#endif // CKPT_RUNTIME_CUDA_HOSTDEVICE_H
