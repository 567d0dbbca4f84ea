// Can a vocabulary-row softmax reach 0.85 of the copy ceiling on an H200
// if the row is read once into shared memory by bulk copies (TMA's 1-D
// form, cp.async.bulk) and normalized from there, instead of cached in
// registers (cluster_softmax.cu: at most 2322 GB/s at 256x128256) or read
// twice (the streamed plan: 2617)?
//
//   nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -std=c++17 \
//       -o smem_softmax bench/gpu/probe/smem_softmax.cu && ./smem_softmax
//
// bf16 rows whose length is a multiple of 8 (every chunk 16-byte aligned:
// what a bulk copy needs). A row is split over a cluster of CL blocks;
// each block's chunk lands in shared memory as P pieces, each with its
// own mbarrier, so the (m, l) sweep starts on piece 0 while the rest are
// in flight. The blocks' (m, l) merge through distributed shared memory,
// then each block normalizes its chunk from shared memory with streaming
// stores. PERSIST: a cluster loops over rows, and the next row's piece p
// is requested as soon as every thread has written piece p of this row
// (its write overlaps the next read). Prints time, GB/s (read + write),
// resident clusters and the relative error of rows 0 and rows-1 against
// float64 (elements above 1e-6), beside a grid-stride copy of the same
// bytes in the same process. Its H200 output:
// bench/results/probe/smem_softmax_h200.txt, read in
// bench/results/gpu_softmax_vocab.md ("Session 28": 0.65-0.78 of the copy
// ceiling at best, so no mapping plan was built from it).
#include "bf16x8.cuh"
#include <cuda_bf16.h>
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdint>
#include <vector>
#include <cmath>
#include <cstdlib>
#include <algorithm>
namespace cg = cooperative_groups;

__device__ __forceinline__ float ex2(float x) { float y; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
// (m, l) in log2 units; an empty state is (-inf, 0).
__device__ __forceinline__ void mergeS(float &m, float &l, float m2, float l2) {
  float M = fmaxf(m, m2);
  if (M == -INFINITY) { m = M; l = 0.f; return; }
  l = l * ex2(m - M) + l2 * ex2(m2 - M); m = M;
}
__device__ __forceinline__ uint32_t sAddr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mbarInit(uint64_t *b, int n) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(sAddr(b)), "r"(n));
}
__device__ __forceinline__ void bulkLoad(void *dst, const void *src, int bytes, uint64_t *bar) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(sAddr(bar)), "r"(bytes) : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               :: "r"(sAddr(dst)), "l"(src), "r"(bytes), "r"(sAddr(bar)) : "memory");
}
__device__ __forceinline__ void mbarWait(uint64_t *b, int parity) {
  asm volatile("{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra W;\n}"
               :: "r"(sAddr(b)), "r"(parity) : "memory");
}

