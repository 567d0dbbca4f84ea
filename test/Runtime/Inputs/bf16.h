// bf16 <-> float for the GPU test drivers (softmax-streamed-main.cpp,
// topk-main.cpp, attention-decode-main.cpp): round to nearest even, NaN
// kept a quiet NaN; widening is exact.

#ifndef SOFTMAX_TEST_RUNTIME_BF16_H
#define SOFTMAX_TEST_RUNTIME_BF16_H

#include <cmath>
#include <cstdint>
#include <cstring>

namespace {
uint16_t toBF16(float f) {
  if (std::isnan(f))
    return 0x7fc0;
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7fff + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}
double fromBF16(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
} // namespace

#endif // SOFTMAX_TEST_RUNTIME_BF16_H
