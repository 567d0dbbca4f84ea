// What the linear cross-entropy drivers (linear-cross-entropy-main.cpp,
// linear-cross-entropy-grad-main.cpp) share: memref descriptors of ranks
// 0-2 over managed memory, and rounding to bf16 or f16.

#ifndef SOFTMAX_TEST_RUNTIME_CROSS_ENTROPY_DRIVER_H
#define SOFTMAX_TEST_RUNTIME_CROSS_ENTROPY_DRIVER_H

#include "softmax-mlir/Runtime/SoftmaxRuntime.h"

#include <cstdint>
#include <cstring>

namespace {
struct MemRef0 {
  void *allocated, *aligned;
  int64_t offset;
};
struct MemRef1 {
  void *allocated, *aligned;
  int64_t offset, sizes[1], strides[1];
};
struct MemRef2 {
  void *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
};
MemRef0 view0(void *p) { return {p, p, 0}; }
MemRef1 view1(void *p, int64_t n) { return {p, p, 0, {n}, {1}}; }
MemRef2 view2(void *p, int64_t r, int64_t c) {
  return {p, p, 0, {r, c}, {c, 1}};
}
template <typename T> T *managed(int64_t count) {
  return static_cast<T *>(
      mgpuMemAlloc(count * sizeof(T), nullptr, /*isHostShared=*/true));
}

/// Rounds to bf16 (nearest even) or f16; returns the bits and sets `back`
/// to the rounded value.
uint16_t round16(double x, bool bf16, double &back) {
  float f = float(x);
  if (bf16) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    u += 0x7fff + ((u >> 16) & 1);
    uint16_t h = uint16_t(u >> 16);
    uint32_t w = uint32_t(h) << 16;
    std::memcpy(&f, &w, 4);
    back = f;
    return h;
  }
  _Float16 h = _Float16(f);
  back = double(h);
  uint16_t bits;
  std::memcpy(&bits, &h, 2);
  return bits;
}
} // namespace

#endif // SOFTMAX_TEST_RUNTIME_CROSS_ENTROPY_DRIVER_H
