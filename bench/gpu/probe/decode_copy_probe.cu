// Copy-path probe for the decode kernel's K/V stream (issue 14): one warp
// per block streams 64-key tiles of K and V ([B, Hkv, L, 128] bf16) through
// two shared-memory buffers, the way the decode kernel's main loop does, with
// four ways to copy a tile. Only the bytes move; each tile is consumed by
// one 16-byte shared read per lane so that nothing is optimized away.
//   nvcc -O3 -gencode=arch=compute_90,code=sm_90 decode_copy_probe.cu
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

constexpr int kKeys = 64, kD = 128, kRowB = kD * 2, kPadB = kRowB + 16;
constexpr int kTileB = kKeys * kPadB;  // padded rows, as the kernel's tiles

__device__ inline uint32_t smemAddr(const void *p) {
  return (uint32_t)__cvta_generic_to_shared(p);
}
__device__ inline void cpAsync16(void *dst, const void *src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smemAddr(dst)), "l"(src));
}
__device__ inline void mbarInit(uint64_t *bar, int count) {
  asm volatile("mbarrier.init.shared.b64 [%0], %1;\n" ::"r"(smemAddr(bar)), "r"(count));
}
__device__ inline void mbarExpect(uint64_t *bar, int bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;\n" ::"r"(smemAddr(bar)), "r"(bytes));
}
__device__ inline void mbarWait(uint64_t *bar, int parity) {
  asm volatile("{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared.b64 p, [%0], %1;\n @!p bra W;\n}\n" ::"r"(smemAddr(bar)), "r"(parity));
}
__device__ inline void bulk(void *dst, const void *src, int bytes, uint64_t *bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n"
               ::"r"(smemAddr(dst)), "l"(src), "r"(bytes), "r"(smemAddr(bar)) : "memory");
}

