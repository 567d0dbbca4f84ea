// CPU softmax benchmark, one process, f32 rows (softmax over dim 1), each
// implementation on 1 thread and on all threads.
//
// Compares, on the same inputs:
//   ours      : softmax.softmax algorithm(three_pass | online | exp_pair), three_pass
//               in two variants (recompute: pass 3 recomputes exp; reload: pass 2
//               stores the exps into y, pass 3 rescales y), compiled ahead of time
//               (softmax-opt --softmax-to-cpu{threads=1|0 ...} -> mlir-translate ->
//               clang -O3 -march=native), called through
//               _mlir_ciface_softmax_<variant>_t1 / _tall(MemRef2D*, MemRef2D*)
//   XNNPACK   : xnn_create/setup_softmax_nc_f32 + xnn_run_operator, without a
//               threadpool (1 thread) or with a pthreadpool of all threads
//   oneDNN    : softmax_v2_forward, algorithm::softmax_accurate, axis 1, on the
//               OpenMP runtime, its thread count set by omp_set_num_threads
//   memcpy    : the same bytes read + written, the ceiling (all threads: the copy
//               split into one contiguous chunk per std::thread)
//
// GB/s = (bytes read + bytes written) / time = 2 * rows * cols * 4 / median time.
// Every softmax output is checked against a float64 reference: per row,
// max|y - ref| / max|ref| <= 2e-6, else the program prints FAIL.
//
// Build and run: bash bench/cpu/build.sh && build-bench/cpu/softmax_cpu_bench
// Options: --reps-scale F (multiply repetition counts), --quick (small shapes
// only), --only SUBSTR (only the variants whose name contains SUBSTR; repeatable;
// memcpy always runs), --threads N ("all threads" = N; default: the processors
// OpenMP may use).
// Exit status: 0 all outputs pass, 1 one of ours fails, 2 only a baseline fails.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dlfcn.h>
#include <functional>
#include <limits>
#include <link.h>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <dnnl.hpp>
#include <omp.h>
#include <pthreadpool.h>
#include <xnnpack.h>

struct MemRef2D {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
};

using Kernel = void (*)(MemRef2D *, MemRef2D *);

// Weak, so that the binary links when build.sh could not build a variant (an
// older softmax-opt without the threads= / three-pass= options): its address is
// then null and the benchmark reports it as not built.
#define OUR_KERNELS(V)                                                         \
  extern "C" void _mlir_ciface_softmax_##V##_t1(MemRef2D *, MemRef2D *)        \
      __attribute__((weak));                                                   \
  extern "C" void _mlir_ciface_softmax_##V##_tall(MemRef2D *, MemRef2D *)      \
      __attribute__((weak));
OUR_KERNELS(three_pass_recompute)
OUR_KERNELS(three_pass_reload)
OUR_KERNELS(three_pass_tiled)
OUR_KERNELS(online)
OUR_KERNELS(exp_pair)

