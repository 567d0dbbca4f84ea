// Driver for Inputs/linear-cross-entropy.mlir on a CUDA GPU: each function
// runs once on fixed-seed inputs in managed memory (classifier rows of norm
// about 1, each hidden row 8 times its target's row plus unit noise: losses
// of a few nats, not a uniform softmax), rounded to the inputs' type, into
// poisoned outputs, and is checked against float64 from the same rounded
// inputs: losses (or their sum or mean) and lse within 1e-4 relative, NaN
// for a target out of range, 0 for an ignored token. Prints one PASS or
// FAIL line per function, or the runtime's error and exits with 2.

#include "cross-entropy-driver.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

namespace {
struct Case {
  const char *name;
  int64_t n, d, v;
  bool bf16, bias, i32;
  double softcap, zLoss;
  int64_t ignore;
  int reduction; // 0 none, 1 sum, 2 mean
};

bool close(double got, double want) {
  if (std::isnan(want))
    return std::isnan(got);
  return std::fabs(got - want) <= 1e-4 * std::max(1.0, std::fabs(want));
}

template <typename Fn> int run(const Case &c, Fn call, std::mt19937 &rng) {
  std::normal_distribution<double> normal;
  std::vector<double> w(c.v * c.d), h(c.n * c.d), b(c.v, 0.0);
  std::vector<int64_t> t(c.n);
  uint16_t *wd = managed<uint16_t>(c.v * c.d),
           *hd = managed<uint16_t>(c.n * c.d);
  uint16_t *bd = managed<uint16_t>(c.v);
  for (int64_t e = 0; e < c.v * c.d; ++e)
    wd[e] = round16(normal(rng) / std::sqrt(double(c.d)), c.bf16, w[e]);
  std::uniform_int_distribution<int64_t> cls(0, c.v - 1);
  for (int64_t i = 0; i < c.n; ++i) {
    t[i] = cls(rng);
    for (int64_t j = 0; j < c.d; ++j)
      hd[i * c.d + j] = round16(8.0 * w[t[i] * c.d + j] + normal(rng), c.bf16,
                                h[i * c.d + j]);
    if (i % 11 == 3)
      t[i] = c.ignore;
  }
  if (c.reduction == 0 && c.n > 6) {
    t[5] = c.v + 3; // out of range: NaN
    t[6] = -1;      // negative, not the ignore index: NaN
  }
  for (int64_t v = 0; v < c.v && c.bias; ++v)
    bd[v] = round16(0.5 * normal(rng), c.bf16, b[v]);
  void *td = c.i32 ? static_cast<void *>(managed<int32_t>(c.n))
                   : static_cast<void *>(managed<int64_t>(c.n));
  for (int64_t i = 0; i < c.n; ++i) {
    if (c.i32)
      static_cast<int32_t *>(td)[i] = int32_t(t[i]);
    else
      static_cast<int64_t *>(td)[i] = t[i];
  }
  float *loss = managed<float>(c.n), *lse = managed<float>(c.n);
  std::fill(loss, loss + c.n, 7.0f);
  std::fill(lse, lse + c.n, 7.0f);
  MemRef2 hm = view2(hd, c.n, c.d), wm = view2(wd, c.v, c.d);
  MemRef1 tm = view1(td, c.n), bm = view1(bd, c.v), lm = view1(loss, c.n),
          sm = view1(lse, c.n);
  MemRef0 l0 = view0(loss);
  call(&hm, &wm, &tm, &bm, &lm, &l0, &sm);
  if (softmaxRuntimeGetLastError()) {
    std::printf("%s: runtime error: %s\n", c.name,
                softmaxRuntimeGetLastErrorString());
    return 2;
  }
  // float64 from the rounded inputs.
  bool ok = true;
  double total = 0;
  int64_t kept = 0;
  for (int64_t i = 0; i < c.n; ++i) {
    std::vector<double> z(c.v);
    double m = -INFINITY;
    for (int64_t v = 0; v < c.v; ++v) {
      double s = b[v];
      for (int64_t j = 0; j < c.d; ++j)
        s += h[i * c.d + j] * w[v * c.d + j];
      if (c.softcap > 0)
        s = c.softcap * std::tanh(s / c.softcap);
      z[v] = s;
      m = std::max(m, s);
    }
    double sum = 0;
    for (double s : z)
      sum += std::exp(s - m);
    double wantLse = m + std::log(sum);
    double want;
    if (t[i] == c.ignore)
      want = 0;
    else if (t[i] < 0 || t[i] >= c.v)
      want = NAN;
    else
      want = wantLse - z[t[i]] + c.zLoss * wantLse * wantLse;
    if (t[i] != c.ignore)
      ++kept;
    total += want;
    if (!close(lse[i], wantLse)) {
      std::printf("  token %ld: lse %g, want %g\n", long(i), lse[i], wantLse);
      ok = false;
    }
    if (c.reduction == 0 && !close(loss[i], want)) {
      std::printf("  token %ld: loss %g, want %g\n", long(i), loss[i], want);
      ok = false;
    }
  }
  if (c.reduction != 0) {
    double want = c.reduction == 2 ? total / double(kept) : total;
    if (!close(loss[0], want)) {
      std::printf("  loss %g, want %g\n", loss[0], want);
      ok = false;
    }
  }
  std::printf("%s: %s\n", c.name, ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
} // namespace

extern "C" void _mlir_ciface_odd_none(MemRef2 *, MemRef2 *, MemRef1 *,
                                      MemRef1 *, MemRef1 *, MemRef1 *);
extern "C" void _mlir_ciface_f16_mean(MemRef2 *, MemRef2 *, MemRef1 *,
                                      MemRef0 *, MemRef1 *);
extern "C" void _mlir_ciface_one_sum(MemRef2 *, MemRef2 *, MemRef1 *, MemRef0 *,
                                     MemRef1 *);

int main() {
  std::printf("backend: %s\n", softmaxRuntimeGetBackendName());
  std::mt19937 rng(2026);
  int worst = 0;
  worst = std::max(worst, run(
                              {"odd_none", 300, 72, 1031, true, true, false,
                               30.0, 1e-4, -100, 0},
                              [](MemRef2 *h, MemRef2 *w, MemRef1 *t, MemRef1 *b,
                                 MemRef1 *l, MemRef0 *, MemRef1 *s) {
                                _mlir_ciface_odd_none(h, w, t, b, l, s);
                              },
                              rng));
  worst = std::max(
      worst,
      run(
          {"f16_mean", 130, 128, 5000, false, false, true, 0, 0, 7, 2},
          [](MemRef2 *h, MemRef2 *w, MemRef1 *t, MemRef1 *, MemRef1 *,
             MemRef0 *l, MemRef1 *s) { _mlir_ciface_f16_mean(h, w, t, l, s); },
          rng));
  worst = std::max(
      worst,
      run(
          {"one_sum", 7, 64, 1, true, false, false, 0, 0, -100, 1},
          [](MemRef2 *h, MemRef2 *w, MemRef1 *t, MemRef1 *, MemRef1 *,
             MemRef0 *l, MemRef1 *s) { _mlir_ciface_one_sum(h, w, t, l, s); },
          rng));
  return worst;
}
