// RUN: softmax-opt %s --softmax-map-to-gpu=chip=gfx942 -split-input-file -verify-diagnostics
// The CDNA mapping refuses what the MFMA kernel cannot honour with the same
// diagnostics as the NVIDIA one (one mapping, two matrix units).

func.func @attention_f32(%q: memref<1x1x4x16xf32>, %k: memref<1x1x8x16xf32>, %v: memref<1x1x8x16xf32>, %o: memref<1x1x4x16xf32>) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping runs on f16 or bf16 tensor cores (f32 attention is NVIDIA only: CDNA's MFMA end has no f32 path), not 'f32' inputs}}
  softmax.attention ins(%q, %k, %v : memref<1x1x4x16xf32>, memref<1x1x8x16xf32>, memref<1x1x8x16xf32>) outs(%o : memref<1x1x4x16xf32>) masked(zero)
  return
}

// -----

func.func @attention_value_dim(%q: memref<1x1x4x32xbf16>, %k: memref<1x1x8x32xbf16>, %v: memref<1x1x8x40xbf16>, %o: memref<1x1x4x40xbf16>) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping needs static head dimensions that are multiples of 16, from 16 to 256}}
  softmax.attention ins(%q, %k, %v : memref<1x1x4x32xbf16>, memref<1x1x8x32xbf16>, memref<1x1x8x40xbf16>) outs(%o : memref<1x1x4x40xbf16>) masked(zero)
  return
}

// -----

func.func @attention_strided(%q: memref<1x1x4x16xbf16, strided<[128, 128, 32, 1]>>, %k: memref<1x1x8x16xbf16>, %v: memref<1x1x8x16xbf16>, %o: memref<1x1x4x16xbf16>) {
  // expected-error @+1 {{'softmax.attention' op GPU mapping expects contiguous (identity layout) memrefs}}
  softmax.attention ins(%q, %k, %v : memref<1x1x4x16xbf16, strided<[128, 128, 32, 1]>>, memref<1x1x8x16xbf16>, memref<1x1x8x16xbf16>) outs(%o : memref<1x1x4x16xbf16>) masked(zero)
  return
}

// -----

// d = dv = 256: the K tile (64 x 260) and the transposed V tile (256 x 68)
// need 68096 bytes of LDS, more than a CDNA workgroup has.
func.func @attention_lds(%q: memref<1x1x64x256xbf16>, %k: memref<1x1x64x256xbf16>, %v: memref<1x1x64x256xbf16>, %o: memref<1x1x64x256xbf16>) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping needs 68096 bytes of shared memory per block for these head dimensions; gfx942 has 65536}}
  softmax.attention ins(%q, %k, %v : memref<1x1x64x256xbf16>, memref<1x1x64x256xbf16>, memref<1x1x64x256xbf16>) outs(%o : memref<1x1x64x256xbf16>) masked(zero)
  return
}
