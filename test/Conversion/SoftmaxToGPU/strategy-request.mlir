// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90 threads-per-row=128 attention-buffers=1" -split-input-file | FileCheck %s

// A request on the op (softmax.strategy = #softmax.gpu_strategy<...>) wins
// over the pass options (threads-per-row=128) for that op. cached_vectors = 0,
// which an option cannot ask for (0 is "the heuristic's"), streams the row:
// no vectors are kept, the row is read again for the output.
// CHECK-LABEL: func @stream
// CHECK:       gpu.launch
// CHECK:         scf.for
// CHECK:           vector.load %arg0
// CHECK:         scf.for
// CHECK:           vector.load %arg0
// CHECK:           vector.store {{.*}}, %arg1
// CHECK:       } {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 256, rows_per_block = 1, vector_width = 4, cached_vectors = 0, unroll = 1, splits = 1, reread = reverse>}
func.func @stream(%x: memref<4x4096xf32>, %y: memref<4x4096xf32>) {
  softmax.softmax ins(%x : memref<4x4096xf32>) outs(%y : memref<4x4096xf32>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 256, cached_vectors = 0>}
  return
}

// -----

// Without a request the option holds.
// CHECK-LABEL: func @option
// CHECK:       } {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 128, {{.*}}>}
func.func @option(%x: memref<4x4096xf32>, %y: memref<4x4096xf32>) {
  softmax.softmax ins(%x : memref<4x4096xf32>) outs(%y : memref<4x4096xf32>) dimension(1) masked(zero) algorithm(online)
  return
}

// -----

// Attention: 16 rows per warp and two buffers over the options (32 rows,
// the NVIDIA default, and attention-buffers=1). Two buffers stage K and V
// twice over.
// CHECK-LABEL: func @attention
// CHECK:       gpu.launch
// CHECK-SAME:    workgroup(%{{.*}} : memref<2x64x{{[0-9]+}}xbf16, #gpu.address_space<workgroup>>
// CHECK:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k16, rows_per_warp = 16, rows_per_block = 64, keys_per_tile = 64, buffers = 2, key_splits = 1, packed_heads = 1>}
func.func @attention(%q: memref<1x2x128x64xbf16>, %k: memref<1x2x128x64xbf16>, %v: memref<1x2x128x64xbf16>, %o: memref<1x2x128x64xbf16>) {
  softmax.attention ins(%q, %k, %v : memref<1x2x128x64xbf16>, memref<1x2x128x64xbf16>, memref<1x2x128x64xbf16>) outs(%o : memref<1x2x128x64xbf16>) masked(zero) {softmax.strategy = #softmax.attention_gpu_strategy<rows_per_warp = 16, buffers = 2>}
  return
}

// -----

// f32 attention: the request's mma chooses the precision (one tf32
// product) over the option's default (exact, 3xTF32).
// CHECK-LABEL: func @attention_tf32
// CHECK:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k8.tf32, rows_per_warp = 32, rows_per_block = 128, keys_per_tile = 64, buffers = 1, key_splits = 1, packed_heads = 1>}
func.func @attention_tf32(%q: memref<1x2x128x64xf32>, %k: memref<1x2x128x64xf32>, %v: memref<1x2x128x64xf32>, %o: memref<1x2x128x64xf32>) {
  softmax.attention ins(%q, %k, %v : memref<1x2x128x64xf32>, memref<1x2x128x64xf32>, memref<1x2x128x64xf32>) outs(%o : memref<1x2x128x64xf32>) masked(zero) {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k8.tf32>}
  return
}
