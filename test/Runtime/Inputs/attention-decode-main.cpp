// Driver for Inputs/attention-decode.mlir on a CUDA GPU: fills the query,
// the cache and a shuffled page table from a fixed seed (N(0, 1) values
// rounded to bf16), runs each function once into a NaN-poisoned output in
// managed memory, and checks every (entry, head) row against a float64
// reference: within 1e-2 relative (bf16 output), exactly 0 for the entry
// without keys. Prints one PASS or FAIL line per function, or the
// runtime's error and exits with 2.

#include "bf16.h"
#include "softmax-mlir/Runtime/SoftmaxRuntime.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

namespace {
constexpr int64_t B = 5, H = 8, HKV = 2, NK = 300, D = 64, PAGE = 16,
                  PAGES_PER_ENTRY = 19, PAGES = B * PAGES_PER_ENTRY;
const int32_t kLengths[B] = {0, 1, 65, 300, 131};
// The dense functions read every key of the cache.
const int32_t kFull[B] = {NK, NK, NK, NK, NK};

template <int Rank> struct MemRef {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[Rank];
  int64_t strides[Rank];
};

template <int Rank>
MemRef<Rank> view(void *data, std::initializer_list<int64_t> shape) {
  MemRef<Rank> m{data, data, 0, {}, {}};
  int i = 0;
  for (int64_t s : shape)
    m.sizes[i++] = s;
  int64_t stride = 1;
  for (int r = Rank - 1; r >= 0; --r) {
    m.strides[r] = stride;
    stride *= m.sizes[r];
  }
  return m;
}

template <typename T> T *managed(int64_t count) {
  return static_cast<T *>(
      mgpuMemAlloc(count * sizeof(T), nullptr, /*isHostShared=*/true));
}
} // namespace

using Q = MemRef<4>;
extern "C" void _mlir_ciface_stream_auto(Q *, Q *, Q *, MemRef<1> *, Q *);
extern "C" void _mlir_ciface_stream_3(Q *, Q *, Q *, MemRef<1> *, Q *);
extern "C" void _mlir_ciface_split_4(Q *, Q *, Q *, MemRef<1> *, Q *);
extern "C" void _mlir_ciface_paged_stream(Q *, Q *, Q *, MemRef<1> *,
                                          MemRef<2> *, Q *);
extern "C" void _mlir_ciface_mask_stream(Q *, Q *, Q *, Q *, MemRef<1> *, Q *);
extern "C" void _mlir_ciface_dense_tma(Q *, Q *, Q *, Q *);
extern "C" void _mlir_ciface_dense_tma_s7(Q *, Q *, Q *, Q *);
extern "C" void _mlir_ciface_dense_tma_empty(Q *, Q *, Q *, Q *);

