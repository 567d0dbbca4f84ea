// Driver for Inputs/linear-cross-entropy-grad.mlir on a CUDA GPU: each
// function runs once on fixed-seed inputs in managed memory (classifier
// rows of norm about 1, each hidden row `peak` times its target's row plus
// unit noise: peaked, realistic softmax rows, where tiles far from every
// target have gradients far below the filter), rounded to the inputs'
// type, with the float64 lse, into poisoned outputs. Checked against the
// float64 gradients from the same rounded inputs, element by element,
// within the error the kernel may make: du rounded to the inputs' type
// before its products (2^-8 of sum |du W| for bf16, 2^-11 for f16; exact
// mode carries du in two parts and does better), the logits' f32 sums
// (D 2^-24 sum |h w|, through p: large where p is near 1), the filter's
// bound (filter |w_n| x the |W| or |h| of the skipped entries) and the
// gradients' own rounding. The filter counts must be
// the number of 128 x CLASS_TILE tiles (128 classes on sm_90, 256 on
// sm_90a: -DCLASS_TILE=256) and the float64 number of filtered ones
// (tiles whose every |du| is at most filter |w_n|, give or take tiles
// within 1% of the filter), and a filtered case must filter some tiles
// and keep others. Prints the norm-wise errors and one PASS or FAIL line
// per function, or the runtime's error and exits with 2.

#include "cross-entropy-driver.h"

#ifndef CLASS_TILE
#define CLASS_TILE 128
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

