// Driver for Inputs/topk.mlir on a CUDA GPU: six rows per function from a
// fixed seed (Gaussian logits x 3; values rounded to halves: ties; -inf
// entries; all -inf; a NaN; an ascending row, the kernel's worst case),
// bf16-rounded for the bf16 functions; each function runs once into
// poisoned outputs in managed memory and every row is checked against a
// float64 reference: indices exactly (value descending, ties by the lower
// index, NaN never chosen, -1 past the row), probabilities and
// log-probabilities within 1e-5 relative. Prints one PASS or FAIL line per
// function, or the runtime's error and exits with 2.

#include "bf16.h"
#include "softmax-mlir/Runtime/SoftmaxRuntime.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace {
constexpr int64_t ROWS = 6;

struct MemRef2 {
  void *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
};
MemRef2 view(void *data, int64_t rows, int64_t cols) {
  return {data, data, 0, {rows, cols}, {cols, 1}};
}
template <typename T> T *managed(int64_t count) {
  return static_cast<T *>(
      mgpuMemAlloc(count * sizeof(T), nullptr, /*isHostShared=*/true));
}

/// The six rows of length v, as doubles.
std::vector<double> rows(int64_t v, std::mt19937 &rng) {
  std::normal_distribution<double> normal;
  std::vector<double> x(ROWS * v);
  for (double &e : x)
    e = 3.0 * normal(rng);
  const double inf = std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < v; ++j) {
    x[1 * v + j] = std::round(x[1 * v + j] * 2) / 2;            // ties
    if (j % 7 == 3)
      x[2 * v + j] = -inf;                                        // -inf
    x[3 * v + j] = -inf;                                          // all -inf
  }
  x[4 * v + v / 2] = std::nan("");                                // a NaN
  std::sort(x.begin() + 5 * v, x.begin() + 6 * v);                // ascending
  return x;
}

/// Checks one row against float64; returns false on a mismatch.
bool checkRow(const double *x, int64_t v, int64_t k, const float *p,
              const int64_t *idx, const float *lp) {
  std::vector<int64_t> order;
  bool hasNaN = false;
  double m = -std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < v; ++j) {
    if (std::isnan(x[j])) {
      hasNaN = true;
      continue;
    }
    order.push_back(j);
    m = std::max(m, x[j]);
  }
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return x[a] > x[b] || (x[a] == x[b] && a < b);
  });
  double sum = 0;
  for (int64_t j : order)
    sum += std::isinf(m) ? 0.0 : std::exp(x[j] - m);
  for (int64_t j = 0; j < k; ++j) {
    bool real = j < static_cast<int64_t>(order.size());
    int64_t want = real ? order[j] : -1;
    if (idx[j] != want)
      return std::printf("  index %ld: %ld, want %ld\n", long(j), long(idx[j]),
                         long(want)),
             false;
    double wantLp = -std::numeric_limits<double>::infinity();
    if (real && hasNaN)
      wantLp = std::nan("");
    else if (real && sum > 0)
      wantLp = x[want] - m - std::log(sum);
    double wantP = std::exp(wantLp);
    bool pOk = std::isnan(wantP)
                   ? std::isnan(p[j])
                   : std::fabs(p[j] - wantP) <= 1e-5 * wantP + 1e-30;
    bool lpOk = !lp || (std::isnan(wantLp) ? std::isnan(lp[j])
                        : std::isinf(wantLp)
                            ? lp[j] == wantLp
                            : std::fabs(lp[j] - wantLp) <=
                                  1e-5 * std::max(1.0, std::fabs(wantLp)));
    if (!pOk || !lpOk)
      return std::printf("  position %ld: p %g (want %g), lp %g (want %g)\n",
                         long(j), p[j], wantP, lp ? lp[j] : 0.0, wantLp),
             false;
  }
  return true;
}

using Fn3 = void (*)(MemRef2 *, MemRef2 *, MemRef2 *);
using Fn4 = void (*)(MemRef2 *, MemRef2 *, MemRef2 *, MemRef2 *);

int run(const char *name, int64_t v, int64_t k, bool bf16, Fn3 f3, Fn4 f4,
        std::mt19937 &rng) {
  std::vector<double> x = rows(v, rng);
  void *in = bf16 ? static_cast<void *>(managed<uint16_t>(ROWS * v))
                  : static_cast<void *>(managed<float>(ROWS * v));
  for (int64_t e = 0; e < ROWS * v; ++e) {
    if (bf16) {
      static_cast<uint16_t *>(in)[e] = toBF16(float(x[e]));
      x[e] = fromBF16(static_cast<uint16_t *>(in)[e]);
    } else {
      static_cast<float *>(in)[e] = float(x[e]);
      x[e] = static_cast<float *>(in)[e];
    }
  }
  float *p = managed<float>(ROWS * k), *lp = managed<float>(ROWS * k);
  int64_t *idx = managed<int64_t>(ROWS * k);
  std::fill(p, p + ROWS * k, 7.0f);
  std::fill(lp, lp + ROWS * k, 7.0f);
  std::fill(idx, idx + ROWS * k, int64_t(7));
  MemRef2 xm = view(in, ROWS, v), pm = view(p, ROWS, k),
          im = view(idx, ROWS, k), lm = view(lp, ROWS, k);
  if (f4)
    f4(&xm, &pm, &im, &lm);
  else
    f3(&xm, &pm, &im);
  if (softmaxRuntimeGetLastError()) {
    std::printf("%s: runtime error: %s\n", name,
                softmaxRuntimeGetLastErrorString());
    return 2;
  }
  bool ok = true;
  for (int64_t r = 0; r < ROWS; ++r)
    if (!checkRow(&x[r * v], v, k, &p[r * k], &idx[r * k],
                  f4 ? &lp[r * k] : nullptr)) {
      std::printf("  row %ld\n", long(r));
      ok = false;
    }
  std::printf("%s: %s\n", name, ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
} // namespace

extern "C" void _mlir_ciface_vocab_k50(MemRef2 *, MemRef2 *, MemRef2 *);
extern "C" void _mlir_ciface_vocab_k1000(MemRef2 *, MemRef2 *, MemRef2 *);
extern "C" void _mlir_ciface_prime_lp(MemRef2 *, MemRef2 *, MemRef2 *,
                                      MemRef2 *);
extern "C" void _mlir_ciface_short_lp(MemRef2 *, MemRef2 *, MemRef2 *,
                                      MemRef2 *);

int main() {
  std::printf("backend: %s\n", softmaxRuntimeGetBackendName());
  std::mt19937 rng(2026);
  int worst = 0;
  worst = std::max(worst, run("vocab_k50", 32768, 50, true,
                              _mlir_ciface_vocab_k50, nullptr, rng));
  worst = std::max(worst, run("vocab_k1000", 32768, 1000, true,
                              _mlir_ciface_vocab_k1000, nullptr, rng));
  worst = std::max(worst, run("prime_lp", 1031, 20, false, nullptr,
                              _mlir_ciface_prime_lp, rng));
  worst = std::max(worst, run("short_lp", 5, 7, false, nullptr,
                              _mlir_ciface_short_lp, rng));
  return worst;
}
