//===- DeviceCommon.cuh - Device-side helpers of the kernels ----*- C++ -*-===//
//
// Loads and stores of f32/f16/bf16 through f32, dtype dispatch, and the
// deterministic warp and block reductions every kernel shares. Private to
// runtime/cuda/lib; nvcc only.
//
//===----------------------------------------------------------------------===//
#ifndef CKPT_RUNTIME_CUDA_LIB_DEVICECOMMON_CUH
#define CKPT_RUNTIME_CUDA_LIB_DEVICECOMMON_CUH

#include "CudaSupport.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace ckpt::rt::cuda::detail {

/// f32 value of a stored element.
__device__ __forceinline__ float toF32(float v) { return v; }
__device__ __forceinline__ float toF32(__half v) { return __half2float(v); }
__device__ __forceinline__ float toF32(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

/// Stores `v` rounded to nearest even into `T`.
template <typename T> __device__ __forceinline__ T fromF32(float v);
template <> __device__ __forceinline__ float fromF32<float>(float v) {
  return v;
}
template <> __device__ __forceinline__ __half fromF32<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 fromF32<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

/// Calls `body(T{})` with T the C++ type of float dtype `type`.
template <typename Body>
void dispatchFloat(DType type, const char *what, Body body) {
  switch (type) {
  case DType::F32:
    body(float{});
    return;
  case DType::F16:
    body(__half{});
    return;
  case DType::BF16:
    body(__nv_bfloat16{});
    return;
  default:
    fail(std::string(what) + ": expected an f32, f16 or bf16 tensor");
  }
}

/// Calls `body(U{})` with U an unsigned integer type of the element size of
/// `type` (for kernels that move elements without looking at them).
template <typename Body> void dispatchBytes(DType type, Body body) {
  switch (elementBytes(type)) {
  case 1:
    body(uint8_t{});
    return;
  case 2:
    body(uint16_t{});
    return;
  case 4:
    body(uint32_t{});
    return;
  default:
    body(uint64_t{});
    return;
  }
}

/// Grid-stride loop index type.
#define CKPT_GRID_LOOP(i, n)                                                   \
  for (int64_t i =                                                             \
           static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;        \
       i < (n); i += static_cast<int64_t>(blockDim.x) * gridDim.x)

/// Sum over the 32 lanes of a warp, in a fixed butterfly order; every lane
/// gets the same bits.
__device__ __forceinline__ float warpSum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
/// max(a, b) where a NaN in either wins, as the host kernels' maxima.
__device__ __forceinline__ float maxNan(float a, float b) {
  return (b > a || isnan(b)) && !isnan(a) ? b : a;
}

__device__ __forceinline__ float warpMax(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    v = maxNan(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

/// Sum of `v` over the block (blockDim.x a multiple of 32, at most 1024),
/// returned to every thread. The order is fixed by the block size: warp
/// butterflies, then warp 0 over the warp sums. `scratch` holds 32 floats;
/// the call synchronizes the block (all threads must call it).
__device__ __forceinline__ float blockSum(float v, float *scratch) {
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int warps = (blockDim.x + 31) >> 5;
  v = warpSum(v);
  __syncthreads(); // scratch may still be read by a previous call.
  if (lane == 0)
    scratch[warp] = v;
  __syncthreads();
  float t = lane < warps ? scratch[lane] : 0.0f;
  t = warpSum(t);
  return t;
}
__device__ __forceinline__ float blockMax(float v, float *scratch) {
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int warps = (blockDim.x + 31) >> 5;
  v = warpMax(v);
  __syncthreads();
  if (lane == 0)
    scratch[warp] = v;
  __syncthreads();
  float t = lane < warps ? scratch[lane] : -INFINITY;
  return warpMax(t);
}

} // namespace ckpt::rt::cuda::detail

#endif // CKPT_RUNTIME_CUDA_LIB_DEVICECOMMON_CUH