namespace {
enum class Ty { F32, F16, BF16 };

double load(const void *p, int64_t i, Ty ty) {
  if (ty == Ty::F32)
    return static_cast<const float *>(p)[i];
  uint16_t bits = static_cast<const uint16_t *>(p)[i];
  if (ty == Ty::F16) {
    _Float16 h;
    std::memcpy(&h, &bits, 2);
    return double(h);
  }
  uint32_t u = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
/// Relative rounding of a gradient stored as `ty`.
double unit(Ty ty) {
  return ty == Ty::F32 ? 0 : ty == Ty::F16 ? std::ldexp(1.0, -11)
                                           : std::ldexp(1.0, -8);
}
void *poisoned(int64_t count, Ty ty) {
  if (ty == Ty::F32) {
    float *p = managed<float>(count);
    std::fill(p, p + count, 777.0f);
    return p;
  }
  uint16_t *p = managed<uint16_t>(count);
  double back;
  std::fill(p, p + count, round16(777.0, ty == Ty::BF16, back));
  return p;
}

struct Case {
  const char *name;
  int64_t n, d, v;
  Ty in, grads, gradBias; // gradBias F32 also when there is no bias
  bool bias, i32;
  double softcap, zLoss, peak, filter;
  int64_t ignore;
  int reduction; // 0 none, 1 sum, 2 mean
  bool counts;
  /// class_max (float64 group maxima rounded to f32) passed in, three
  /// counts: some tiles must be filtered before recomputing.
  bool classMax = false;
};

struct Args {
  MemRef2 h, w, gh, gw, cm;
  MemRef1 t, lse, dl1, b, gb, counts;
  MemRef0 dl0;
};

/// Checks `got` (stored as `ty`) against `want` with the allowance
/// `slack[i]`; prints the norm-wise relative error.
bool check(const char *what, const void *got, Ty ty,
           const std::vector<double> &want, const std::vector<double> &slack) {
  double err2 = 0, ref2 = 0;
  int64_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double g = load(got, int64_t(i), ty), e = std::fabs(g - want[i]);
    err2 += e * e;
    ref2 += want[i] * want[i];
    // The gradient's own rounding; f16 subnormals by 2^-25 absolutely.
    double own = unit(ty) * std::fabs(want[i]) +
                 (ty == Ty::F16 ? std::ldexp(1.0, -25) : 0.0);
    if (!(e <= slack[i] + own + 1e-7)) {
      if (bad < 3)
        std::printf("  %s[%zu]: %g, want %g (allowed %g)\n", what, i, g,
                    want[i], slack[i] + own);
      ++bad;
    }
  }
  std::printf("  %s: rel err %.2e\n", what, std::sqrt(err2 / ref2));
  return bad == 0;
}

template <typename Fn> int run(const Case &c, Fn call, std::mt19937 &rng) {
  std::normal_distribution<double> normal;
  bool bf16 = c.in == Ty::BF16;
  std::vector<double> w(c.v * c.d), h(c.n * c.d), b(c.v, 0.0);
  std::vector<int64_t> t(c.n);
  uint16_t *wd = managed<uint16_t>(c.v * c.d),
           *hd = managed<uint16_t>(c.n * c.d), *bd = managed<uint16_t>(c.v);
  for (int64_t e = 0; e < c.v * c.d; ++e)
    wd[e] = round16(normal(rng) / std::sqrt(double(c.d)), bf16, w[e]);
  std::uniform_int_distribution<int64_t> cls(0, c.v - 1);
  for (int64_t i = 0; i < c.n; ++i) {
    t[i] = cls(rng);
    for (int64_t j = 0; j < c.d; ++j)
      hd[i * c.d + j] = round16(c.peak * w[t[i] * c.d + j] + normal(rng), bf16,
                                h[i * c.d + j]);
    if (i % 11 == 3)
      t[i] = c.ignore;
  }
  for (int64_t v = 0; v < c.v && c.bias; ++v)
    bd[v] = round16(0.5 * normal(rng), bf16, b[v]);
  void *td = c.i32 ? static_cast<void *>(managed<int32_t>(c.n))
                   : static_cast<void *>(managed<int64_t>(c.n));
  for (int64_t i = 0; i < c.n; ++i) {
    if (c.i32)
      static_cast<int32_t *>(td)[i] = int32_t(t[i]);
    else
      static_cast<int64_t *>(td)[i] = t[i];
  }
  // float64 logits, lse and weights.
  // zAbs: sum_j |h w|, what the kernel's f32 sums of the logit may err by
  // D 2^-24 times.
  std::vector<double> z(c.n * c.v), zAbs(c.n * c.v), lse(c.n), wt(c.n);
  int64_t kept = 0;
  for (int64_t i = 0; i < c.n; ++i)
    kept += t[i] != c.ignore;
  float *lsed = managed<float>(c.n), *dld = managed<float>(c.n);
  for (int64_t i = 0; i < c.n; ++i) {
    double m = -INFINITY;
    for (int64_t v = 0; v < c.v; ++v) {
      double s = b[v], sa = std::fabs(b[v]);
      for (int64_t j = 0; j < c.d; ++j) {
        s += h[i * c.d + j] * w[v * c.d + j];
        sa += std::fabs(h[i * c.d + j] * w[v * c.d + j]);
      }
      zAbs[i * c.v + v] = sa;
      if (c.softcap > 0)
        s = c.softcap * std::tanh(s / c.softcap);
      z[i * c.v + v] = s;
      m = std::max(m, s);
    }
    double sum = 0;
    for (int64_t v = 0; v < c.v; ++v)
      sum += std::exp(z[i * c.v + v] - m);
    lsed[i] = float(m + std::log(sum));
    lse[i] = lsed[i]; // the kernel gets the f32 lse
    dld[i] = float(0.5 + 0.01 * double(i % 7));
    double g = c.reduction == 0 ? dld[i]
               : c.reduction == 1 ? dld[0]
                                  : double(dld[0]) / double(kept);
    wt[i] = t[i] == c.ignore ? 0 : g;
  }
  // du, the gradients and their allowances.
  std::vector<double> du(c.n * c.v);
  for (int64_t i = 0; i < c.n; ++i)
    for (int64_t v = 0; v < c.v; ++v) {
      double zz = z[i * c.v + v];
      double p = std::exp(zz - lse[i]) * (1 + 2 * c.zLoss * lse[i]);
      double g = wt[i] * (p - (v == t[i] ? 1.0 : 0.0));
      if (c.softcap > 0)
        g *= 1 - (zz / c.softcap) * (zz / c.softcap);
      du[i * c.v + v] = g;
    }
  double duUnit = c.in == Ty::F16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
  // f16 du below 2^-14 is subnormal: rounded to 2^-25 absolutely, not
  // relatively (a mean over 100 tokens puts du near 1e-7 off the targets).
  double duAbs = c.in == Ty::F16 ? std::ldexp(1.0, -25) : 0.0;
  // The float64 filtered tiles (every |du| at most filter |w_n|: the
  // token's softmax gradient at most the filter), and those too close to
  // the filter to call.
  int64_t tiles = 0, filtered = 0, close = 0;
  std::vector<char> skipped(c.n * c.v, 0);
  for (int64_t i0 = 0; i0 < c.n; i0 += 128)
    for (int64_t v0 = 0; v0 < c.v; v0 += CLASS_TILE) {
      double big = 0; // the largest |du| / |w_n|
      for (int64_t i = i0; i < std::min(c.n, i0 + 128); ++i)
        for (int64_t v = v0; v < std::min<int64_t>(c.v, v0 + CLASS_TILE); ++v)
          if (wt[i] != 0)
            big = std::max(big, std::fabs(du[i * c.v + v] / wt[i]));
      bool skip = c.filter > 0 && big <= c.filter;
      ++tiles;
      filtered += skip;
      close += c.filter > 0 && std::fabs(big - c.filter) <= 0.01 * c.filter;
      for (int64_t i = i0; i < std::min(c.n, i0 + 128); ++i)
        for (int64_t v = v0; v < std::min<int64_t>(c.v, v0 + CLASS_TILE); ++v)
          skipped[i * c.v + v] = skip;
    }
  // A skipped entry is off by at most filter |w_n|.
  std::vector<double> gh(c.n * c.d, 0), gw(c.v * c.d, 0), gb(c.v, 0),
      sh(c.n * c.d, 0), sw(c.v * c.d, 0), sb(c.v, 0);
  for (int64_t i = 0; i < c.n; ++i)
    for (int64_t v = 0; v < c.v; ++v) {
      double g = du[i * c.v + v];
      // The logit's f32 sum errs by up to D 2^-24 sum |h w|, and p with it:
      // where p is near 1 (a confident target) du = w (p - 1) loses its
      // relative accuracy, which the 2^-8 of du alone does not cover.
      double p = std::exp(z[i * c.v + v] - lse[i]) *
                 std::fabs(1 + 2 * c.zLoss * lse[i]);
      double e = duUnit * std::fabs(g) + duAbs +
                 (skipped[i * c.v + v] ? c.filter * std::fabs(wt[i]) : 0.0) +
                 std::fabs(wt[i]) * p * std::ldexp(double(c.d), -24) *
                     zAbs[i * c.v + v];
      gb[v] += g;
      sb[v] += e;
      for (int64_t j = 0; j < c.d; ++j) {
        double wv = w[v * c.d + j], hv = h[i * c.d + j];
        gh[i * c.d + j] += g * wv;
        gw[v * c.d + j] += g * hv;
        sh[i * c.d + j] += e * std::fabs(wv);
        sw[v * c.d + j] += e * std::fabs(hv);
      }
    }

  Args a;
  a.h = view2(hd, c.n, c.d);
  a.w = view2(wd, c.v, c.d);
  a.t = view1(td, c.n);
  a.lse = view1(lsed, c.n);
  a.dl1 = view1(dld, c.n);
  a.dl0 = view0(dld);
  a.b = view1(bd, c.v);
  void *ghd = poisoned(c.n * c.d, c.grads), *gwd = poisoned(c.v * c.d, c.grads),
       *gbd = poisoned(c.v, c.gradBias);
  int64_t groups = (c.v + 255) / 256;
  float *cmd = managed<float>(c.n * groups);
  for (int64_t i = 0; i < c.n; ++i)
    for (int64_t g = 0; g < groups; ++g) {
      double m = -INFINITY;
      for (int64_t v = 256 * g; v < std::min(c.v, 256 * (g + 1)); ++v)
        m = std::max(m, z[i * c.v + v]);
      cmd[i * groups + g] = float(m);
    }
  a.cm = view2(cmd, c.n, groups);
  int64_t *countsd = managed<int64_t>(3);
  countsd[0] = countsd[1] = countsd[2] = -7;
  a.gh = view2(ghd, c.n, c.d);
  a.gw = view2(gwd, c.v, c.d);
  a.gb = view1(gbd, c.v);
  a.counts = view1(countsd, c.classMax ? 3 : 2);
  call(a);
  if (softmaxRuntimeGetLastError()) {
    std::printf("%s: runtime error: %s\n", c.name,
                softmaxRuntimeGetLastErrorString());
    return 2;
  }
  bool ok = check("grad_hidden", ghd, c.grads, gh, sh);
  ok &= check("grad_classifier", gwd, c.grads, gw, sw);
  if (c.bias)
    ok &= check("grad_bias", gbd, c.gradBias, gb, sb);
  if (c.counts) {
    std::printf("  tiles %ld, filtered %ld (float64: %ld, %ld near the "
                "filter)\n",
                long(countsd[0]), long(countsd[1]), long(filtered),
                long(close));
    if (countsd[0] != tiles || std::labs(countsd[1] - filtered) > close) {
      std::printf("  counts differ: want %ld tiles\n", long(tiles));
      ok = false;
    }
    if (c.filter > 0 && (countsd[1] == 0 || countsd[1] == tiles)) {
      std::printf("  %s was filtered\n", countsd[1] ? "everything" : "nothing");
      ok = false;
    }
    if (c.classMax) {
      std::printf("  filtered before recomputing: %ld\n", long(countsd[2]));
      if (countsd[2] <= 0 || countsd[2] > countsd[1]) {
        std::printf("  want some, at most the filtered\n");
        ok = false;
      }
    }
  }
  std::printf("%s: %s\n", c.name, ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
} // namespace

extern "C" {
void _mlir_ciface_odd_exact(MemRef2 *, MemRef2 *, MemRef1 *, MemRef1 *,
                            MemRef1 *, MemRef1 *, MemRef2 *, MemRef2 *,
                            MemRef1 *, MemRef1 *);
void _mlir_ciface_f16_filter(MemRef2 *, MemRef2 *, MemRef1 *, MemRef1 *,
                             MemRef0 *, MemRef2 *, MemRef2 *, MemRef1 *);
void _mlir_ciface_bf16_bias(MemRef2 *, MemRef2 *, MemRef1 *, MemRef1 *,
                            MemRef0 *, MemRef1 *, MemRef2 *, MemRef2 *,
                            MemRef1 *, MemRef1 *);
void _mlir_ciface_one_sum(MemRef2 *, MemRef2 *, MemRef1 *, MemRef1 *,
                          MemRef0 *, MemRef2 *, MemRef2 *);
void _mlir_ciface_many_tokens(MemRef2 *, MemRef2 *, MemRef1 *, MemRef1 *,
                              MemRef0 *, MemRef2 *, MemRef2 *, MemRef1 *);
void _mlir_ciface_class_max(MemRef2 *, MemRef2 *, MemRef1 *, MemRef1 *,
                            MemRef0 *, MemRef2 *, MemRef2 *, MemRef2 *,
                            MemRef1 *);
void _mlir_ciface_class_max_plain(MemRef2 *, MemRef2 *, MemRef1 *, MemRef1 *,
                                  MemRef0 *, MemRef2 *, MemRef2 *, MemRef1 *);
}

int main() {
  std::printf("backend: %s\n", softmaxRuntimeGetBackendName());
  std::mt19937 rng(2026);
  int worst = 0;
  auto note = [&](int r) { worst = std::max(worst, r); };
  note(run({"odd_exact", 300, 72, 1031, Ty::BF16, Ty::F32, Ty::F32, true,
            false, 30.0, 1e-4, 8.0, 0.0, -100, 0, true},
           [](Args &a) {
             _mlir_ciface_odd_exact(&a.h, &a.w, &a.t, &a.lse, &a.dl1, &a.b,
                                    &a.gh, &a.gw, &a.gb, &a.counts);
           },
           rng));
  note(run({"f16_filter", 130, 128, 20000, Ty::F16, Ty::F16, Ty::F32, false,
            true, 0, 0, 16.0, std::ldexp(1.0, -15), 7, 2, true},
           [](Args &a) {
             _mlir_ciface_f16_filter(&a.h, &a.w, &a.t, &a.lse, &a.dl0, &a.gh,
                                     &a.gw, &a.counts);
           },
           rng));
  // 71 class tiles for 128 targets per token tile: tiles without a target
  // exist, and with peaked rows their gradients are under the filter.
  note(run({"bf16_bias", 256, 128, 9001, Ty::BF16, Ty::BF16, Ty::BF16, true,
            false, 0, 0, 24.0, std::ldexp(1.0, -12), -100, 2, true},
           [](Args &a) {
             _mlir_ciface_bf16_bias(&a.h, &a.w, &a.t, &a.lse, &a.dl0, &a.b,
                                    &a.gh, &a.gw, &a.gb, &a.counts);
           },
           rng));
  note(run({"one_sum", 7, 64, 1, Ty::BF16, Ty::BF16, Ty::F32, false, false, 0,
            0, 8.0, std::ldexp(1.0, -12), -100, 1, false},
           [](Args &a) {
             _mlir_ciface_one_sum(&a.h, &a.w, &a.t, &a.lse, &a.dl0, &a.gh,
                                  &a.gw);
           },
           rng));
  note(run({"many_tokens", 131200, 64, 40, Ty::BF16, Ty::BF16, Ty::F32,
            false, false, 0, 0, 8.0, 0.0, -100, 2, true},
           [](Args &a) {
             _mlir_ciface_many_tokens(&a.h, &a.w, &a.t, &a.lse, &a.dl0, &a.gh,
                                      &a.gw, &a.counts);
           },
           rng));
  // 157 groups of 256 classes for 128 targets per token tile: about 44%
  // of the groups hold no target of a tile, and with peaked rows class_max
  // bounds their tiles.
  // The same inputs without class_max first (a generator of its own):
  // what the filter alone does on them.
  Case plain{"class_max_plain", 256, 64, 40000, Ty::BF16, Ty::BF16, Ty::F32,
             false, false, 0, 0, 24.0, std::ldexp(1.0, -12), -100, 2, true};
  std::mt19937 same(7);
  note(run(plain,
           [](Args &a) {
             _mlir_ciface_class_max_plain(&a.h, &a.w, &a.t, &a.lse, &a.dl0,
                                          &a.gh, &a.gw, &a.counts);
           },
           same));
  Case cm = plain;
  cm.name = "class_max";
  cm.classMax = true;
  same.seed(7);
  note(run(cm,
           [](Args &a) {
             _mlir_ciface_class_max(&a.h, &a.w, &a.t, &a.lse, &a.dl0, &a.cm,
                                    &a.gh, &a.gw, &a.counts);
           },
           same));
  return worst;
}
