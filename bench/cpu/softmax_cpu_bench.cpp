// CPU softmax benchmark, one process, one thread, f32 rows (softmax over dim 1).
//
// Compares, on the same inputs:
//   ours      : softmax.softmax algorithm(three_pass | online | exp_pair),
//               compiled ahead of time (softmax-opt --softmax-to-cpu ->
//               mlir-translate -> clang -O3 -march=native), called through
//               _mlir_ciface_softmax_<algo>(MemRef2D*, MemRef2D*)
//   XNNPACK   : xnn_create/setup_softmax_nc_f32 + xnn_run_operator (no threadpool)
//   oneDNN    : softmax_v2_forward, algorithm::softmax_accurate, axis 1
//               (OMP_NUM_THREADS=1: the program re-executes itself to set it)
//   memcpy    : the same bytes read + written, the ceiling
//
// GB/s = (bytes read + bytes written) / time = 2 * rows * cols * 4 / median time.
// Every softmax output is checked against a float64 reference: per row,
// max|y - ref| / max|ref| <= 2e-6, else the program prints FAIL and exits 1.
//
// Build and run: bash bench/cpu/build.sh && build-bench/cpu/softmax_cpu_bench
// Options: --reps-scale F (multiply repetition counts), --quick (small shapes only)
// Exit status: 0 all outputs pass, 1 one of ours fails, 2 only a baseline fails.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include <dnnl.hpp>
#include <xnnpack.h>

struct MemRef2D {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
};

extern "C" {
void _mlir_ciface_softmax_three_pass(MemRef2D *x, MemRef2D *y);
void _mlir_ciface_softmax_online(MemRef2D *x, MemRef2D *y);
void _mlir_ciface_softmax_exp_pair(MemRef2D *x, MemRef2D *y);
}

namespace {

[[noreturn]] void die(const std::string &msg) {
  std::fprintf(stderr, "FATAL: %s\n", msg.c_str());
  std::fflush(stdout);
  std::exit(1);
}

float *alloc_f32(size_t n) {
  void *p = nullptr;
  if (posix_memalign(&p, 64, n * sizeof(float)) != 0)
    die("out of memory");
  return static_cast<float *>(p);
}

MemRef2D memref(float *p, int64_t rows, int64_t cols) {
  return MemRef2D{p, p, 0, {rows, cols}, {cols, 1}};
}

double now_s() {
  using clk = std::chrono::steady_clock;
  return std::chrono::duration<double>(clk::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Per-row max|y-ref|/max|ref| against a float64 reference; returns the worst
// row's value (NaN/Inf in y count as failure).
double check_softmax(const float *x, const float *y, int64_t rows,
                     int64_t cols, int64_t *bad_row) {
  std::vector<double> ref(cols);
  double worst = 0;
  *bad_row = -1;
  for (int64_t r = 0; r < rows; ++r) {
    const float *xr = x + r * cols;
    const float *yr = y + r * cols;
    double m = -INFINITY;
    for (int64_t c = 0; c < cols; ++c)
      m = std::max(m, (double)xr[c]);
    double s = 0;
    for (int64_t c = 0; c < cols; ++c) {
      ref[c] = std::exp((double)xr[c] - m);
      s += ref[c];
    }
    double maxref = 0, maxerr = 0;
    bool finite = true;
    for (int64_t c = 0; c < cols; ++c) {
      double rv = ref[c] / s;
      maxref = std::max(maxref, std::fabs(rv));
      if (!std::isfinite(yr[c]))
        finite = false;
      maxerr = std::max(maxerr, std::fabs((double)yr[c] - rv));
    }
    double rel = finite ? maxerr / maxref : INFINITY;
    if (!(rel <= worst)) {
      worst = rel;
      *bad_row = r;
    }
  }
  return worst;
}

struct Shape {
  int64_t rows, cols;
  int reps;
};

struct Result {
  std::string name;
  double gbps;
  double med_ms;
  double err; // worst per-row relative error (NaN for memcpy: compared exactly)
};

} // namespace

int main(int argc, char **argv) {
  // oneDNN here runs on GNU OpenMP, which reads OMP_NUM_THREADS when loaded:
  // set it and re-execute once so that every library runs on one thread.
  const char *omp = std::getenv("OMP_NUM_THREADS");
  if (!omp || std::string(omp) != "1") {
    setenv("OMP_NUM_THREADS", "1", 1);
    execv("/proc/self/exe", argv);
    die("execv /proc/self/exe failed");
  }

  double reps_scale = 1.0;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--reps-scale" && i + 1 < argc)
      reps_scale = std::atof(argv[++i]);
    else if (a == "--quick")
      quick = true;
    else
      die("unknown argument " + a + " (use --reps-scale F, --quick)");
  }

  std::vector<Shape> shapes = {{4096, 1024, 21}, {1024, 32768, 5}, {64, 1048576, 3}};
  if (quick)
    shapes = {{64, 1024, 5}, {8, 32768, 5}, {3, 1000, 5}};
  const double tol = 2e-6;

  if (xnn_initialize(nullptr) != xnn_status_success)
    die("xnn_initialize failed");
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);