constexpr int MAXP = 16;
template <int CL, int T, int P, bool PERSIST>
__global__ void __launch_bounds__(T) smSoftmax(const __nv_bfloat16 *x, __nv_bfloat16 *y, int n, int rows, int chunk) {
  extern __shared__ __align__(128) uint4 buf[];
  __shared__ __align__(8) uint64_t bars[MAXP];
  __shared__ float wm[T / 32], wl[T / 32];
  __shared__ float2 st[2];
  cg::cluster_group cluster = cg::this_cluster();
  int rank = cluster.block_rank();
  int cid = blockIdx.x / CL, ncl = gridDim.x / CL;
  const float L2E = 1.4426950408889634f;
  int begin = rank * chunk;                       // elements, a multiple of 8
  int mine = max(0, min(chunk, n - begin));       // this block's elements
  int nv = mine / 8;                              // its vectors
  int pv = (nv + P - 1) / P;                      // vectors a piece
  int w = threadIdx.x / 32, ln = threadIdx.x % 32;
  auto issue = [&](long row, int p) {
    int v0 = p * pv, v1 = min(nv, v0 + pv);
    if (v1 > v0) bulkLoad(buf + v0, x + row * (long)n + begin + v0 * 8, (v1 - v0) * 16, &bars[p]);
    else asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(sAddr(&bars[p])) : "memory");
  };
  if (threadIdx.x == 0) {
    for (int p = 0; p < P; ++p) mbarInit(&bars[p], 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  int it = 0;
  long row = cid;
  if (threadIdx.x == 0 && row < rows) for (int p = 0; p < P; ++p) issue(row, p);
  for (; row < rows; row += PERSIST ? ncl : rows, ++it) {
    int par = it & 1;
    float m = -INFINITY, l = 0.f;
    for (int p = 0; p < P; ++p) {
      mbarWait(&bars[p], par);
      int v1 = min(nv, (p + 1) * pv);
      for (int v = p * pv + threadIdx.x; v < v1; v += T) {
        float f[8]; unpack(buf[v], f);
        float vm = f[0];
#pragma unroll
        for (int i = 1; i < 8; ++i) vm = fmaxf(vm, f[i]);
        vm *= L2E;
        if (vm > m) { l = (m == -INFINITY) ? 0.f : l * ex2(m - vm); m = vm; }
        if (m != -INFINITY) {
#pragma unroll
          for (int i = 0; i < 8; ++i) l += ex2(fmaf(f[i], L2E, -m));
        }
      }
    }
#pragma unroll
    for (int o = 16; o; o >>= 1) { float m2 = __shfl_xor_sync(~0u, m, o), l2 = __shfl_xor_sync(~0u, l, o); mergeS(m, l, m2, l2); }
    if (ln == 0) { wm[w] = m; wl[w] = l; }
    __syncthreads();
    if (w == 0) {
      m = ln < T / 32 ? wm[ln] : -INFINITY; l = ln < T / 32 ? wl[ln] : 0.f;
#pragma unroll
      for (int o = 16; o; o >>= 1) { float m2 = __shfl_xor_sync(~0u, m, o), l2 = __shfl_xor_sync(~0u, l, o); mergeS(m, l, m2, l2); }
      if (ln == 0) st[par] = make_float2(m, l);
    }
    cluster.sync();
    {
      float2 q = make_float2(-INFINITY, 0.f);
      if (ln < CL) q = *cluster.map_shared_rank(&st[par], ln);
      m = q.x; l = q.y;
#pragma unroll
      for (int o = 16; o; o >>= 1) { float m2 = __shfl_xor_sync(~0u, m, o), l2 = __shfl_xor_sync(~0u, l, o); mergeS(m, l, m2, l2); }
    }
    float inv = 1.f / l;
    uint4 *yr = reinterpret_cast<uint4 *>(y + row * (long)n + begin);
    long nextRow = row + ncl;
    for (int p = 0; p < P; ++p) {
      int v1 = min(nv, (p + 1) * pv);
      for (int v = p * pv + threadIdx.x; v < v1; v += T) {
        float f[8]; unpack(buf[v], f);
#pragma unroll
        for (int i = 0; i < 8; ++i) f[i] = ex2(fmaf(f[i], L2E, -m)) * inv;
        __stcs(yr + v, pack(f));
      }
      if (PERSIST && nextRow < rows) {
        __syncthreads();
        if (threadIdx.x == 0) { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); issue(nextRow, p); }
      }
    }
  }
  // peers read this block's st until they pass the last cluster barrier
  cluster.sync();
}

__global__ void copyK(const uint4 *a, uint4 *b, long nv) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < nv; i += (long)gridDim.x * blockDim.x) b[i] = a[i];
}

template <int CL, int T, int P, bool PERSIST>
float run(int rows, int n, __nv_bfloat16 **xs, __nv_bfloat16 **ys, int sets, const std::vector<float> &hx, double copy) {
  char name[64]; snprintf(name, sizeof name, "CL%d T%d P%d%s", CL, T, P, PERSIST ? " persist" : "");
  auto k = smSoftmax<CL, T, P, PERSIST>;
  int chunk = ((n + CL - 1) / CL + 7) / 8 * 8;
  size_t smem = (size_t)chunk * 2;
  if (smem > 227 * 1024) { printf("%-24s skip (chunk %zu bytes)\n", name, smem); return 0; }
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
  if (CL > 8) cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  cudaLaunchConfig_t cfg = {};
  cfg.blockDim = dim3(T); cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute at[1]; at[0].id = cudaLaunchAttributeClusterDimension;
  at[0].val.clusterDim.x = CL; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
  cfg.attrs = at; cfg.numAttrs = 1;
  cfg.gridDim = dim3(rows * CL);
  int ncl = 0; cudaOccupancyMaxActiveClusters(&ncl, (void *)k, &cfg);
  if (PERSIST) cfg.gridDim = dim3(std::min(rows, std::max(ncl, 1)) * CL);
  cudaError_t e = cudaLaunchKernelEx(&cfg, k, (const __nv_bfloat16 *)xs[0], ys[0], n, rows, chunk);
  if (e != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) { printf("%-24s launch failed %s\n", name, cudaGetErrorString(cudaGetLastError())); return 0; }
  std::vector<__nv_bfloat16> hy((size_t)n);
  double maxerr = 0;
  for (int r : {0, rows / 2, rows - 1}) {
    cudaMemcpy(hy.data(), ys[0] + (size_t)r * n, n * 2, cudaMemcpyDeviceToHost);
    double mx = -1e300, s = 0;
    for (int i = 0; i < n; ++i) mx = fmax(mx, (double)hx[(size_t)r * n + i]);
    for (int i = 0; i < n; ++i) s += exp((double)hx[(size_t)r * n + i] - mx);
    for (int i = 0; i < n; ++i) { double ref = exp((double)hx[(size_t)r * n + i] - mx) / s; double got = __bfloat162float(hy[i]); if (ref > 1e-6) maxerr = fmax(maxerr, fabs(got - ref) / ref); }
  }
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  int it = 200;
  for (int i = 0; i < 20; ++i) cudaLaunchKernelEx(&cfg, k, (const __nv_bfloat16 *)xs[i % sets], ys[i % sets], n, rows, chunk);
  cudaEventRecord(a);
  for (int i = 0; i < it; ++i) cudaLaunchKernelEx(&cfg, k, (const __nv_bfloat16 *)xs[i % sets], ys[i % sets], n, rows, chunk);
  cudaEventRecord(b); cudaEventSynchronize(b);
  float ms; cudaEventElapsedTime(&ms, a, b); ms /= it;
  double gbs = 2.0 * rows * (double)n * 2 / (ms * 1e-3) / 1e9;
  printf("%-24s rows %5d n %7d: %8.1f us %7.0f GB/s (%.2f of copy)  clusters %d  relerr %.2e\n", name, rows, n, ms * 1e3, gbs, gbs / copy, ncl, maxerr);
  return gbs;
}

