// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90" -split-input-file -verify-diagnostics
// RUN: not softmax-opt %s --softmax-map-to-gpu="chip=gfx942" -split-input-file 2>&1 | FileCheck %s --check-prefix=CDNA
// RUN: not softmax-opt %s --softmax-to-nvvm="chip=sm_90" -split-input-file 2>&1 | FileCheck %s --check-prefix=PIPELINE

// What the GPU mapping of the fused linear cross-entropy cannot honour, each
// with its reason; nothing is computed another way.

// The tensor cores take f16 and bf16; f32 inputs have no kernel.
func.func @f32(%h: memref<64x64xf32>, %w: memref<1000x64xf32>, %t: memref<64xi64>, %l: memref<f32>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy' op has no GPU kernel for 'f32' inputs on sm_90 (the fused linear cross-entropy runs f16 and bf16 on NVIDIA tensor cores and CDNA matrix cores; decompose it on tensors for the CPU)}}
  softmax.linear_cross_entropy ins(%h, %w, %t : memref<64x64xf32>, memref<1000x64xf32>, memref<64xi64>) outs(%l : memref<f32>) reduction(mean)
  return
}

// -----

// Rows are copied 16 bytes at a time: D must be a multiple of 8 bf16.
func.func @unaligned(%h: memref<64x12xbf16>, %w: memref<1000x12xbf16>, %t: memref<64xi64>, %l: memref<f32>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy' op GPU mapping copies rows in 16-byte pieces: a hidden size of 12 'bf16' elements is not a multiple of 8}}
  softmax.linear_cross_entropy ins(%h, %w, %t : memref<64x12xbf16>, memref<1000x12xbf16>, memref<64xi64>) outs(%l : memref<f32>) reduction(mean)
  return
}

// -----

func.func @dynamic_features(%h: memref<64x?xbf16>, %w: memref<1000x?xbf16>, %t: memref<64xi64>, %l: memref<f32>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy' op GPU mapping needs a static hidden size (D), which its shared-memory tiles are built for}}
  softmax.linear_cross_entropy ins(%h, %w, %t : memref<64x?xbf16>, memref<1000x?xbf16>, memref<64xi64>) outs(%l : memref<f32>) reduction(mean)
  return
}

// -----

func.func @strided(%h: memref<64x64xbf16, strided<[128, 1]>>, %w: memref<1000x64xbf16>, %t: memref<64xi64>, %l: memref<f32>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy' op GPU mapping expects contiguous (identity layout) memrefs}}
  softmax.linear_cross_entropy ins(%h, %w, %t : memref<64x64xbf16, strided<[128, 1]>>, memref<1000x64xbf16>, memref<64xi64>) outs(%l : memref<f32>) reduction(mean)
  return
}

// -----

func.func @tensors(%h: tensor<64x64xbf16>, %w: tensor<1000x64xbf16>, %t: tensor<64xi64>, %l0: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'softmax.linear_cross_entropy' op GPU mapping takes the op on memrefs (bufferize it first, as softmax-to-nvvm does)}}
  %l = softmax.linear_cross_entropy ins(%h, %w, %t : tensor<64x64xbf16>, tensor<1000x64xbf16>, tensor<64xi64>) outs(%l0 : tensor<f32>) reduction(mean)
  return %l : tensor<f32>
}

// The same refusals on gfx942:
// CDNA: error: 'softmax.linear_cross_entropy' op has no GPU kernel for 'f32' inputs on gfx942
// CDNA: error: 'softmax.linear_cross_entropy' op GPU mapping copies rows in 16-byte pieces
// CDNA: error: 'softmax.linear_cross_entropy' op GPU mapping needs a static hidden size (D)
// CDNA: error: 'softmax.linear_cross_entropy' op GPU mapping expects contiguous (identity layout) memrefs
// CDNA: error: 'softmax.linear_cross_entropy' op GPU mapping takes the op on memrefs

// -----

// The gradient: the same refusals, and the filter tile as a contract.

func.func @grad_f32(%h: memref<64x64xf32>, %w: memref<1000x64xf32>, %t: memref<64xi64>, %lse: memref<64xf32>, %dl: memref<f32>, %gh: memref<64x64xf32>, %gw: memref<1000x64xf32>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy_grad' op has no GPU kernel for 'f32' inputs on sm_90 (the linear cross-entropy's gradient runs f16 and bf16 on NVIDIA tensor cores and CDNA matrix cores; decompose it on tensors for the CPU)}}
  softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : memref<64x64xf32>, memref<1000x64xf32>, memref<64xi64>, memref<64xf32>, memref<f32>) outs(%gh, %gw : memref<64x64xf32>, memref<1000x64xf32>) reduction(mean)
  return
}

