// Eight bf16 values in one 16-byte vector, to and from f32: the accesses
// of the softmax probes in this folder (cluster_softmax.cu,
// smem_softmax.cu, l2_hint_softmax.cu).
#pragma once
#include <cuda_bf16.h>
#include <cstdint>

__device__ __forceinline__ void unpack(uint4 v, float f[8]) {
  const __nv_bfloat162 *h = reinterpret_cast<const __nv_bfloat162 *>(&v);
#pragma unroll
  for (int i = 0; i < 4; ++i) { float2 t = __bfloat1622float2(h[i]); f[2 * i] = t.x; f[2 * i + 1] = t.y; }
}
__device__ __forceinline__ uint4 pack(const float f[8]) {
  uint4 v; __nv_bfloat162 *h = reinterpret_cast<__nv_bfloat162 *>(&v);
#pragma unroll
  for (int i = 0; i < 4; ++i) h[i] = __floats2bfloat162_rn(f[2 * i], f[2 * i + 1]);
  return v;
}