namespace {

struct OurVariant {
  const char *name;
  Kernel t1, tall;
};
#define OUR_VARIANT(V)                                                         \
  OurVariant{#V, _mlir_ciface_softmax_##V##_t1, _mlir_ciface_softmax_##V##_tall}
const OurVariant kOurs[] = {OUR_VARIANT(three_pass_recompute),
                            OUR_VARIANT(three_pass_reload),
                            OUR_VARIANT(three_pass_tiled), OUR_VARIANT(online),
                            OUR_VARIANT(exp_pair)};

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

// CPU time of all threads of the process: CPU time / wall time over the timed
// runs shows how many threads a variant really kept busy (spinning included),
// which checks the thread control without trusting the timing.
double cpu_s() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The float64 softmax of x, computed once per shape and compared against every
// output (the comparison is then a cheap pass, not an exp per element).
struct Reference {
  std::vector<double> y;      // rows * cols
  std::vector<double> maxabs; // per row max|ref|
};

Reference reference(const float *x, int64_t rows, int64_t cols) {
  Reference ref;
  ref.y.resize((size_t)rows * cols);
  ref.maxabs.resize(rows);
  for (int64_t r = 0; r < rows; ++r) {
    const float *xr = x + r * cols;
    double *yr = ref.y.data() + (size_t)r * cols;
    double m = -INFINITY;
    for (int64_t c = 0; c < cols; ++c)
      m = std::max(m, (double)xr[c]);
    double s = 0;
    for (int64_t c = 0; c < cols; ++c) {
      yr[c] = std::exp((double)xr[c] - m);
      s += yr[c];
    }
    double mx = 0;
    for (int64_t c = 0; c < cols; ++c) {
      yr[c] /= s;
      mx = std::max(mx, std::fabs(yr[c]));
    }
    ref.maxabs[r] = mx;
  }
  return ref;
}

// Per-row max|y-ref|/max|ref|; returns the worst row's value (NaN/Inf in y
// count as failure).
double check_softmax(const Reference &ref, const float *y, int64_t rows,
                     int64_t cols, int64_t *bad_row) {
  double worst = 0;
  *bad_row = -1;
  for (int64_t r = 0; r < rows; ++r) {
    const float *yr = y + r * cols;
    const double *rr = ref.y.data() + (size_t)r * cols;
    double maxerr = 0;
    bool finite = true;
    for (int64_t c = 0; c < cols; ++c) {
      if (!std::isfinite(yr[c]))
        finite = false;
      maxerr = std::max(maxerr, std::fabs((double)yr[c] - rr[c]));
    }
    double rel = finite ? maxerr / ref.maxabs[r] : INFINITY;
    if (!(rel <= worst)) {
      worst = rel;
      *bad_row = r;
    }
  }
  return worst;
}

// memcpy on N threads: one contiguous chunk per thread, chunk boundaries on
// 64-byte lines so that no two threads write the same cache line. The workers
// live as long as the team and spin between copies, like the OpenMP and
// pthreadpool workers of the other runs: starting threads per copy would cost
// tens of microseconds, a tenth of a 4096x1024 copy, and lower the ceiling.
class CopyTeam {
public:
  explicit CopyTeam(int nthreads) : n_(nthreads) {
    for (int t = 1; t < n_; ++t)
      workers_.emplace_back([this, t] { work(t); });
  }
  ~CopyTeam() {
    stop_.store(true, std::memory_order_relaxed);
    gen_.fetch_add(1, std::memory_order_release);
    for (std::thread &w : workers_)
      w.join();
  }
  void copy(float *dst, const float *src, size_t len) {
    dst_ = dst;
    src_ = src;
    len_ = len;
    done_.store(0, std::memory_order_relaxed);
    gen_.fetch_add(1, std::memory_order_release);
    chunk(0);
    while (done_.load(std::memory_order_acquire) != n_ - 1)
      __builtin_ia32_pause();
  }

private:
  void chunk(int t) {
    size_t per = (len_ + n_ - 1) / n_;
    per = (per + 15) / 16 * 16;
    size_t b = std::min(len_, t * per), e = std::min(len_, b + per);
    if (b < e)
      std::memcpy(dst_ + b, src_ + b, (e - b) * sizeof(float));
  }
  void work(int t) {
    uint64_t seen = 0;
    for (;;) {
      uint64_t g;
      while ((g = gen_.load(std::memory_order_acquire)) == seen)
        __builtin_ia32_pause();
      seen = g;
      if (stop_.load(std::memory_order_relaxed))
        return;
      chunk(t);
      done_.fetch_add(1, std::memory_order_release);
    }
  }
  const int n_;
  std::vector<std::thread> workers_;
  std::atomic<uint64_t> gen_{0};
  std::atomic<int> done_{0};
  std::atomic<bool> stop_{false};
  float *dst_ = nullptr;
  const float *src_ = nullptr;
  size_t len_ = 0;
};

// The other load on a shared machine, which the all-threads runs feel most.
std::string loadavg() {
  char buf[128] = "(unknown)\n";
  if (FILE *f = std::fopen("/proc/loadavg", "r")) {
    if (!std::fgets(buf, sizeof buf, f))
      std::strcpy(buf, "(unknown)\n");
    std::fclose(f);
  }
  std::string s = buf;
  if (!s.empty() && s.back() == '\n')
    s.pop_back();
  return s;
}

std::string lib_of(void *sym) {
  Dl_info di;
  if (!sym)
    return "(unresolved)";
  if (!dladdr(sym, &di) || !di.dli_fname)
    return "(unknown)";
  char buf[4096];
  return realpath(di.dli_fname, buf) ? std::string(buf) : std::string(di.dli_fname);
}

// Which OpenMP runtimes are mapped, and where the entry points of oneDNN
// (GOMP_parallel, omp_get_max_threads, versioned as in libgomp), of our threaded
// kernels (__kmpc_fork_call) and of this program (omp_set_num_threads) resolve.
// oneDNN follows omp_set_num_threads only when all of them are the same runtime.
bool report_openmp() {
  std::vector<std::string> libs;
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *p) {
        std::string nm = info->dlpi_name ? info->dlpi_name : "";
        if (nm.find("omp") != std::string::npos) {
          char buf[4096];
          static_cast<std::vector<std::string> *>(p)->push_back(
              nm + (realpath(nm.c_str(), buf) ? std::string(" -> ") + buf : ""));
        }
        return 0;
      },
      &libs);
  std::printf("OpenMP libraries mapped:");
  for (const std::string &l : libs)
    std::printf(" [%s]", l.c_str());
  std::string gomp = lib_of(dlvsym(RTLD_DEFAULT, "GOMP_parallel", "GOMP_4.0"));
  std::string gmax = lib_of(dlvsym(RTLD_DEFAULT, "omp_get_max_threads", "OMP_1.0"));
  std::string kmpc = lib_of(dlsym(RTLD_DEFAULT, "__kmpc_fork_call"));
  std::string self = lib_of(reinterpret_cast<void *>(&omp_set_num_threads));
  std::printf("\n  GOMP_parallel@GOMP_4.0 (oneDNN) -> %s\n"
              "  omp_get_max_threads@OMP_1.0 (oneDNN) -> %s\n"
              "  __kmpc_fork_call (ours) -> %s\n"
              "  omp_set_num_threads (this program) -> %s\n",
              gomp.c_str(), gmax.c_str(), kmpc.c_str(), self.c_str());
  bool one = gomp == self && gmax == self && kmpc == self;
  if (!one)
    std::printf("WARNING: more than one OpenMP runtime answers: oneDNN's thread "
                "count may not follow omp_set_num_threads\n");
  return one;
}

