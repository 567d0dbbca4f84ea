// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90a" -split-input-file -verify-diagnostics

// A request for wgmma with 32 rows a warp cannot be honoured.
func.func @wgmma_32_rows(%q: memref<1x32x4096x128xbf16>, %k: memref<1x32x4096x128xbf16>, %v: memref<1x32x4096x128xbf16>, %o: memref<1x32x4096x128xbf16>) {
  // expected-error @below {{asks for mma wgmma.m64nNk16, which the GPU attention mapping runs only with 16 rows per warp in whole warpgroups of 4 warps}}
  softmax.attention ins(%q, %k, %v : memref<1x32x4096x128xbf16>, memref<1x32x4096x128xbf16>, memref<1x32x4096x128xbf16>) outs(%o : memref<1x32x4096x128xbf16>) masked(zero) causal {softmax.strategy = #softmax.attention_gpu_strategy<mma = wgmma.m64nNk16, rows_per_warp = 32, buffers = 2, tile_copy = tma>}
  return
}