  std::printf("softmax f32, rows softmax (dim 1), one thread, inputs N(0,1)*3; "
              "GB/s = 2*rows*cols*4 bytes / median time; check: per-row "
              "max|y-ref|/max|ref| <= %.0e vs float64\n", tol);
  std::printf("OMP_NUM_THREADS=%s, hardware threads=%u\n\n",
              std::getenv("OMP_NUM_THREADS"), std::thread::hardware_concurrency());

  bool ours_ok = true, baselines_ok = true;
  std::vector<std::string> failures;
  std::vector<std::pair<Shape, std::vector<Result>>> all;
  double t_start = now_s();

  for (const Shape &sh : shapes) {
    const int64_t rows = sh.rows, cols = sh.cols;
    const size_t n = (size_t)rows * cols;
    const double bytes = 2.0 * n * sizeof(float);
    const int reps = std::max(3, (int)std::lround(sh.reps * reps_scale));

    float *x = alloc_f32(n);
    float *y = alloc_f32(n);
    {
      std::mt19937_64 rng(1234 + rows * 7 + cols);
      std::normal_distribution<float> nd(0.0f, 1.0f);
      for (size_t i = 0; i < n; ++i)
        x[i] = 3.0f * nd(rng);
    }

    std::vector<Result> results;
    auto bench = [&](const std::string &name, const std::function<void()> &fn,
                     bool is_softmax) {
      // Poison the output so that an element the kernel never writes fails.
      std::fill(y, y + n, std::numeric_limits<float>::quiet_NaN());
      fn(); // warm-up, and the run that is checked
      double err = NAN;
      if (is_softmax) {
        int64_t bad = -1;
        err = check_softmax(x, y, rows, cols, &bad);
        if (!(err <= tol)) {
          std::printf("FAIL %s %lldx%lld: row %lld max|y-ref|/max|ref| = %.3e > %.0e\n",
                      name.c_str(), (long long)rows, (long long)cols,
                      (long long)bad, err, tol);
          (name.rfind("ours", 0) == 0 ? ours_ok : baselines_ok) = false;
          char buf[160];
          std::snprintf(buf, sizeof buf, "%s %lldx%lld (%.2e)", name.c_str(),
                        (long long)rows, (long long)cols, err);
          failures.push_back(buf);
        }
      } else if (std::memcmp(x, y, n * sizeof(float)) != 0) {
        std::printf("FAIL %s %lldx%lld: copy differs\n", name.c_str(),
                    (long long)rows, (long long)cols);
        baselines_ok = false;
        failures.push_back(name + " copy differs");
      }
      std::vector<double> ts;
      for (int r = 0; r < reps; ++r) {
        double t0 = now_s();
        fn();
        ts.push_back(now_s() - t0);
      }
      double med = median(ts);
      results.push_back({name, bytes / med / 1e9, med * 1e3, err});
      char errs[32];
      if (is_softmax)
        std::snprintf(errs, sizeof errs, "%.2e", err);
      else
        std::snprintf(errs, sizeof errs, "exact");
      std::printf("  %-16s %lldx%-8lld %8.3f ms  %7.2f GB/s  err %s  (%d reps)\n",
                  name.c_str(), (long long)rows, (long long)cols, med * 1e3,
                  bytes / med / 1e9, errs, reps);
      std::fflush(stdout);
    };

    std::printf("shape %lld x %lld (%.0f MiB in + %.0f MiB out)\n",
                (long long)rows, (long long)cols, n * 4.0 / (1 << 20),
                n * 4.0 / (1 << 20));

    // memcpy ceiling
    bench("memcpy", [&] { std::memcpy(y, x, n * sizeof(float)); }, false);

    // ours
    MemRef2D mx = memref(x, rows, cols), my = memref(y, rows, cols);
    bench("ours three_pass", [&] { _mlir_ciface_softmax_three_pass(&mx, &my); }, true);
    bench("ours online", [&] { _mlir_ciface_softmax_online(&mx, &my); }, true);
    bench("ours exp_pair", [&] { _mlir_ciface_softmax_exp_pair(&mx, &my); }, true);

    // XNNPACK
    {
      xnn_operator_t op = nullptr;
      if (xnn_create_softmax_nc_f32(cols, cols, cols, 0, &op) != xnn_status_success)
        die("xnn_create_softmax_nc_f32 failed");
      if (xnn_setup_softmax_nc_f32(op, rows, x, y, nullptr) != xnn_status_success)
        die("xnn_setup_softmax_nc_f32 failed");
      bench("XNNPACK", [&] {
        if (xnn_run_operator(op, nullptr) != xnn_status_success)
          die("xnn_run_operator failed");
      }, true);
      xnn_delete_operator(op);
    }

    // oneDNN
    {
      using tag = dnnl::memory::format_tag;
      using dt = dnnl::memory::data_type;
      dnnl::memory::desc md({rows, cols}, dt::f32, tag::ab);
      dnnl::softmax_v2_forward::desc d(dnnl::prop_kind::forward_inference,
                                       dnnl::algorithm::softmax_accurate, md,
                                       md, 1);
      dnnl::softmax_v2_forward::primitive_desc pd(d, eng);
      dnnl::softmax_v2_forward prim(pd);
      dnnl::memory src(md, eng, x), dst(md, eng, y);
      std::string impl = pd.impl_info_str();
      bench("oneDNN", [&] {
        prim.execute(strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
        strm.wait();
      }, true);
      results.back().name = "oneDNN";
      std::printf("  (oneDNN implementation: %s)\n", impl.c_str());
    }

    std::free(x);
    std::free(y);
    all.push_back({sh, results});
    std::printf("\n");
  }

  // Summary table (markdown).
  auto find = [](const std::vector<Result> &rs, const std::string &nm) -> double {
    for (const Result &r : rs)
      if (r.name == nm)
        return r.gbps;
    return NAN;
  };
  std::printf("| shape | impl | median ms | GB/s | max row err | ours/XNNPACK | ours/oneDNN | ours/memcpy |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|\n");
  for (auto &[sh, rs] : all) {
    double xnn = find(rs, "XNNPACK"), dnn = find(rs, "oneDNN"),
           cpy = find(rs, "memcpy");
    for (const Result &r : rs) {
      bool ours = r.name.rfind("ours", 0) == 0;
      char errs[32];
      if (std::isnan(r.err))
        std::snprintf(errs, sizeof errs, "exact");
      else
        std::snprintf(errs, sizeof errs, "%.2e", r.err);
      if (ours)
        std::printf("| %lldx%lld | %s | %.3f | %.2f | %s | %.3f | %.3f | %.3f |\n",
                    (long long)sh.rows, (long long)sh.cols, r.name.c_str(),
                    r.med_ms, r.gbps, errs, r.gbps / xnn, r.gbps / dnn,
                    r.gbps / cpy);
      else
        std::printf("| %lldx%lld | %s | %.3f | %.2f | %s | | | |\n",
                    (long long)sh.rows, (long long)sh.cols, r.name.c_str(),
                    r.med_ms, r.gbps, errs);
    }
  }
  std::printf("\ntotal time %.1f s\n", now_s() - t_start);
  for (const std::string &f : failures)
    std::printf("FAIL: %s exceeds %.0e\n", f.c_str(), tol);
  if (!ours_ok) {
    std::printf("RESULT: FAIL (our kernels exceeded the tolerance)\n");
    return 1;
  }
  if (!baselines_ok) {
    std::printf("RESULT: FAIL (ours within %.0e everywhere, but a baseline "
                "exceeded it, see FAIL lines)\n", tol);
    return 2;
  }
  std::printf("RESULT: PASS (every output within %.0e of the float64 reference)\n", tol);
  return 0;
}
