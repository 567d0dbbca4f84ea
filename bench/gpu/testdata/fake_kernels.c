/* Host-only stand-in for libsoftmax_kernels.so: _mlir_ciface_* entry points
 * with the memref ABI of the real library, computing on host pointers with
 * masked(zero) semantics, plus deliberately broken variants. For testing
 * bench_softmax.py --device cpu (see cpu_selftest.sh). */
#include <math.h>
#include <stdint.h>
#include <string.h>

typedef struct { void *allocated, *aligned; int64_t offset, sizes[2], strides[2]; } MemRef2D;
typedef struct { void *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } MemRef1D;

void fakeRuntimeRecordError(int code, const char *what);

static float bf2f(uint16_t b) { uint32_t u = (uint32_t)b << 16; float f; memcpy(&f, &u, 4); return f; }
static uint16_t f2bf(float f) {
  uint32_t u; memcpy(&u, &f, 4);
  if (isnan(f)) return 0x7fc0;
  u += 0x7fff + ((u >> 16) & 1);
  return (uint16_t)(u >> 16);
}

enum { SOFTMAX, LOG_SOFTMAX, LOGSUMEXP };

static float load(const void *p, int bf16, int64_t i) {
  return bf16 ? bf2f(((const uint16_t *)p)[i]) : ((const float *)p)[i];
}
static void store(void *p, int bf16, int64_t i, double v) {
  if (bf16) ((uint16_t *)p)[i] = f2bf((float)v); else ((float *)p)[i] = (float)v;
}

static void run(int op, int bf16, MemRef2D *in, void *outDesc, int broken) {
  int64_t rows = in->sizes[0], cols = in->sizes[1];
  const char *x = in->aligned;
  int64_t es = bf16 ? 2 : 4;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t xo = in->offset + r * in->strides[0];
    double m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) { double v = load(x, bf16, xo + c * in->strides[1]); if (v > m) m = v; }
    int masked = isinf(m) && m < 0;
    if (!masked) for (int64_t c = 0; c < cols; ++c) s += exp(load(x, bf16, xo + c * in->strides[1]) - m);
    if (op == LOGSUMEXP) {
      MemRef1D *o = outDesc;
      store(o->aligned, bf16, o->offset + r * o->strides[0], masked ? -INFINITY : m + log(s));
      continue;
    }
    MemRef2D *o = outDesc;
    int64_t yo = o->offset + r * o->strides[0];
    for (int64_t c = 0; c < cols; ++c) {
      double v = load(x, bf16, xo + c * in->strides[1]), y;
      if (op == SOFTMAX) y = masked ? 0.0 : exp(v - m) / s;
      else y = masked ? -INFINITY : v - m - log(s);
      if (broken && c == cols - 1) continue;  /* leaves the last column unwritten */
      store(o->aligned, bf16, yo + c * o->strides[1], y);
    }
  }
  (void)es;
}

#define K(name, op, bf16, broken) \
  void _mlir_ciface_##name(MemRef2D *in, void *out) { run(op, bf16, in, out, broken); }

K(softmax_f32_64x1000, SOFTMAX, 0, 0)
K(softmax_bf16_64x1000, SOFTMAX, 1, 0)
K(log_softmax_f32_64x1000, LOG_SOFTMAX, 0, 0)
K(logsumexp_f32_64x1000, LOGSUMEXP, 0, 0)
K(logsumexp_bf16_64x1000, LOGSUMEXP, 1, 0)
K(softmax_f32_16x4096, SOFTMAX, 0, 0)
K(softmax_f32_16x4096_broken, SOFTMAX, 0, 1)

void _mlir_ciface_softmax_bf16_16x4096_error(MemRef2D *in, void *out) {
  (void)in; (void)out;
  fakeRuntimeRecordError(700, "mgpuLaunchKernel: cuLaunchKernel");
}