struct Shape {
  int64_t rows, cols;
  int reps;
};

struct Result {
  std::string impl; // "ours online", "XNNPACK", ...
  bool all;         // all threads (else 1)
  int nthreads;     // threads the implementation was told to use
  double gbps, med_ms;
  double err; // worst per-row relative error (NaN for memcpy: compared exactly)
  double busy; // CPU time / wall time over the timed runs
  bool ours() const { return impl.rfind("ours", 0) == 0; }
};

std::string fmt(const char *f, double v) {
  if (!std::isfinite(v))
    return "n/a";
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

} // namespace

int main(int argc, char **argv) {
  double reps_scale = 1.0;
  bool quick = false;
  int nall = omp_get_num_procs();
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--reps-scale" && i + 1 < argc)
      reps_scale = std::atof(argv[++i]);
    else if (a == "--quick")
      quick = true;
    else if (a == "--only" && i + 1 < argc)
      only.push_back(argv[++i]);
    else if (a == "--threads" && i + 1 < argc)
      nall = std::atoi(argv[++i]);
    else
      die("unknown argument " + a +
          " (use --reps-scale F, --quick, --only SUBSTR, --threads N)");
  }
  if (nall < 1)
    die("--threads must be >= 1");
  auto selected = [&](const std::string &name) {
    if (only.empty())
      return true;
    for (const std::string &s : only)
      if (name.find(s) != std::string::npos)
        return true;
    return false;
  };

  std::vector<Shape> shapes = {{4096, 1024, 21}, {1024, 32768, 5}, {64, 1048576, 3}};
  if (quick)
    shapes = {{64, 1024, 5}, {8, 32768, 5}, {3, 1000, 5}};
  const double tol = 2e-6;

  if (xnn_initialize(nullptr) != xnn_status_success)
    die("xnn_initialize failed");
  pthreadpool_t pool = pthreadpool_create(nall);
  if (!pool)
    die("pthreadpool_create failed");
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);

  const char *omp_env = std::getenv("OMP_NUM_THREADS");
  std::printf("softmax f32, rows softmax (dim 1), inputs N(0,1)*3; GB/s = "
              "2*rows*cols*4 bytes / median time; check: per-row "
              "max|y-ref|/max|ref| <= %.0e vs float64\n", tol);
  std::printf("all threads = %d (hardware threads %u, omp_get_num_procs %d, "
              "omp_get_max_threads at start %d, OMP_NUM_THREADS=%s, "
              "pthreadpool threads %zu)\n",
              nall, std::thread::hardware_concurrency(), omp_get_num_procs(),
              omp_get_max_threads(), omp_env ? omp_env : "(unset)",
              pthreadpool_get_threads_count(pool));
  report_openmp();
  std::printf("load average at start: %s\n\n", loadavg().c_str());

  bool ours_ok = true, baselines_ok = true;
  std::vector<std::string> failures;
  std::vector<std::pair<Shape, std::vector<Result>>> all;
  double t_start = now_s();
  // Idle OpenMP workers spin for KMP_BLOCKTIME (200 ms by default) and
  // pthreadpool workers spin a while too before they sleep: after a variant
  // that used a pool, wait so that its spinning threads do not take cores from
  // the next variant.
  bool pool_may_spin = false;
  auto settle = [&] {
    if (pool_may_spin)
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    pool_may_spin = false;
  };

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
    const Reference ref = reference(x, rows, cols);

    std::vector<Result> results;
    // Runs one variant: `threads` is what it is told to use (omp_set_num_threads
    // is set to it, which only the OpenMP users read), `uses_pool` whether it
    // leaves spinning workers behind.
    auto bench = [&](const std::string &impl, bool all_threads, int threads,
                     bool uses_pool, const std::function<void()> &fn,
                     bool is_softmax) {
      std::string name = impl + (all_threads ? " tall" : " t1");
      if (impl != "memcpy" && !selected(name))
        return;
      settle();
      omp_set_num_threads(threads);
      // Poison the output so that an element the kernel never writes fails.
      std::fill(y, y + n, std::numeric_limits<float>::quiet_NaN());
      fn(); // warm-up, and the run that is checked
      double err = NAN;
      if (is_softmax) {
        int64_t bad = -1;
        err = check_softmax(ref, y, rows, cols, &bad);
        if (!(err <= tol)) {
          std::printf("FAIL %s %lldx%lld: row %lld max|y-ref|/max|ref| = %.3e > %.0e\n",
                      name.c_str(), (long long)rows, (long long)cols,
                      (long long)bad, err, tol);
          (impl.rfind("ours", 0) == 0 ? ours_ok : baselines_ok) = false;
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
      double c0 = cpu_s(), w0 = now_s();
      for (int r = 0; r < reps; ++r) {
        double t0 = now_s();
        fn();
        ts.push_back(now_s() - t0);
      }
      double busy = (cpu_s() - c0) / (now_s() - w0);
      pool_may_spin = uses_pool;
      double med = median(ts);
      results.push_back({impl, all_threads, threads, bytes / med / 1e9, med * 1e3, err, busy});
      std::string errs = is_softmax ? fmt("%.2e", err) : "exact";
      std::printf("  %-32s %2d thr %lldx%-8lld %9.3f ms  %7.2f GB/s  err %-8s  cpu/wall %.2f  (%d reps, omp_get_max_threads %d)\n",
                  name.c_str(), threads, (long long)rows, (long long)cols,
                  med * 1e3, bytes / med / 1e9, errs.c_str(), busy, reps,
                  omp_get_max_threads());
      if (threads > 1 && med * reps > 5e-3 && busy < 0.75 * threads)
        std::printf("  ^ only %.2f of %d threads busy: other load on the machine, "
                    "or the implementation leaves threads idle\n", busy, threads);
      std::fflush(stdout);
    };

    std::printf("shape %lld x %lld (%.0f MiB in + %.0f MiB out)\n",
                (long long)rows, (long long)cols, n * 4.0 / (1 << 20),
                n * 4.0 / (1 << 20));

    MemRef2D mx = memref(x, rows, cols), my = memref(y, rows, cols);
    using tag = dnnl::memory::format_tag;
    using dt = dnnl::memory::data_type;
    dnnl::memory::desc md({rows, cols}, dt::f32, tag::ab);
    dnnl::memory dsrc(md, eng, x), ddst(md, eng, y);
    xnn_operator_t xop = nullptr;
    if (xnn_create_softmax_nc_f32(cols, cols, cols, 0, &xop) != xnn_status_success)
      die("xnn_create_softmax_nc_f32 failed");

    for (bool at : {false, true}) {
      const int T = at ? nall : 1;
      {
        // The team exists only for its own run, so its spinning workers take
        // no core from the others.
        std::unique_ptr<CopyTeam> team(at ? new CopyTeam(T) : nullptr);
        bench("memcpy", at, T, false, [&] {
          if (team)
            team->copy(y, x, n);
          else
            std::memcpy(y, x, n * sizeof(float));
        }, false);
      }

      for (const OurVariant &v : kOurs) {
        std::string impl = std::string("ours ") + v.name;
        Kernel k = at ? v.tall : v.t1;
        if (!k) {
          if (selected(impl + (at ? " tall" : " t1")))
            std::printf("  %-32s SKIP: not built (this softmax-opt lacks the "
                        "pipeline options it needs, see build.sh)\n",
                        (impl + (at ? " tall" : " t1")).c_str());
          continue;
        }
        bench(impl, at, T, at, [&, k] { k(&mx, &my); }, true);
      }

      pthreadpool_t tp = at ? pool : nullptr;
      if (xnn_setup_softmax_nc_f32(xop, rows, x, y, tp) != xnn_status_success)
        die("xnn_setup_softmax_nc_f32 failed");
      bench("XNNPACK", at, T, at, [&] {
        if (xnn_run_operator(xop, tp) != xnn_status_success)
          die("xnn_run_operator failed");
      }, true);

      // oneDNN keys its primitives on the thread count at creation: create it
      // after setting the count it will run with.
      if (selected(std::string("oneDNN") + (at ? " tall" : " t1"))) {
        omp_set_num_threads(T);
        dnnl::softmax_v2_forward::desc d(dnnl::prop_kind::forward_inference,
                                         dnnl::algorithm::softmax_accurate, md,
                                         md, 1);
        dnnl::softmax_v2_forward::primitive_desc pd(d, eng);
        dnnl::softmax_v2_forward prim(pd);
        bench("oneDNN", at, T, at, [&] {
          prim.execute(strm, {{DNNL_ARG_SRC, dsrc}, {DNNL_ARG_DST, ddst}});
          strm.wait();
        }, true);
        std::printf("  (oneDNN implementation: %s)\n", pd.impl_info_str());
      }
    }
    xnn_delete_operator(xop);

    std::free(x);
    std::free(y);
    all.push_back({sh, results});
    std::printf("\n");
  }
  pthreadpool_destroy(pool);

  auto find = [](const std::vector<Result> &rs, const std::string &impl,
                 bool at) -> const Result * {
    for (const Result &r : rs)
      if (r.impl == impl && r.all == at)
        return &r;
    return nullptr;
  };
  auto gbps = [&](const std::vector<Result> &rs, const std::string &impl, bool at) {
    const Result *r = find(rs, impl, at);
    return r ? r->gbps : NAN;
  };
  auto best_ours = [](const std::vector<Result> &rs, bool at) -> const Result * {
    const Result *b = nullptr;
    for (const Result &r : rs)
      if (r.ours() && r.all == at && (!b || r.gbps > b->gbps))
        b = &r;
    return b;
  };

  // Every run (markdown).
  std::printf("| shape | threads | impl | median ms | GB/s | max row err | /memcpy | cpu/wall |\n");
  std::printf("|---|---:|---|---:|---:|---:|---:|---:|\n");
  for (auto &[sh, rs] : all)
    for (const Result &r : rs)
      std::printf("| %lldx%lld | %d | %s | %.3f | %.2f | %s | %.3f | %.2f |\n",
                  (long long)sh.rows, (long long)sh.cols, r.nthreads,
                  r.impl.c_str(), r.med_ms, r.gbps,
                  std::isnan(r.err) ? "exact" : fmt("%.2e", r.err).c_str(),
                  r.gbps / gbps(rs, "memcpy", r.all), r.busy);

  // Summary (markdown): ratios of throughputs (GB/s), > 1 means the numerator is
  // faster. three_pass(best) is the fastest of recompute, reload and tiled;
  // scaling is our best on all threads over our best on 1 thread.
  std::printf("\n| shape | threads | ours best | GB/s | ours/XNNPACK | ours/oneDNN | "
              "ours/memcpy | exp_pair/three_pass(recompute) | "
              "exp_pair/three_pass(best) | scaling %d thr/1 thr |\n", nall);
  std::printf("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (auto &[sh, rs] : all) {
    for (bool at : {false, true}) {
      const Result *b = best_ours(rs, at);
      double ep = gbps(rs, "ours exp_pair", at);
      double rc = gbps(rs, "ours three_pass_recompute", at);
      double tp = NAN;
      for (const char *v : {"ours three_pass_recompute", "ours three_pass_reload",
                            "ours three_pass_tiled"}) {
        double g = gbps(rs, v, at);
        if (!std::isnan(g) && (std::isnan(tp) || g > tp))
          tp = g;
      }
      double bg = b ? b->gbps : NAN;
      std::string scaling;
      if (at) {
        const Result *b1 = best_ours(rs, false);
        scaling = fmt("%.2f", b1 ? bg / b1->gbps : NAN);
      }
      std::printf("| %lldx%lld | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n",
                  (long long)sh.rows, (long long)sh.cols, at ? nall : 1,
                  b ? b->impl.substr(5).c_str() : "n/a", fmt("%.2f", bg).c_str(),
                  fmt("%.3f", bg / gbps(rs, "XNNPACK", at)).c_str(),
                  fmt("%.3f", bg / gbps(rs, "oneDNN", at)).c_str(),
                  fmt("%.3f", bg / gbps(rs, "memcpy", at)).c_str(),
                  fmt("%.3f", ep / rc).c_str(), fmt("%.3f", ep / tp).c_str(),
                  scaling.c_str());
    }
  }

  std::printf("\ntotal time %.1f s, load average at end: %s\n", now_s() - t_start,
              loadavg().c_str());
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
