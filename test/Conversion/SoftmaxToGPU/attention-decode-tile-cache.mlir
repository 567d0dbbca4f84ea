// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_80" --canonicalize --split-input-file | FileCheck %s

// Where the K/V tile copies go by cp.async (sm_80; sm_90 takes TMA for
// decode: attention-decode-tma.mlir). A decode block of several warps (16 query
// rows times the 4 query heads of a KV head: 64 rows, 4 warps of 16) copies
// through L1 (cp.async.ca: no bypassL1), measured 1.09x on the H200; one
// warp's block copies around it (.cg, bypassL1), where L1 cost 6-15%.
// CHECK-LABEL: func.func @speculative_rows
// CHECK:       gpu.launch
// CHECK-SAME:    threads({{.*}}) in (%{{.*}} = %c128,
// CHECK-NOT:     bypassL1
// CHECK:         nvgpu.device_async_copy %arg1
// CHECK-NOT:     bypassL1
// CHECK:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k16, rows_per_warp = 16, rows_per_block = 64,
func.func @speculative_rows(%q: memref<1x32x16x128xbf16>, %k: memref<1x8x65536x128xbf16>, %v: memref<1x8x65536x128xbf16>, %o: memref<1x32x16x128xbf16>) {
  softmax.attention ins(%q, %k, %v : memref<1x32x16x128xbf16>, memref<1x8x65536x128xbf16>, memref<1x8x65536x128xbf16>) outs(%o : memref<1x32x16x128xbf16>) masked(zero) causal
  return
}

// -----

// CHECK-LABEL: func.func @one_row
// CHECK:       gpu.launch
// CHECK-SAME:    threads({{.*}}) in (%{{.*}} = %c32,
// CHECK:         nvgpu.device_async_copy %arg1{{.*}} {bypassL1}
// CHECK:       } {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k16, rows_per_warp = 16, rows_per_block = 16,
func.func @one_row(%q: memref<8x32x1x128xbf16>, %k: memref<8x8x32768x128xbf16>, %v: memref<8x8x32768x128xbf16>, %o: memref<8x32x1x128xbf16>) {
  softmax.attention ins(%q, %k, %v : memref<8x32x1x128xbf16>, memref<8x8x32768x128xbf16>, memref<8x8x32768x128xbf16>) outs(%o : memref<8x32x1x128xbf16>) masked(zero)
  return
}
