// The CPU top-k benchmark (bench/cpu/topk_build.sh builds it): softmax.topk
// on one thread, f32 rows of random normal * 3 (fixed seed), per (B, V, k):
//   ours    the one-read kernel (softmax-to-cpu, TopKToCPU.cpp)
//   ref     the reference decomposition (softmax-to-cpu vector-width=0:
//           the lse, then k selection passes over the row); k <= 50 only
//   unfused softmax of the row into a buffer, then std::partial_sort of the
//           indices by (probability descending, index ascending): the
//           two-step form the fused op replaces
// Median of the timed runs after one warm-up. Every output is checked
// against a float64 reference: indices exactly, probabilities within 2e-6
// relative (the unfused baseline: indices by value, 1e-5); a FAIL line and
// exit status 1 on a mismatch. Prints a markdown table.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

template <typename T> struct MemRef2D {
  T *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
};
template <typename T> static MemRef2D<T> view(T *p, int64_t r, int64_t c) {
  return {p, p, 0, {r, c}, {c, 1}};
}
using Fn = void (*)(MemRef2D<float> *, MemRef2D<float> *, MemRef2D<int64_t> *);
#define DECL(name)                                                             \
  extern "C" void _mlir_ciface_##name(MemRef2D<float> *, MemRef2D<float> *,   \
                                      MemRef2D<int64_t> *);
DECL(topk_ours_k1)
DECL(topk_ours_k50)
DECL(topk_ours_k1024)
DECL(topk_ref_k1)
DECL(topk_ref_k50)
DECL(topk_ref_k1024)

static void unfused(const float *x, int64_t b, int64_t v, int64_t k, float *p,
                    int64_t *idx) {
  std::vector<float> y(v);
  std::vector<int64_t> order(v);
  for (int64_t r = 0; r < b; ++r) {
    const float *row = x + r * v;
    float m = -INFINITY;
    for (int64_t i = 0; i < v; ++i)
      m = std::max(m, row[i]);
    // The sum in double, as a vectorized library's partial sums are close
    // to it (a single f32 sum of 128256 terms errs by 1e-5 and more).
    double l = 0;
    for (int64_t i = 0; i < v; ++i)
      l += (y[i] = std::exp(row[i] - m));
    float inv = float(1.0 / l);
    for (int64_t i = 0; i < v; ++i)
      y[i] *= inv;
    std::iota(order.begin(), order.end(), 0);
    int64_t kk = std::min(k, v);
    std::partial_sort(order.begin(), order.begin() + kk, order.end(),
                      [&](int64_t a, int64_t c) {
                        return y[a] > y[c] || (y[a] == y[c] && a < c);
                      });
    for (int64_t j = 0; j < k; ++j) {
      idx[r * k + j] = j < kk ? order[j] : -1;
      p[r * k + j] = j < kk ? y[order[j]] : 0.0f;
    }
  }
}

// Indices in the op's order (value descending, index ascending), and the
// probabilities in float64.
static bool check(const float *x, int64_t b, int64_t v, int64_t k,
                  const float *p, const int64_t *idx, bool exactOrder) {
  std::vector<int64_t> order(v);
  for (int64_t r = 0; r < b; ++r) {
    const float *row = x + r * v;
    double m = -INFINITY, l = 0;
    for (int64_t i = 0; i < v; ++i)
      m = std::max(m, double(row[i]));
    for (int64_t i = 0; i < v; ++i)
      l += std::exp(double(row[i]) - m);
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + k, order.end(),
                      [&](int64_t a, int64_t c) {
                        return row[a] > row[c] || (row[a] == row[c] && a < c);
                      });
    for (int64_t j = 0; j < k; ++j) {
      double ref = std::exp(double(row[order[j]]) - m) / l;
      // The unfused baseline ranks f32 probabilities, which can tie where
      // the inputs differ: its indices are checked by value.
      bool sameIdx = exactOrder ? idx[r * k + j] == order[j]
                                : row[idx[r * k + j]] == row[order[j]];
      double tol = exactOrder ? 2e-6 : 1e-5;
      if (!sameIdx || std::fabs(p[r * k + j] - ref) > tol * ref + 1e-30)
        return false;
    }
  }
  return true;
}

template <typename F> static double medianMs(F f, int reps) {
  f();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    auto a = std::chrono::steady_clock::now();
    f();
    auto c = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::milli>(c - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  struct Shape { int64_t b, v, k; Fn ours, ref; };
  const Shape shapes[] = {
      {8, 128256, 1, _mlir_ciface_topk_ours_k1, _mlir_ciface_topk_ref_k1},
      {8, 128256, 50, _mlir_ciface_topk_ours_k50, _mlir_ciface_topk_ref_k50},
      {8, 128256, 1024, _mlir_ciface_topk_ours_k1024, nullptr},
      {64, 32000, 50, _mlir_ciface_topk_ours_k50, _mlir_ciface_topk_ref_k50},
      {32, 151936, 50, _mlir_ciface_topk_ours_k50, _mlir_ciface_topk_ref_k50},
      {256, 50257, 50, _mlir_ciface_topk_ours_k50, nullptr},
  };
  std::mt19937_64 gen(15);
  std::normal_distribution<float> nd(0.0f, 3.0f);
  int failed = 0;
  std::printf("| B x V | k | ours ms | ref (k passes) ms | unfused ms | ours GB/s "
              "| ours / ref | ours / unfused |\n|---|---|---|---|---|---|---|---|\n");
  for (const Shape &s : shapes) {
    std::vector<float> x(s.b * s.v), p(s.b * s.k);
    std::vector<int64_t> idx(s.b * s.k);
    for (float &e : x)
      e = nd(gen);
    auto mx = view(x.data(), s.b, s.v);
    auto mp = view(p.data(), s.b, s.k);
    auto mi = view(idx.data(), s.b, s.k);
    int reps = 5;
    auto run = [&](const char *name, auto f, bool exactOrder) {
      std::fill(p.begin(), p.end(), NAN);
      double ms = medianMs(f, reps);
      if (!check(x.data(), s.b, s.v, s.k, p.data(), idx.data(), exactOrder)) {
        std::fprintf(stderr, "FAIL %s %lldx%lld k %lld\n", name, (long long)s.b,
                     (long long)s.v, (long long)s.k);
        ++failed;
      }
      return ms;
    };
    double ours = run("ours", [&] { s.ours(&mx, &mp, &mi); }, true);
    double ref = s.ref ? run("ref", [&] { s.ref(&mx, &mp, &mi); }, true) : 0;
    double un = run("unfused",
                    [&] { unfused(x.data(), s.b, s.v, s.k, p.data(), idx.data()); },
                    false);
    char refs[32] = "-", ratio[32] = "-";
    if (s.ref) {
      std::snprintf(refs, sizeof refs, "%.2f", ref);
      std::snprintf(ratio, sizeof ratio, "%.1fx", ref / ours);
    }
    std::printf("| %lldx%lld | %lld | %.2f | %s | %.2f | %.1f | %s | %.2fx |\n",
                (long long)s.b, (long long)s.v, (long long)s.k, ours, refs, un,
                s.b * s.v * 4 / ours / 1e6, ratio, un / ours);
  }
  return failed ? 1 : 0;
}
