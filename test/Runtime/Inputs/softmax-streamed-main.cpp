// Driver for Inputs/softmax-streamed.mlir on a CUDA GPU: six rows per
// function from a fixed seed (Gaussian logits x 3; +-1e4; all -inf; every
// seventh -inf; one finite entry; an ascending row), bf16-rounded for the
// bf16 functions; each function runs once into poisoned outputs in managed
// memory and every row is checked against float64: max |y - want| over the
// row's max |want| within 1e-2 (bf16 outputs) or 1e-5 (f32), -inf and the
// masked row's values exactly. Prints one PASS or FAIL line per function,
// or the runtime's error and exits with 2. The descriptors, managed memory
// and bf16 rounding are the cross-entropy drivers' (cross-entropy-driver.h).

#include "bf16.h"
#include "cross-entropy-driver.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

namespace {
constexpr int64_t ROWS = 6;
const double kInf = std::numeric_limits<double>::infinity();

/// The six rows of length v, as doubles.
std::vector<double> rows(int64_t v, std::mt19937 &rng) {
  std::normal_distribution<double> normal;
  std::vector<double> x(ROWS * v);
  for (double &e : x)
    e = 3.0 * normal(rng);
  for (int64_t j = 0; j < v; ++j) {
    x[1 * v + j] = (rng() & 1 ? 1e4 : -1e4) + normal(rng);       // +-1e4
    x[2 * v + j] = -kInf;                                          // all -inf
    if (j % 7 == 3)
      x[3 * v + j] = -kInf;                                        // some -inf
    if (j != v / 3)
      x[4 * v + j] = -kInf;                                        // one left
  }
  std::sort(x.begin() + 5 * v, x.begin() + 6 * v);                 // ascending
  return x;
}

/// Checks one row against float64 (masked(zero): an all -inf row is 0, or
/// -inf as log-probabilities); returns false on a mismatch.
bool checkRow(const double *x, int64_t v, bool logs, double tol,
              const std::vector<double> &y) {
  double m = -kInf;
  for (int64_t j = 0; j < v; ++j)
    m = std::max(m, x[j]);
  double sum = 0;
  for (int64_t j = 0; j < v; ++j)
    sum += std::isinf(m) ? 0.0 : std::exp(x[j] - m);
  double worst = 0, scale = 0;
  for (int64_t j = 0; j < v; ++j) {
    double want = std::isinf(m) ? (logs ? -kInf : 0.0)
                  : logs        ? x[j] - m - std::log(sum)
                                : std::exp(x[j] - m) / sum;
    if (std::isinf(want) || std::isnan(y[j])) {
      if (y[j] != want)
        return std::printf("  column %ld: %g, want %g\n", long(j), y[j], want),
               false;
      continue;
    }
    worst = std::max(worst, std::fabs(y[j] - want));
    scale = std::max(scale, std::fabs(want));
  }
  if (worst > tol * scale)
    return std::printf("  error %g of %g\n", worst, scale), false;
  return true;
}

using Fn = void (*)(MemRef2 *, MemRef2 *);

int run(const char *name, int64_t v, bool bf16, bool logs, Fn f,
        std::mt19937 &rng) {
  std::vector<double> x = rows(v, rng);
  int64_t n = ROWS * v;
  void *in = bf16 ? static_cast<void *>(managed<uint16_t>(n))
                  : static_cast<void *>(managed<float>(n));
  void *out = bf16 ? static_cast<void *>(managed<uint16_t>(n))
                   : static_cast<void *>(managed<float>(n));
  double seven;
  for (int64_t e = 0; e < n; ++e) {
    if (bf16) {
      static_cast<uint16_t *>(in)[e] = round16(x[e], true, x[e]);
      static_cast<uint16_t *>(out)[e] = round16(7.0, true, seven);
    } else {
      static_cast<float *>(in)[e] = float(x[e]);
      x[e] = static_cast<float *>(in)[e];
      static_cast<float *>(out)[e] = 7.0f;
    }
  }
  MemRef2 xm = view2(in, ROWS, v), ym = view2(out, ROWS, v);
  f(&xm, &ym);
  if (softmaxRuntimeGetLastError()) {
    std::printf("%s: runtime error: %s\n", name,
                softmaxRuntimeGetLastErrorString());
    return 2;
  }
  bool ok = true;
  std::vector<double> y(v);
  for (int64_t r = 0; r < ROWS; ++r) {
    for (int64_t j = 0; j < v; ++j)
      y[j] = bf16 ? fromBF16(static_cast<uint16_t *>(out)[r * v + j])
                  : static_cast<float *>(out)[r * v + j];
    if (!checkRow(&x[r * v], v, logs, bf16 ? 1e-2 : 1e-5, y)) {
      std::printf("  row %ld\n", long(r));
      ok = false;
    }
  }
  std::printf("%s: %s\n", name, ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
} // namespace

extern "C" void _mlir_ciface_fwd_bf16(MemRef2 *, MemRef2 *);
extern "C" void _mlir_ciface_rev_bf16(MemRef2 *, MemRef2 *);
extern "C" void _mlir_ciface_rev_log_bf16(MemRef2 *, MemRef2 *);
extern "C" void _mlir_ciface_rev_split_f32(MemRef2 *, MemRef2 *);
extern "C" void _mlir_ciface_rev_three_f32(MemRef2 *, MemRef2 *);
extern "C" void _mlir_ciface_cached_cluster_bf16(MemRef2 *, MemRef2 *);
extern "C" void _mlir_ciface_cached_global_bf16(MemRef2 *, MemRef2 *);
extern "C" void _mlir_ciface_cached_log_f32(MemRef2 *, MemRef2 *);

int main() {
  std::printf("backend: %s\n", softmaxRuntimeGetBackendName());
  struct Case {
    const char *name;
    int64_t length;
    bool bf16, logs;
    Fn fn;
  };
  const Case cases[] = {
      {"fwd_bf16", 128257, true, false, _mlir_ciface_fwd_bf16},
      {"rev_bf16", 128257, true, false, _mlir_ciface_rev_bf16},
      {"rev_log_bf16", 50257, true, true, _mlir_ciface_rev_log_bf16},
      {"rev_split_f32", 100003, false, false, _mlir_ciface_rev_split_f32},
      {"rev_three_f32", 4099, false, false, _mlir_ciface_rev_three_f32},
      {"cached_cluster_bf16", 50257, true, false,
       _mlir_ciface_cached_cluster_bf16},
      {"cached_global_bf16", 50257, true, false,
       _mlir_ciface_cached_global_bf16},
      {"cached_log_f32", 4097, false, true, _mlir_ciface_cached_log_f32},
  };
  std::mt19937 rng(2026);
  int worst = 0;
  for (const Case &c : cases)
    worst = std::max(worst, run(c.name, c.length, c.bf16, c.logs, c.fn, rng));
  return worst;
}
