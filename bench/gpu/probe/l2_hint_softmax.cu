// Do L2 cache hints bring the streamed vocabulary-row softmax closer to the
// copy ceiling? The streamed plan reads a row, reads it again (reverse) and
// writes it: 3 passes of traffic where copy has 2, unless the reread finds
// the row in L2. 132 rows of 256 KiB in flight fit the H200's 60 MiB, yet
// the plan reaches 0.61-0.73 of copy (vocab_defaults/README.md): the
// written rows may push the unread ones out. This probe times the same
// plan (a block of T threads a row, 16-byte vectors, U loads in flight,
// second pass reversed) with hints on its loads and stores:
//   first read  : default, or L2::cache_hint with an evict_last policy
//   second read : default, .lu (last use), or an evict_first policy
//   store       : default, .cs (streaming), or an evict_first policy
// beside a grid-stride copy of the same bytes, one process.
//
//   nvcc -gencode=arch=compute_90,code=sm_90 -O3 -std=c++17 \
//       -o l2_hint_softmax bench/gpu/probe/l2_hint_softmax.cu && ./l2_hint_softmax
//
// bf16 rows whose length is a multiple of 8. Prints time, GB/s (read +
// write), the fraction of the copy kernel and the relative error of two
// rows against float64 (elements above 1e-6).
#include "bf16x8.cuh"
#include <cuda_bf16.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  printf("CUDA error %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1); } } while (0)

__device__ __forceinline__ uint64_t policy(bool last) {
  uint64_t p;
  if (last) asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
  else asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  return p;
}

// mode 0: plain, 1: .lu, 2: L2::cache_hint with pol, 3: .cs
template <int MODE>
__device__ __forceinline__ uint4 load(const uint4 *p, uint64_t pol) {
  uint4 v;
  if (MODE == 0)
    asm volatile("ld.global.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  else if (MODE == 1)
    asm volatile("ld.global.lu.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  else if (MODE == 2)
    asm volatile("ld.global.L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], %5;" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p), "l"(pol));
  else
    asm volatile("ld.global.cs.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}
// mode 0: plain, 1: .cs, 2: L2::cache_hint with pol
template <int MODE>
__device__ __forceinline__ void store(uint4 *p, uint4 v, uint64_t pol) {
  if (MODE == 0)
    asm volatile("st.global.v4.u32 [%0], {%1,%2,%3,%4};" :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
  else if (MODE == 1)
    asm volatile("st.global.cs.v4.u32 [%0], {%1,%2,%3,%4};" :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
  else
    asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1,%2,%3,%4}, %5;" :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w), "l"(pol) : "memory");
}


// L1: first read's mode (0 plain, 2 evict_last policy); L2R: second read's
// (0, 1 .lu, 2 evict_first policy); S: store's (0, 1 .cs, 2 evict_first).
template <int T, int U, int L1, int L2R, int S>
__global__ void __launch_bounds__(T) softmax(const uint4 *x, uint4 *y, int vecs) {
  const uint4 *row = x + (size_t)blockIdx.x * vecs;
  uint4 *out = y + (size_t)blockIdx.x * vecs;
  uint64_t last = policy(true), first = policy(false);
  float m = -INFINITY, l = 0.f;
  for (int base = 0; base < vecs; base += T * U) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      int i = base + u * T + threadIdx.x;
      if (i < vecs) v[u] = load<L1>(row + i, last);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      int i = base + u * T + threadIdx.x;
      if (i < vecs) {
        float f[8]; unpack(v[u], f);
        float mm = m;
#pragma unroll
        for (int k = 0; k < 8; ++k) mm = fmaxf(mm, f[k]);
        float s = 0.f;
#pragma unroll
        for (int k = 0; k < 8; ++k) s += __expf(f[k] - mm);
        l = l * __expf(m - mm) + s; m = mm;
      }
    }
  }
  // Block merge of (m, l).
  __shared__ float sm[32], sl[32];
#pragma unroll
  for (int o = 16; o; o >>= 1) {
    float om = __shfl_xor_sync(~0u, m, o), ol = __shfl_xor_sync(~0u, l, o);
    float nm = fmaxf(m, om);
    l = (nm == -INFINITY) ? 0.f : l * __expf(m - nm) + ol * __expf(om - nm); m = nm;
  }
  if ((threadIdx.x & 31) == 0) { sm[threadIdx.x >> 5] = m; sl[threadIdx.x >> 5] = l; }
  __syncthreads();
  m = -INFINITY; l = 0.f;
  for (int w = 0; w < T / 32; ++w) {
    float om = sm[w], ol = sl[w], nm = fmaxf(m, om);
    l = (nm == -INFINITY) ? 0.f : l * __expf(m - nm) + ol * __expf(om - nm); m = nm;
  }
  float inv = 1.f / l;
  // Second pass, reversed: the last group of vectors first.
  int groups = (vecs + T * U - 1) / (T * U);
  for (int g = groups - 1; g >= 0; --g) {
    int base = g * T * U;
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      int i = base + u * T + threadIdx.x;
      if (i < vecs) v[u] = load<L2R>(row + i, first);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      int i = base + u * T + threadIdx.x;
      if (i < vecs) {
        float f[8]; unpack(v[u], f);
#pragma unroll
        for (int k = 0; k < 8; ++k) f[k] = __expf(f[k] - m) * inv;
        store<S>(out + i, pack(f), first);
      }
    }
  }
}

template <int S>
__global__ void copyk(const uint4 *x, uint4 *y, size_t n) {
  uint64_t first = policy(false);
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    store<S>(y + i, load<S == 1 ? 3 : 0>(x + i, first), first);
}

struct Bufs { std::vector<uint4 *> x, y; };

template <typename F>
float timeit(F launch, int sets) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  for (int i = 0; i < 5; ++i) launch(i % sets);
  std::vector<float> ts;
  for (int r = 0; r < 30; ++r) {
    CK(cudaEventRecord(a));
    for (int i = 0; i < 4; ++i) launch((r * 4 + i) % sets);
    CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b)); ts.push_back(ms * 1000.f / 4);
  }
  std::sort(ts.begin(), ts.end());
  return ts[ts.size() / 2];
}

