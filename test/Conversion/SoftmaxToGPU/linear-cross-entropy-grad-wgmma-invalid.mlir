// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90a" -split-input-file -verify-diagnostics

// On sm_90a the gradient's tiles are 128 tokens x 256 classes: an op that
// names another filter tile is refused while the tile matters...
func.func @grad_tile(%h: memref<64x64xbf16>, %w: memref<1000x64xbf16>, %t: memref<64xi64>, %lse: memref<64xf32>, %dl: memref<f32>, %gh: memref<64x64xbf16>, %gw: memref<1000x64xbf16>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy_grad' op GPU kernel filters tiles of 128 tokens x 256 classes, not what the op names: token_tile(128) vocab_tile(128) (leave them out to take the kernel's, or use filter(0.0) without filter_counts)}}
  softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : memref<64x64xbf16>, memref<1000x64xbf16>, memref<64xi64>, memref<64xf32>, memref<f32>) outs(%gh, %gw : memref<64x64xbf16>, memref<1000x64xbf16>) reduction(mean) vocab_tile(128) token_tile(128)
  return
}

// -----

// ... and f32 inputs have no warpgroup kernel.
func.func @grad_f32(%h: memref<64x64xf32>, %w: memref<1000x64xf32>, %t: memref<64xi64>, %lse: memref<64xf32>, %dl: memref<f32>, %gh: memref<64x64xf32>, %gw: memref<1000x64xf32>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy_grad' op has no GPU kernel for 'f32' inputs on sm_90a (the linear cross-entropy's gradient runs f16 and bf16 on NVIDIA tensor cores; decompose it on tensors for the CPU)}}
  softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : memref<64x64xf32>, memref<1000x64xf32>, memref<64xi64>, memref<64xf32>, memref<f32>) outs(%gh, %gw : memref<64x64xf32>, memref<1000x64xf32>) reduction(mean)
  return
}

// -----

// Without a filter or counts the tile does not matter: taken.
func.func @grad_exact_tile(%h: memref<64x64xbf16>, %w: memref<1000x64xbf16>, %t: memref<64xi64>, %lse: memref<64xf32>, %dl: memref<f32>, %gh: memref<64x64xf32>, %gw: memref<1000x64xf32>) {
  softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : memref<64x64xbf16>, memref<1000x64xbf16>, memref<64xi64>, memref<64xf32>, memref<f32>) outs(%gh, %gw : memref<64x64xf32>, memref<1000x64xf32>) reduction(mean) filter(0.0) vocab_tile(128) token_tile(128)
  return
}