// -----

func.func @grad_odd_d(%h: memref<64x60xbf16>, %w: memref<1000x60xbf16>, %t: memref<64xi64>, %lse: memref<64xf32>, %dl: memref<f32>, %gh: memref<64x60xbf16>, %gw: memref<1000x60xbf16>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy_grad' op GPU mapping copies rows in 16-byte pieces: a hidden size of 60 'bf16' elements is not a multiple of 8}}
  softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : memref<64x60xbf16>, memref<1000x60xbf16>, memref<64xi64>, memref<64xf32>, memref<f32>) outs(%gh, %gw : memref<64x60xbf16>, memref<1000x60xbf16>) reduction(mean)
  return
}

// -----

// The op names a filter tile the kernel does not judge: refused while the
// tile matters (a filter, here the bf16 default)...
func.func @grad_tile(%h: memref<64x64xbf16>, %w: memref<1000x64xbf16>, %t: memref<64xi64>, %lse: memref<64xf32>, %dl: memref<f32>, %gh: memref<64x64xbf16>, %gw: memref<1000x64xbf16>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy_grad' op GPU kernel filters tiles of 128 tokens x 128 classes, not what the op names: token_tile(64) vocab_tile(1024) (leave them out to take the kernel's, or use filter(0.0) without filter_counts)}}
  softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : memref<64x64xbf16>, memref<1000x64xbf16>, memref<64xi64>, memref<64xf32>, memref<f32>) outs(%gh, %gw : memref<64x64xbf16>, memref<1000x64xbf16>) reduction(mean) vocab_tile(1024) token_tile(64)
  return
}

// -----

// ... or counts.
func.func @grad_tile_counts(%h: memref<64x64xbf16>, %w: memref<1000x64xbf16>, %t: memref<64xi64>, %lse: memref<64xf32>, %dl: memref<f32>, %gh: memref<64x64xbf16>, %gw: memref<1000x64xbf16>, %n: memref<2xi64>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy_grad' op GPU kernel filters tiles of 128 tokens x 128 classes, not what the op names: vocab_tile(256) (leave}}
  softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : memref<64x64xbf16>, memref<1000x64xbf16>, memref<64xi64>, memref<64xf32>, memref<f32>) outs(%gh, %gw : memref<64x64xbf16>, memref<1000x64xbf16>) filter_counts(%n : memref<2xi64>) reduction(mean) filter(0.0) vocab_tile(256)
  return
}

// -----

func.func @grad_tensors(%h: tensor<8x64xbf16>, %w: tensor<100x64xbf16>, %t: tensor<8xi64>, %lse: tensor<8xf32>, %dl: tensor<f32>, %gh0: tensor<8x64xbf16>, %gw0: tensor<100x64xbf16>) -> (tensor<8x64xbf16>, tensor<100x64xbf16>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy_grad' op GPU mapping takes the op on memrefs (bufferize it first, as softmax-to-nvvm does)}}
  %gh, %gw = softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : tensor<8x64xbf16>, tensor<100x64xbf16>, tensor<8xi64>, tensor<8xf32>, tensor<f32>) outs(%gh0, %gw0 : tensor<8x64xbf16>, tensor<100x64xbf16>) reduction(mean)
  return %gh, %gw : tensor<8x64xbf16>, tensor<100x64xbf16>
}

// The same refusals on CDNA, whose kernel judges tiles of 64 tokens (the
// pool of 128 would pass its 64 KiB of LDS).
// CDNA: error: 'softmax.linear_cross_entropy_grad' op has no GPU kernel for 'f32' inputs on gfx942
// CDNA: error: 'softmax.linear_cross_entropy_grad' op GPU mapping copies rows in 16-byte pieces
// CDNA: error: 'softmax.linear_cross_entropy_grad' op GPU kernel filters tiles of 64 tokens x 128 classes, not what the op names: token_tile(64) vocab_tile(1024)
// CDNA: error: 'softmax.linear_cross_entropy_grad' op GPU kernel filters tiles of 64 tokens x 128 classes, not what the op names: vocab_tile(256)
// CDNA: error: 'softmax.linear_cross_entropy_grad' op GPU mapping takes the op on memrefs

// The pipeline bufferizes the tensor form and maps it; the tile contract
// holds there too.
// PIPELINE: error: 'softmax.linear_cross_entropy_grad' op has no GPU kernel for 'f32' inputs on sm_90
