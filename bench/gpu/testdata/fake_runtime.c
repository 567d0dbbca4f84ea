/* Host-only stand-in for libsoftmax_cuda_runtime.so, for testing
 * bench_softmax.py --device cpu without a GPU (see cpu_selftest.sh). */
#include <stdint.h>
#include <stdio.h>

static int lastError;
static char lastMessage[256];
static void *stream;

void softmaxRuntimeSetStream(void *s) { stream = s; }
void *softmaxRuntimeGetStream(void) { return stream; }
int softmaxRuntimeGetLastError(void) { return lastError; }
const char *softmaxRuntimeGetLastErrorString(void) { return lastMessage; }
void softmaxRuntimeClearLastError(void) { lastError = 0; lastMessage[0] = 0; }
/* Test hook: records an error as a failing driver call would. */
void fakeRuntimeRecordError(int code, const char *what) {
  lastError = code;
  snprintf(lastMessage, sizeof lastMessage, "%s: CUDA_ERROR_FAKE", what);
  fprintf(stderr, "%s\n", lastMessage);
}
