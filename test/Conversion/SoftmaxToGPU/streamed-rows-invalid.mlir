// unroll is for rows that stream, reread = reverse for rows read again: a
// request that keeps the row in registers and unrolls it or turns its
// second pass around is refused, as is reverse for a row read once, and
// an option out of range or of no known order.
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90" -split-input-file -verify-diagnostics
// RUN: not softmax-opt %s --softmax-map-to-gpu="chip=sm_90 unroll=17" 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: error: softmax-map-to-gpu: unroll must be 0 (the heuristic's) or from 1 to 16, not 17
// RUN: not softmax-opt %s --softmax-map-to-gpu="chip=sm_90 reread=backward" 2>&1 | FileCheck %s --check-prefix=ORDER
// ORDER: error: softmax-map-to-gpu: reread must be forward or reverse, not 'backward'

func.func @cached_and_unrolled(%x: memref<64x8192xf32>, %y: memref<64x8192xf32>) {
  // expected-error @+1 {{unroll (4) applies to streamed rows; ask for cached_vectors = 0 or unroll = 1}}
  softmax.softmax ins(%x : memref<64x8192xf32>) outs(%y : memref<64x8192xf32>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.gpu_strategy<cached_vectors = 8, unroll = 4>}
  return
}

// -----

// The heuristic keeps this row in registers; a request for an unroll alone
// does not turn it into a streamed one.
func.func @heuristic_cached(%x: memref<64x8192xf32>, %y: memref<64x8192xf32>) {
  // expected-error @+1 {{unroll (2) applies to streamed rows; ask for cached_vectors = 0 or unroll = 1}}
  softmax.softmax ins(%x : memref<64x8192xf32>) outs(%y : memref<64x8192xf32>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.gpu_strategy<unroll = 2>}
  return
}

// -----

func.func @cached_and_reversed(%x: memref<64x8192xf32>, %y: memref<64x8192xf32>) {
  // expected-error @+1 {{reread = reverse applies to streamed rows read again (softmax, log_softmax or three_pass with cached_vectors = 0); this one keeps its row in registers}}
  softmax.softmax ins(%x : memref<64x8192xf32>) outs(%y : memref<64x8192xf32>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.gpu_strategy<cached_vectors = 8, reread = reverse>}
  return
}

// -----

func.func @read_once_reversed(%x: memref<256x128256xbf16>, %y: memref<256xbf16>) {
  // expected-error @+1 {{reread = reverse applies to streamed rows read again (softmax, log_softmax or three_pass with cached_vectors = 0); this one reads its row once}}
  softmax.logsumexp ins(%x : memref<256x128256xbf16>) outs(%y : memref<256xbf16>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.gpu_strategy<reread = reverse>}
  return
}