// mode 0: cp.async.cg 16 B (today's kernel); 1: cp.async.bulk per 256-byte
// row into padded rows; 2: one cp.async.bulk per 16 KiB tile (unpadded);
// 3: ld.global 16 B into registers, st.shared (two tiles of loads in flight).
template <int mode>
__global__ void stream(const uint4 *__restrict__ k, const uint4 *__restrict__ v,
                       int keysPerBlock, int L, uint4 *out) {
  extern __shared__ __align__(128) unsigned char smem[];
  uint64_t *bars = (uint64_t *)smem;              // [2 buffers]
  unsigned char *tiles = smem + 128;              // [2][K,V][tile]
  int lane = threadIdx.x;
  size_t head = (size_t)blockIdx.z * gridDim.y + blockIdx.y;
  size_t row0 = head * L + (size_t)blockIdx.x * keysPerBlock;
  const char *kb = (const char *)k + row0 * kRowB, *vb = (const char *)v + row0 * kRowB;
  int tiles_n = keysPerBlock / kKeys;
  if (mode == 1 || mode == 2) {
    if (lane == 0) { mbarInit(&bars[0], 1); mbarInit(&bars[1], 1); }
    asm volatile("fence.mbarrier_init.release.cluster;\n");
    __syncwarp();
  }
  auto issue = [&](int t) {
    int buf = t & 1;
    unsigned char *kd = tiles + buf * 2 * kTileB, *vd = kd + kTileB;
    const char *ks = kb + (size_t)t * kKeys * kRowB, *vs = vb + (size_t)t * kKeys * kRowB;
    if (mode == 0) {
      for (int i = lane; i < kKeys * 16; i += 32) {
        int r = i / 16, c = (i % 16) * 16;
        cpAsync16(kd + r * kPadB + c, ks + r * kRowB + c);
        cpAsync16(vd + r * kPadB + c, vs + r * kRowB + c);
      }
      asm volatile("cp.async.commit_group;\n");
    } else if (mode == 1) {
      if (lane == 0) mbarExpect(&bars[buf], 2 * kKeys * kRowB);
      __syncwarp();
      for (int r = lane; r < kKeys; r += 32) {
        bulk(kd + r * kPadB, ks + r * kRowB, kRowB, &bars[buf]);
        bulk(vd + r * kPadB, vs + r * kRowB, kRowB, &bars[buf]);
      }
    } else if (mode == 2) {
      if (lane == 0) {
        mbarExpect(&bars[buf], 2 * kKeys * kRowB);
        bulk(kd, ks, kKeys * kRowB, &bars[buf]);
        bulk(vd, vs, kKeys * kRowB, &bars[buf]);
      }
    }
  };
  uint4 acc = make_uint4(0, 0, 0, 0);
  if (mode == 3) {
    // Registers: 32 x 16 B of K and of V per lane per tile.
    uint4 rk[32], rv[32];
    auto load = [&](int t) {
      const char *ks = kb + (size_t)t * kKeys * kRowB, *vs = vb + (size_t)t * kKeys * kRowB;
#pragma unroll
      for (int j = 0; j < 32; ++j) {
        int i = lane + 32 * j, r = i / 16, c = (i % 16) * 16;
        rk[j] = __ldcs((const uint4 *)(ks + r * kRowB + c));
        rv[j] = __ldcs((const uint4 *)(vs + r * kRowB + c));
      }
    };
    load(0);
    for (int t = 0; t < tiles_n; ++t) {
      int buf = t & 1;
      unsigned char *kd = tiles + buf * 2 * kTileB, *vd = kd + kTileB;
#pragma unroll
      for (int j = 0; j < 32; ++j) {
        int i = lane + 32 * j, r = i / 16, c = (i % 16) * 16;
        *(uint4 *)(kd + r * kPadB + c) = rk[j];
        *(uint4 *)(vd + r * kPadB + c) = rv[j];
      }
      if (t + 1 < tiles_n) load(t + 1);
      __syncwarp();
      uint4 x = *(uint4 *)(kd + lane * kPadB), y = *(uint4 *)(vd + lane * kPadB);
      acc.x ^= x.x ^ y.x; acc.y ^= x.y ^ y.y; acc.z ^= x.z ^ y.z; acc.w ^= x.w ^ y.w;
      __syncwarp();
    }
  } else {
    issue(0);
    for (int t = 0; t < tiles_n; ++t) {
      int buf = t & 1;
      if (mode == 0) asm volatile("cp.async.wait_group 0;\n" ::: "memory");
      else mbarWait(&bars[buf], (t >> 1) & 1);
      __syncwarp();
      if (t + 1 < tiles_n) issue(t + 1);
      unsigned char *kd = tiles + buf * 2 * kTileB, *vd = kd + kTileB;
      int r = lane * 2;
      uint4 x = *(uint4 *)(kd + r * kPadB), y = *(uint4 *)(vd + r * kPadB);
      acc.x ^= x.x ^ y.x; acc.y ^= x.y ^ y.y; acc.z ^= x.z ^ y.z; acc.w ^= x.w ^ y.w;
      __syncwarp();
    }
  }
  out[(blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x * 32 + blockIdx.x * 32 + lane] = acc;
}

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

template <int mode>
int run(const char *name, int B, int Hkv, int L, int splits, uint4 *k, uint4 *v, uint4 *out, float *ms) {
  size_t shm = 128 + 4 * kTileB;
  CK(cudaFuncSetAttribute(stream<mode>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
  dim3 grid(splits, Hkv, B);
  cudaEvent_t a, b;
  cudaEventCreate(&a); cudaEventCreate(&b);
  for (int w = 0; w < 3; ++w) stream<mode><<<grid, 32, shm>>>(k, v, L / splits, L, out);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  float best = 1e9, all[50];
  for (int i = 0; i < 50; ++i) {
    cudaEventRecord(a);
    stream<mode><<<grid, 32, shm>>>(k, v, L / splits, L, out);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    cudaEventElapsedTime(&all[i], a, b);
  }
  CK(cudaGetLastError());
  // median
  for (int i = 0; i < 50; ++i) for (int j = i + 1; j < 50; ++j) if (all[j] < all[i]) { float t = all[i]; all[i] = all[j]; all[j] = t; }
  best = all[25];
  double bytes = 2.0 * B * Hkv * (double)L * kRowB;
  printf("%-10s B%d Hkv%d L%d splits %3d blocks %4d: %8.1f us  %6.0f GB/s\n", name, B, Hkv, L, splits,
         splits * Hkv * B, best * 1e3, bytes / (best * 1e-3) / 1e9);
  *ms = best;
  return 0;
}

int main() {
  struct { int B, Hkv, L; int splits[4]; } shapes[] = {{8, 8, 32768, {4, 2, 8, 3}}, {1, 8, 131072, {32, 16, 48, 64}}};
  size_t maxElems = 8ull * 8 * 32768 * kD / 8;  // uint4 count
  uint4 *k, *v, *out;
  CK(cudaMalloc(&k, maxElems * 16)); CK(cudaMalloc(&v, maxElems * 16));
  CK(cudaMalloc(&out, 64ull * 8 * 8 * 32 * 16));
  CK(cudaMemset(k, 0x3c, maxElems * 16)); CK(cudaMemset(v, 0x41, maxElems * 16));
  float ms;
  for (auto &s : shapes)
    for (int sp : s.splits) {
      if (run<0>("cg16", s.B, s.Hkv, s.L, sp, k, v, out, &ms)) return 1;
      if (run<1>("bulk-row", s.B, s.Hkv, s.L, sp, k, v, out, &ms)) return 1;
      if (run<2>("bulk-tile", s.B, s.Hkv, s.L, sp, k, v, out, &ms)) return 1;
      if (run<3>("ld-st", s.B, s.Hkv, s.L, sp, k, v, out, &ms)) return 1;
    }
  return 0;
}
