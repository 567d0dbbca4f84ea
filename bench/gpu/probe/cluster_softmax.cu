// What a split softmax row merged within a thread-block cluster can reach
// on an H200, written by hand, beside a grid-stride copy at the same size
// (the ceiling the mapping's kernels are measured against).
//
//   nvcc -gencode=arch=compute_90,code=sm_90 -O3 -o cluster_softmax \
//       bench/gpu/probe/cluster_softmax.cu && ./cluster_softmax
//
// bf16 rows (lengths a multiple of 8), each a cluster of CL blocks of T
// threads caching CV 16-byte vectors as packed bf16; (m, l) per block in
// shared memory, read by every warp of the cluster through
// map_shared_rank after cluster.sync(), the same plan as the mapping's
// split_merge = cluster (docs/Passes/softmax-map-to-gpu.md). Prints time,
// GB/s (read + write), the clusters the occupancy API says can be resident,
// and the relative error of rows 0 and rows-1 against float64 (elements
// above 1e-6). Not yet run: no device was lent the session that wrote it.
#include "bf16x8.cuh"
#include <cuda_bf16.h>
#include <cooperative_groups.h>
#include <cstdio>
#include <vector>
#include <cmath>
#include <cstdlib>
namespace cg = cooperative_groups;

__device__ __forceinline__ void mergeS(float &m, float &l, float m2, float l2) {
  float M = fmaxf(m, m2);
  if (M == -INFINITY) { l = 0.f + 0.f; m = M; return; }
  l = l * exp2f(m - M) + l2 * exp2f(m2 - M); m = M;
}

template <int CL, int T, int CV>
__global__ void __launch_bounds__(T) clSoftmax(const __nv_bfloat16 *x, __nv_bfloat16 *y, int n) {
  cg::cluster_group cluster = cg::this_cluster();
  int rank = cluster.block_rank();
  long row = blockIdx.x / CL;
  const float L2E = 1.4426950408889634f;
  const int chunk = CV * T * 8;
  int base = rank * chunk;
  const uint4 *xr = reinterpret_cast<const uint4 *>(x + row * (long)n);
  uint4 *yr = reinterpret_cast<uint4 *>(y + row * (long)n);
  uint4 c[CV];
  int nv = n / 8;
#pragma unroll
  for (int k = 0; k < CV; ++k) {
    int vi = (base / 8) + k * T + threadIdx.x;
    if (vi < nv) c[k] = __ldcs(xr + vi); else c[k] = make_uint4(0xff80ff80u, 0xff80ff80u, 0xff80ff80u, 0xff80ff80u);
  }
  float m = -INFINITY;
#pragma unroll
  for (int k = 0; k < CV; ++k) { float f[8]; unpack(c[k], f); for (int i = 0; i < 8; ++i) m = fmaxf(m, f[i]); }
  m *= L2E;
  float l = 0.f;
  if (m != -INFINITY)
#pragma unroll
  for (int k = 0; k < CV; ++k) { float f[8]; unpack(c[k], f); for (int i = 0; i < 8; ++i) l += exp2f(fmaf(f[i], L2E, -m)); }
  for (int o = 16; o; o >>= 1) { float m2 = __shfl_xor_sync(~0u, m, o), l2 = __shfl_xor_sync(~0u, l, o); mergeS(m, l, m2, l2); }
  __shared__ float sm[T / 32], sl[T / 32];
  __shared__ float2 st;
  int w = threadIdx.x / 32, ln = threadIdx.x % 32;
  if (ln == 0) { sm[w] = m; sl[w] = l; }
  __syncthreads();
  if (w == 0) {
    m = ln < T / 32 ? sm[ln] : -INFINITY; l = ln < T / 32 ? sl[ln] : 0.f;
    for (int o = 16; o; o >>= 1) { float m2 = __shfl_xor_sync(~0u, m, o), l2 = __shfl_xor_sync(~0u, l, o); mergeS(m, l, m2, l2); }
    if (ln == 0) st = make_float2(m, l);
  }
  cluster.sync();
  // every warp reads the peers' states
  {
    float2 p = make_float2(-INFINITY, 0.f);
    if (ln < CL) { float2 *peer = cluster.map_shared_rank(&st, ln); p = *peer; }
    m = p.x; l = p.y;
    for (int o = 16; o; o >>= 1) { float m2 = __shfl_xor_sync(~0u, m, o), l2 = __shfl_xor_sync(~0u, l, o); mergeS(m, l, m2, l2); }
  }
  // peers may leave once everyone has read
  asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
  float inv = 1.f / l;
#pragma unroll
  for (int k = 0; k < CV; ++k) {
    int vi = (base / 8) + k * T + threadIdx.x;
    if (vi < nv) { float f[8]; unpack(c[k], f); for (int i = 0; i < 8; ++i) f[i] = exp2f(fmaf(f[i], L2E, -m)) * inv; __stcs(yr + vi, pack(f)); }
  }
  asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}

// Reference: one block per row streamed twice (simple) for checking.
__global__ void copyK(const uint4 *a, uint4 *b, long nv) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < nv; i += (long)gridDim.x * blockDim.x) b[i] = a[i];
}

