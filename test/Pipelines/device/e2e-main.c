/* Driver of test/Pipelines/Inputs/gpu-e2e.mlir compiled by softmax-to-nvvm:
 * calls the generated host functions (which launch the kernels through
 * libsoftmax_cuda_runtime) and checks every result against float64.
 * Prints one line per function and "e2e: PASS" or "e2e: FAIL". */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

typedef struct { float *allocated, *aligned; int64_t offset, sizes[2], strides[2]; } MemRef2D;
typedef struct { float *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } MemRef1D;

void _mlir_ciface_small_softmax(MemRef2D *result);
void _mlir_ciface_split_softmax(MemRef2D *result);
void _mlir_ciface_lse_rows(MemRef1D *result);
int softmaxRuntimeGetLastError(void);

static const float kSmall[4][11] = {
    {0.5f, -1.25f, 3.0f, 2.0f, -0.75f, 1.5f, 0.25f, -2.0f, 1.0f, 0.0f, 2.5f},
    {1.0e4f, -1.0e4f, 9999.5f, 1.0e4f, -9999.0f, 9998.0f, 0.0f, -1.0f, 1.0f, 9997.0f, 10000.25f},
    {-INFINITY, 1.0f, -INFINITY, 2.0f, 3.0f, -INFINITY, -1.0f, 0.5f, -INFINITY, 4.0f, -3.0f},
    {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY,
     -INFINITY, -INFINITY, -INFINITY}};

/* The same formula, in the same float operations, as @wave. */
static float wave(int64_t i, int64_t j) {
  float w = (float)i * 0.37f + (float)j * 0.0123f;
  return sinf(w) * 8.0f;
}

/* max |y - ref| / max |ref| over a softmax row; reference in float64. */
static double softmaxRowError(const float *y, int64_t n, float (*x)(int64_t, int64_t),
                              int64_t row) {
  double m = -INFINITY, l = 0.0, err = 0.0, top = 0.0;
  for (int64_t j = 0; j < n; ++j) m = fmax(m, (double)x(row, j));
  for (int64_t j = 0; j < n; ++j) l += exp((double)x(row, j) - m);
  for (int64_t j = 0; j < n; ++j) {
    double r = exp((double)x(row, j) - m) / l;
    err = fmax(err, fabs(y[j] - r));
    top = fmax(top, r);
  }
  return err / top;
}

static float smallAt(int64_t i, int64_t j) { return kSmall[i][j]; }

int main(void) {
  int ok = 1;
  MemRef2D s;
  _mlir_ciface_small_softmax(&s);
  double worst = 0.0;
  for (int64_t i = 0; i < 3; ++i)
    worst = fmax(worst, softmaxRowError(s.aligned + i * s.strides[0], 11, smallAt, i));
  int nanRow = 1; /* linalg.softmax of an all -inf row is NaN (masked(nan)) */
  for (int64_t j = 0; j < 11; ++j) nanRow &= isnan(s.aligned[3 * s.strides[0] + j]) != 0;
  printf("small_softmax (raised linalg.softmax, 4x11): max rel err %.2e, all -inf row NaN: %s\n",
         worst, nanRow ? "yes" : "no");
  ok &= worst <= 1e-6 && nanRow;

  MemRef2D t;
  _mlir_ciface_split_softmax(&t);
  worst = 0.0;
  for (int64_t i = 0; i < 2; ++i)
    worst = fmax(worst, softmaxRowError(t.aligned + i * t.strides[0], 65536, wave, i));
  printf("split_softmax (2x65536, blocks per row): max rel err %.2e\n", worst);
  ok &= worst <= 1e-6;

  MemRef1D u;
  _mlir_ciface_lse_rows(&u);
  worst = 0.0;
  for (int64_t i = 0; i < 300; ++i) {
    double m = -INFINITY, l = 0.0;
    for (int64_t j = 0; j < 1000; ++j) m = fmax(m, (double)wave(i, j));
    for (int64_t j = 0; j < 1000; ++j) l += exp((double)wave(i, j) - m);
    double r = m + log(l);
    worst = fmax(worst, fabs(u.aligned[i] - r) / fmax(1.0, fabs(r)));
  }
  printf("lse_rows (exp_pair logsumexp, 300x1000): max rel err %.2e\n", worst);
  ok &= worst <= 1e-6;

  int rtErr = softmaxRuntimeGetLastError();
  printf("runtime errors: %d\n", rtErr);
  ok &= rtErr == 0;
  printf("e2e: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
