// What the cross-entropy gradient filter costs in accuracy, computed on
// the CPU in float64 (logits in f32), on the GPU benchmark's inputs and on
// more peaked ones: for each threshold, the tiles (128 tokens x 256
// classes, the sm_90a kernel's) whose every |p - onehot| is below it are
// dropped, and grad_hidden's relative error against the unfiltered one is
// reported beside the probability mass the dropped tiles held.
//
//   c++ -O3 -march=native -fopenmp -o ce_filter_error ce_filter_error.cpp
//   ./ce_filter_error D V [sigma scale competitors zipf]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

int main(int argc, char **argv) {
  const int N = 128, tileV = 256;
  int D = argc > 1 ? atoi(argv[1]) : 2048;
  int V = argc > 2 ? atoi(argv[2]) : 256000;
  // The benchmark's generator (bench/gpu/bench_cross_entropy.py, inputs):
  // w ~ N(0, 1/D), h = 10 w[t] + N(0, 1). `sigma` scales the noise term,
  // `scale` the target term.
  double sigma = argc > 3 ? atof(argv[3]) : 1.0;
  double scale = argc > 4 ? atof(argv[4]) : 10.0;
  // Competitors: C other classes per token at logits scale - 1, scale -
  // 1.5, ... (the few alternatives a language model hesitates between),
  // so that the mass besides the target sits in a few classes instead of
  // the flat tail.
  int C = argc > 5 ? atoi(argv[5]) : 0;
  // Class ids drawn from Zipf's law of exponent `zipf` (0: uniform), as
  // token frequencies in a vocabulary numbered roughly by frequency (BPE
  // merge order): targets and competitors crowd the low ids.
  double zipf = argc > 6 ? atof(argv[6]) : 0.0;
  std::mt19937_64 rng(20261205);
  std::normal_distribution<float> g(0.f, 1.f);
  std::vector<float> W((size_t)V * D), H((size_t)N * D);
  float inv = 1.f / std::sqrt((float)D);
  for (auto &x : W)
    x = g(rng) * inv;
  std::vector<int> t(N);
  std::vector<double> cdf(V);
  for (int v = 0; v < V; ++v)
    cdf[v] = (v ? cdf[v - 1] : 0.0) + std::pow(v + 1.0, -zipf);
  std::uniform_real_distribution<double> unit(0.0, cdf[V - 1]);
  auto draw = [&]() {
    return (int)(std::lower_bound(cdf.begin(), cdf.end(), unit(rng)) -
                 cdf.begin());
  };
  for (int n = 0; n < N; ++n) {
    t[n] = draw();
    for (int d = 0; d < D; ++d)
      H[(size_t)n * D + d] =
          scale * W[(size_t)t[n] * D + d] + sigma * g(rng);
    for (int c = 0; c < C; ++c) {
      int other = draw();
      float a = scale - 1.0 - 0.5 * c;
      for (int d = 0; d < D; ++d)
        H[(size_t)n * D + d] += a * W[(size_t)other * D + d];
    }
    if (n % 17 == 0)
      t[n] = -100;
  }
  // Logits, f32 products (as the kernels' accumulators).
  std::vector<float> Z((size_t)N * V);
#pragma omp parallel for schedule(static)
  for (int v = 0; v < V; ++v)
    for (int n = 0; n < N; ++n) {
      const float *a = &H[(size_t)n * D], *b = &W[(size_t)v * D];
      float s = 0;
      for (int d = 0; d < D; ++d)
        s += a[d] * b[d];
      Z[(size_t)n * V + v] = s;
    }
  std::vector<double> lse(N);
  for (int n = 0; n < N; ++n) {
    double m = -INFINITY, l = 0;
    for (int v = 0; v < V; ++v)
      m = std::fmax(m, Z[(size_t)n * V + v]);
    for (int v = 0; v < V; ++v)
      l += std::exp(Z[(size_t)n * V + v] - m);
    lse[n] = m + std::log(l);
  }
  int kept = 0;
  for (int n = 0; n < N; ++n)
    kept += t[n] != -100;
  // g/w = p - onehot per entry; a tile's largest |g/w| decides it.
  int tiles = (V + tileV - 1) / tileV;
  std::vector<double> tileMax(tiles, 0.0);
  double meanPt = 0;
  for (int n = 0; n < N; ++n) {
    if (t[n] == -100)
      continue;
    meanPt += std::exp(Z[(size_t)n * V + t[n]] - lse[n]) / kept;
    for (int v = 0; v < V; ++v) {
      double p = std::exp(Z[(size_t)n * V + v] - lse[n]);
      double gw = std::fabs(p - (v == t[n] ? 1.0 : 0.0));
      tileMax[v / tileV] = std::fmax(tileMax[v / tileV], gw);
    }
  }
  std::printf("D %d V %d sigma %.2f scale %.1f competitors %d zipf %.2f: "
              "mean p(target) %.4f\n",
              D, V, sigma, scale, C, zipf, meanPt);
  const std::vector<double> eps = {0.0,
                                   std::ldexp(1.0, -16), std::ldexp(1.0, -14),
                                   std::ldexp(1.0, -13), std::ldexp(1.0, -12),
                                   std::ldexp(1.0, -10)};
  const int E = eps.size();
  std::vector<double> errSq(E, 0.0), dropped(E, 0.0), meanErrSq(E, 0.0);
  // A rank-one stand-in for each dropped tile: its mean g times the sum
  // of its classes' rows of W (what a filter could add back for the cost
  // of an N x tiles x D product): does the error live in the tiles' mean?
  std::vector<double> Wsum((size_t)tiles * D, 0.0);
  for (int v = 0; v < V; ++v)
    for (int d = 0; d < D; ++d)
      Wsum[(size_t)(v / tileV) * D + d] += W[(size_t)v * D + d];
  double refSq = 0;
  // Per token: each tile's part of grad_h (sum over its classes of g W_v),
  // added to the whole and to what each threshold drops.
#pragma omp parallel for schedule(dynamic)
  for (int n = 0; n < N; ++n) {
    if (t[n] == -100)
      continue;
    std::vector<double> full(D, 0.0), part(D);
    std::vector<std::vector<double>> drop(E, std::vector<double>(D, 0.0));
    std::vector<std::vector<double>> dropMean(E, std::vector<double>(D, 0.0));
    std::vector<double> mass(E, 0.0);
    for (int T = 0; T < tiles; ++T) {
      std::fill(part.begin(), part.end(), 0.0);
      double tileMass = 0, tileG = 0;
      int end = std::min(V, (T + 1) * tileV), width = end - T * tileV;
      for (int v = T * tileV; v < end; ++v) {
        double p = std::exp(Z[(size_t)n * V + v] - lse[n]);
        tileMass += p;
        double gv = p - (v == t[n] ? 1.0 : 0.0);
        tileG += gv;
        const float *w = &W[(size_t)v * D];
        for (int d = 0; d < D; ++d)
          part[d] += gv * w[d];
      }
      for (int d = 0; d < D; ++d)
        full[d] += part[d];
      for (int k = 0; k < E; ++k)
        if (tileMax[T] <= eps[k]) {
          mass[k] += tileMass;
          for (int d = 0; d < D; ++d) {
            drop[k][d] += part[d];
            dropMean[k][d] += part[d] - tileG / width * Wsum[(size_t)T * D + d];
          }
        }
    }
    double r = 0;
    for (int d = 0; d < D; ++d)
      r += full[d] * full[d];
#pragma omp critical
    {
      refSq += r;
      for (int k = 0; k < E; ++k) {
        dropped[k] += mass[k] / kept;
        for (int d = 0; d < D; ++d) {
          errSq[k] += drop[k][d] * drop[k][d];
          meanErrSq[k] += dropMean[k][d] * dropMean[k][d];
        }
      }
    }
  }
  std::printf("%-8s %10s %13s %14s %16s\n", "filter", "filtered",
              "dropped mass", "grad_h relerr", "with tile means");
  for (int k = 0; k < E; ++k) {
    int filtered = 0;
    for (double m : tileMax)
      filtered += m <= eps[k];
    if (eps[k] > 0)
      std::printf("2^%-6.0f", std::log2(eps[k]));
    else
      std::printf("%-8s", "0");
    std::printf(" %9.1f%% %13.4f %14.2e %16.2e\n", 100.0 * filtered / tiles,
                dropped[k], std::sqrt(errSq[k] / refSq),
                std::sqrt(meanErrSq[k] / refSq));
  }
  std::printf("1/sqrt(D) = %.2e (the norm of the dropped tail's mean "
              "direction, n/D)\n", 1 / std::sqrt((double)D));
  return 0;
}
