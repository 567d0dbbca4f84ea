// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90" -verify-diagnostics

// sm_90 has no warpgroup products (PTX gives wgmma to sm_90a only).
func.func @wgmma_on_sm90(%q: memref<1x32x4096x128xbf16>, %k: memref<1x32x4096x128xbf16>, %v: memref<1x32x4096x128xbf16>, %o: memref<1x32x4096x128xbf16>) {
  // expected-error @below {{asks for mma wgmma.m64nNk16, which runs on sm_90a with f16 or bf16 inputs (PTX offers wgmma to the arch-specific target only), not 'bf16' on sm_90}}
  softmax.attention ins(%q, %k, %v : memref<1x32x4096x128xbf16>, memref<1x32x4096x128xbf16>, memref<1x32x4096x128xbf16>) outs(%o : memref<1x32x4096x128xbf16>) masked(zero) causal {softmax.strategy = #softmax.attention_gpu_strategy<mma = wgmma.m64nNk16>}
  return
}