int main() {
  std::printf("backend: %s\n", softmaxRuntimeGetBackendName());
  std::mt19937 rng(1234);
  std::normal_distribution<float> normal;
  auto *q = managed<uint16_t>(B * H * D);
  auto *k = managed<uint16_t>(B * HKV * NK * D);
  auto *v = managed<uint16_t>(B * HKV * NK * D);
  auto *kp = managed<uint16_t>(PAGES * PAGE * HKV * D);
  auto *vp = managed<uint16_t>(PAGES * PAGE * HKV * D);
  auto *len = managed<int32_t>(B);
  auto *table = managed<int32_t>(B * PAGES_PER_ENTRY);
  auto *o = managed<uint16_t>(B * H * D);
  auto *mask = managed<float>(B * H * NK);
  if (softmaxRuntimeGetLastError()) {
    std::printf("setup: runtime error %d: %s\n", softmaxRuntimeGetLastError(),
                softmaxRuntimeGetLastErrorString());
    return 2;
  }
  for (int64_t i = 0; i < B * H * D; ++i)
    q[i] = toBF16(normal(rng));
  for (int64_t i = 0; i < B * HKV * NK * D; ++i) {
    k[i] = toBF16(normal(rng));
    v[i] = toBF16(normal(rng));
  }
  std::copy(kLengths, kLengths + B, len);
  // An additive mask of N(0, 2) values: the masked reference adds it.
  for (int64_t i = 0; i < B * H * NK; ++i)
    mask[i] = 2.0f * normal(rng);
  // Pages at shuffled places; the cache rows past each entry's pages hold
  // garbage that must not be read (entries' keys past L are masked).
  std::vector<int32_t> perm(PAGES);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  for (int64_t i = 0; i < PAGES * PAGE * HKV * D; ++i)
    kp[i] = vp[i] = toBF16(1e4f);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t p = 0; p < PAGES_PER_ENTRY; ++p) {
      int32_t page = perm[b * PAGES_PER_ENTRY + p];
      table[b * PAGES_PER_ENTRY + p] = page;
      for (int64_t r = 0; r < PAGE && p * PAGE + r < NK; ++r)
        for (int64_t g = 0; g < HKV; ++g)
          for (int64_t c = 0; c < D; ++c) {
            int64_t src = ((b * HKV + g) * NK + p * PAGE + r) * D + c;
            int64_t dst = ((page * PAGE + r) * HKV + g) * D + c;
            kp[dst] = k[src];
            vp[dst] = v[src];
          }
    }

  // float64 reference, [B, H, D], with or without the mask.
  auto reference = [&](bool masked, const int32_t *lengths) {
    std::vector<double> ref(B * H * D, 0.0);
    for (int64_t b = 0; b < B; ++b)
      for (int64_t h = 0; h < H; ++h) {
        int64_t g = h / (H / HKV), n = lengths[b];
        if (n == 0)
          continue;
        std::vector<double> s(n);
        for (int64_t j = 0; j < n; ++j) {
          double dot = 0;
          for (int64_t c = 0; c < D; ++c)
            dot += fromBF16(q[(b * H + h) * D + c]) *
                   fromBF16(k[((b * HKV + g) * NK + j) * D + c]);
          s[j] = dot / std::sqrt(double(D)) +
                 (masked ? double(mask[(b * H + h) * NK + j]) : 0.0);
        }
        double m = *std::max_element(s.begin(), s.end()), l = 0;
        for (double &x : s)
          l += (x = std::exp(x - m));
        for (int64_t j = 0; j < n; ++j)
          for (int64_t c = 0; c < D; ++c)
            ref[(b * H + h) * D + c] +=
                s[j] / l * fromBF16(v[((b * HKV + g) * NK + j) * D + c]);
      }
    return ref;
  };
  std::vector<double> plain = reference(false, kLengths),
                      withMask = reference(true, kLengths),
                      full = reference(false, kFull);

  Q qm = view<4>(q, {B, H, 1, D}), om = view<4>(o, {B, H, 1, D});
  Q km = view<4>(k, {B, HKV, NK, D}), vm = view<4>(v, {B, HKV, NK, D});
  Q kpm = view<4>(kp, {PAGES, PAGE, HKV, D});
  Q vpm = view<4>(vp, {PAGES, PAGE, HKV, D});
  MemRef<1> lm = view<1>(len, {B});
  MemRef<2> tm = view<2>(table, {B, PAGES_PER_ENTRY});

  int failed = 0;
  auto check = [&](const char *name, const std::vector<double> &ref,
                   auto &&run, const int32_t *lengths = kLengths) {
    std::fill(o, o + B * H * D, uint16_t(0x7fc0)); // bf16 NaN
    run();
    if (softmaxRuntimeGetLastError()) {
      std::printf("%s: runtime error %d: %s\n", name,
                  softmaxRuntimeGetLastError(),
                  softmaxRuntimeGetLastErrorString());
      std::exit(2);
    }
    double worst = 0;
    bool ok = true;
    for (int64_t b = 0; b < B; ++b)
      for (int64_t h = 0; h < H; ++h) {
        double err = 0, norm = 0;
        for (int64_t c = 0; c < D; ++c) {
          double got = fromBF16(o[(b * H + h) * D + c]);
          double want = ref[(b * H + h) * D + c];
          if (std::isnan(got))
            ok = false;
          err += (got - want) * (got - want);
          norm += want * want;
        }
        if (lengths[b] == 0)
          ok = ok && err == 0;
        else
          worst = std::max(worst, std::sqrt(err / norm));
      }
    ok = ok && worst <= 1e-2;
    failed += !ok;
    std::printf("%s: %s (worst row rel err %.1e)\n", name, ok ? "PASS" : "FAIL",
                worst);
  };
  Q mm = view<4>(mask, {B, H, 1, NK});
  check("stream_auto", plain,
        [&] { _mlir_ciface_stream_auto(&qm, &km, &vm, &lm, &om); });
  check("stream_3", plain,
        [&] { _mlir_ciface_stream_3(&qm, &km, &vm, &lm, &om); });
  check("split_4", plain,
        [&] { _mlir_ciface_split_4(&qm, &km, &vm, &lm, &om); });
  check("paged_stream", plain,
        [&] { _mlir_ciface_paged_stream(&qm, &kpm, &vpm, &lm, &tm, &om); });
  check("mask_stream", withMask,
        [&] { _mlir_ciface_mask_stream(&qm, &km, &vm, &mm, &lm, &om); });
  check(
      "dense_tma", full, [&] { _mlir_ciface_dense_tma(&qm, &km, &vm, &om); },
      kFull);
  check(
      "dense_tma_s7", full,
      [&] { _mlir_ciface_dense_tma_s7(&qm, &km, &vm, &om); }, kFull);
  // No keys: every row is fully masked, so 0 (masked(zero)).
  static const int32_t kNone[B] = {0, 0, 0, 0, 0};
  Q km0 = view<4>(k, {B, HKV, 0, D}), vm0 = view<4>(v, {B, HKV, 0, D});
  check(
      "dense_tma_empty", std::vector<double>(B * H * D, 0.0),
      [&] { _mlir_ciface_dense_tma_empty(&qm, &km0, &vm0, &om); }, kNone);
  return failed ? 1 : 0;
}