template <int CL, int T, int CV>
float run(const char *name, int rows, int n, __nv_bfloat16 **xs, __nv_bfloat16 **ys, int sets, const std::vector<float> &hx) {
  auto k = clSoftmax<CL, T, CV>;
  if (CL > 8) cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  if ((long)CL * T * CV * 8 < n) { printf("%s skip (chunk too small)\n", name); return 0; }
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(rows * CL); cfg.blockDim = dim3(T);
  cudaLaunchAttribute at[1]; at[0].id = cudaLaunchAttributeClusterDimension;
  at[0].val.clusterDim.x = CL; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
  cfg.attrs = at; cfg.numAttrs = 1;
  int ncl = 0; cudaOccupancyMaxActiveClusters(&ncl, (void*)k, &cfg);
  cudaError_t e = cudaLaunchKernelEx(&cfg, k, (const __nv_bfloat16 *)xs[0], ys[0], n);
  if (e != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) { printf("%s launch failed %s\n", name, cudaGetErrorString(cudaGetLastError())); return 0; }
  // check row 0 and last row
  std::vector<__nv_bfloat16> hy((size_t)n);
  double maxerr = 0;
  for (int r : {0, rows - 1}) {
    cudaMemcpy(hy.data(), ys[0] + (size_t)r * n, n * 2, cudaMemcpyDeviceToHost);
    double mx = -1e300, s = 0;
    for (int i = 0; i < n; ++i) mx = fmax(mx, (double)hx[(size_t)r * n + i]);
    for (int i = 0; i < n; ++i) s += exp((double)hx[(size_t)r * n + i] - mx);
    for (int i = 0; i < n; ++i) { double ref = exp((double)hx[(size_t)r * n + i] - mx) / s; double got = __bfloat162float(hy[i]); maxerr = fmax(maxerr, fabs(got - ref) / fmax(ref, 1e-30) * (ref > 1e-6)); }
  }
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  int it = 200;
  for (int i = 0; i < 20; ++i) cudaLaunchKernelEx(&cfg, k, (const __nv_bfloat16 *)xs[i % sets], ys[i % sets], n);
  cudaEventRecord(a);
  for (int i = 0; i < it; ++i) cudaLaunchKernelEx(&cfg, k, (const __nv_bfloat16 *)xs[i % sets], ys[i % sets], n);
  cudaEventRecord(b); cudaEventSynchronize(b);
  float ms; cudaEventElapsedTime(&ms, a, b); ms /= it;
  double gbs = 2.0 * rows * (double)n * 2 / (ms * 1e-3) / 1e9;
  printf("%-28s rows %5d n %7d: %8.1f us %7.0f GB/s  active clusters %d  relerr %.2e\n", name, rows, n, ms * 1e3, gbs, ncl, maxerr);
  return gbs;
}

int main(int argc, char **argv) {
  int shapes[][2] = {{256, 128256}, {4096, 128256}, {32, 128256}, {1024, 50304}, {256, 262144}, {64, 151936}};
  for (auto &sh : shapes) {
    int rows = sh[0], n = sh[1];
    size_t elems = (size_t)rows * n;
    int sets = std::max<int>(1, (int)(4 * 60e6 / (elems * 4)) + 1); if (sets > 8) sets = 8;
    std::vector<float> hx(elems); srand(1);
    std::vector<__nv_bfloat16> hb(elems);
    for (size_t i = 0; i < elems; ++i) { float v = ((rand() / (float)RAND_MAX) * 2 - 1) * 4; hb[i] = __float2bfloat16(v); hx[i] = __bfloat162float(hb[i]); }
    __nv_bfloat16 *xs[8], *ys[8];
    for (int s = 0; s < sets; ++s) { cudaMalloc(&xs[s], elems * 2); cudaMalloc(&ys[s], elems * 2); cudaMemcpy(xs[s], hb.data(), elems * 2, cudaMemcpyHostToDevice); }
    // copy ceiling at this size
    { cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); long nv = elems / 8;
      for (int i = 0; i < 10; ++i) copyK<<<132 * 8, 512>>>((const uint4 *)xs[i % sets], (uint4 *)ys[i % sets], nv);
      cudaEventRecord(a); for (int i = 0; i < 100; ++i) copyK<<<132 * 8, 512>>>((const uint4 *)xs[i % sets], (uint4 *)ys[i % sets], nv);
      cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ms /= 100;
      printf("copy kernel rows %d n %d: %.1f us %.0f GB/s (sets %d)\n", rows, n, ms * 1e3, 2.0 * elems * 2 / (ms * 1e-3) / 1e9, sets); }
    run<4, 512, 8>("CL4 T512 CV8", rows, n, xs, ys, sets, hx);
    run<8, 256, 8>("CL8 T256 CV8", rows, n, xs, ys, sets, hx);
    run<8, 128, 16>("CL8 T128 CV16", rows, n, xs, ys, sets, hx);
    run<16, 128, 8>("CL16 T128 CV8", rows, n, xs, ys, sets, hx);
    run<16, 256, 4>("CL16 T256 CV4", rows, n, xs, ys, sets, hx);
    run<8, 512, 4>("CL8 T512 CV4", rows, n, xs, ys, sets, hx);
    run<2, 1024, 8>("CL2 T1024 CV8", rows, n, xs, ys, sets, hx);
    run<16, 256, 8>("CL16 T256 CV8", rows, n, xs, ys, sets, hx);
    run<8, 512, 8>("CL8 T512 CV8", rows, n, xs, ys, sets, hx);
    run<4, 256, 16>("CL4 T256 CV16", rows, n, xs, ys, sets, hx);
    for (int s = 0; s < sets; ++s) { cudaFree(xs[s]); cudaFree(ys[s]); }
  }
}