template <int CL>
void sweep(int rows, int n, __nv_bfloat16 **xs, __nv_bfloat16 **ys, int sets, const std::vector<float> &hx, double copy) {
  run<CL, 512, 4, false>(rows, n, xs, ys, sets, hx, copy);
  run<CL, 512, 8, false>(rows, n, xs, ys, sets, hx, copy);
  run<CL, 256, 8, false>(rows, n, xs, ys, sets, hx, copy);
  run<CL, 1024, 8, false>(rows, n, xs, ys, sets, hx, copy);
  run<CL, 512, 4, true>(rows, n, xs, ys, sets, hx, copy);
  run<CL, 512, 8, true>(rows, n, xs, ys, sets, hx, copy);
  run<CL, 1024, 8, true>(rows, n, xs, ys, sets, hx, copy);
}

int main(int argc, char **argv) {
  int shapes[][2] = {{256, 128256}, {4096, 128256}, {256, 262144}, {4096, 32768}, {64, 151936}, {32, 128256}};
  for (auto &sh : shapes) {
    int rows = sh[0], n = sh[1];
    size_t elems = (size_t)rows * n;
    int sets = std::max<int>(1, (int)(4 * 60e6 / (elems * 4)) + 1); if (sets > 8) sets = 8;
    std::vector<float> hx(elems); srand(1);
    std::vector<__nv_bfloat16> hb(elems);
    for (size_t i = 0; i < elems; ++i) { float v = ((rand() / (float)RAND_MAX) * 2 - 1) * 4; hb[i] = __float2bfloat16(v); hx[i] = __bfloat162float(hb[i]); }
    __nv_bfloat16 *xs[8], *ys[8];
    for (int s = 0; s < sets; ++s) { cudaMalloc(&xs[s], elems * 2); cudaMalloc(&ys[s], elems * 2); cudaMemcpy(xs[s], hb.data(), elems * 2, cudaMemcpyHostToDevice); }
    double copy;
    { cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); long nv = elems / 8;
      for (int i = 0; i < 10; ++i) copyK<<<132 * 8, 512>>>((const uint4 *)xs[i % sets], (uint4 *)ys[i % sets], nv);
      cudaEventRecord(a); for (int i = 0; i < 100; ++i) copyK<<<132 * 8, 512>>>((const uint4 *)xs[i % sets], (uint4 *)ys[i % sets], nv);
      cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ms /= 100;
      copy = 2.0 * elems * 2 / (ms * 1e-3) / 1e9;
      printf("copy kernel rows %d n %d: %.1f us %.0f GB/s (sets %d)\n", rows, n, ms * 1e3, copy, sets); }
    sweep<2>(rows, n, xs, ys, sets, hx, copy);
    sweep<4>(rows, n, xs, ys, sets, hx, copy);
    sweep<8>(rows, n, xs, ys, sets, hx, copy);
    for (int s = 0; s < sets; ++s) { cudaFree(xs[s]); cudaFree(ys[s]); }
    fflush(stdout);
  }
}