double relerr(const std::vector<__nv_bfloat16> &x, const std::vector<__nv_bfloat16> &y, int r, int n) {
  double m = -INFINITY, l = 0;
  for (int i = 0; i < n; ++i) m = std::max(m, (double)__bfloat162float(x[(size_t)r * n + i]));
  for (int i = 0; i < n; ++i) l += std::exp((double)__bfloat162float(x[(size_t)r * n + i]) - m);
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    double p = std::exp((double)__bfloat162float(x[(size_t)r * n + i]) - m) / l;
    if (p > 1e-6) worst = std::max(worst, std::fabs(__bfloat162float(y[(size_t)r * n + i]) - p) / p);
  }
  return worst;
}

template <int T, int U, int L1, int L2R, int S>
void run(const char *name, Bufs &b, int rows, int n, int sets, float copyUs,
         std::vector<__nv_bfloat16> &host) {
  int vecs = n / 8;
  float us = timeit([&](int s) { softmax<T, U, L1, L2R, S><<<rows, T>>>(b.x[s], b.y[s], vecs); }, sets);
  CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  std::vector<__nv_bfloat16> out((size_t)rows * n);
  CK(cudaMemcpy(out.data(), b.y[0], out.size() * 2, cudaMemcpyDeviceToHost));
  double e = std::max(relerr(host, out, 0, n), relerr(host, out, rows - 1, n));
  double gbs = 2.0 * rows * n * 2 / (us * 1e3);
  printf("%-34s rows %5d n %7d: %8.1f us %6.0f GB/s (%.3f of copy)  relerr %.2e\n", name, rows, n, us, gbs,
         copyUs / us, e);
}

int main() {
  int shapes[][2] = {{256, 128256}, {4096, 128256}, {200, 128256}, {256, 262144}, {512, 262144}, {1024, 50264}};
  for (auto &sh : shapes) {
    int rows = sh[0], n = sh[1];
    size_t elems = (size_t)rows * n, bytes = elems * 2;
    int sets = (int)std::max<size_t>(1, std::min<size_t>(8, (4 * 60ull << 20) / bytes + 1));
    Bufs b;
    std::vector<__nv_bfloat16> host(elems);
    srand(7);
    for (size_t i = 0; i < elems; ++i) host[i] = __float2bfloat16(3.f * ((rand() / (float)RAND_MAX) * 2 - 1) + ((i % 9973) == 0 ? 8.f : 0.f));
    for (int s = 0; s < sets; ++s) {
      uint4 *x, *y; CK(cudaMalloc(&x, bytes)); CK(cudaMalloc(&y, bytes));
      CK(cudaMemcpy(x, host.data(), bytes, cudaMemcpyHostToDevice));
      b.x.push_back(x); b.y.push_back(y);
    }
    size_t nv = elems / 8;
    float c0 = timeit([&](int s) { copyk<0><<<132 * 8, 512>>>(b.x[s], b.y[s], nv); }, sets);
    float c1 = timeit([&](int s) { copyk<1><<<132 * 8, 512>>>(b.x[s], b.y[s], nv); }, sets);
    printf("copy kernel rows %d n %d: %.1f us %.0f GB/s; .cs copy %.1f us %.0f GB/s (sets %d)\n", rows, n, c0,
           2.0 * bytes / (c0 * 1e3), c1, 2.0 * bytes / (c1 * 1e3), sets);
    float c = std::min(c0, c1);
    run<1024, 4, 0, 0, 0>("T1024 U4 plain", b, rows, n, sets, c, host);
    run<1024, 4, 0, 0, 1>("T1024 U4 st.cs", b, rows, n, sets, c, host);
    run<1024, 4, 0, 1, 1>("T1024 U4 ld2.lu st.cs", b, rows, n, sets, c, host);
    run<1024, 4, 2, 0, 1>("T1024 U4 ld1.last st.cs", b, rows, n, sets, c, host);
    run<1024, 4, 2, 1, 1>("T1024 U4 ld1.last ld2.lu st.cs", b, rows, n, sets, c, host);
    run<1024, 4, 2, 2, 2>("T1024 U4 ld1.last ld2.first st.first", b, rows, n, sets, c, host);
    run<1024, 4, 2, 0, 0>("T1024 U4 ld1.last", b, rows, n, sets, c, host);
    run<512, 4, 0, 0, 0>("T512 U4 plain", b, rows, n, sets, c, host);
    run<512, 4, 2, 1, 1>("T512 U4 ld1.last ld2.lu st.cs", b, rows, n, sets, c, host);
    run<512, 8, 2, 1, 1>("T512 U8 ld1.last ld2.lu st.cs", b, rows, n, sets, c, host);
    for (int s = 0; s < sets; ++s) { CK(cudaFree(b.x[s])); CK(cudaFree(b.y[s])); }
  }
  return 0;
}
