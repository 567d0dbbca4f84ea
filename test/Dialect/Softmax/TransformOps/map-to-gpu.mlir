// RUN: softmax-opt %s --transform-interpreter -split-input-file | FileCheck %s
// transform.softmax.map_to_gpu maps the ops of its handle onto the kernels
// of softmax-map-to-gpu, with the strategy its attributes fix, and returns
// the launches.

// The attributes fix the strategy as the pass options do; `strategy` is
// the op's own (softmax.strategy) and wins over them: 256 threads per
// row (not 64), each thread keeping 2 vectors of 4 floats. The op outside
// the handle is left alone.
// CHECK-LABEL: func @softmax
// CHECK: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks({{.*}}) threads({{.*}}) in ({{.*}} = %[[C256]],
// CHECK: } {mapped, softmax.strategy = #softmax.gpu_strategy<threads_per_row = 256, rows_per_block = 1, vector_width = 4, cached_vectors = 2, splits = 1>}
// CHECK: softmax.log_softmax ins(%{{.*}} : memref<64x2048xf32>)
func.func @softmax(%x: memref<64x2048xf32>, %y: memref<64x2048xf32>) {
  softmax.softmax ins(%x : memref<64x2048xf32>) outs(%y : memref<64x2048xf32>) dimension(1) masked(zero) algorithm(online) {map}
  softmax.log_softmax ins(%x : memref<64x2048xf32>) outs(%y : memref<64x2048xf32>) dimension(1) masked(zero) algorithm(online)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match attributes{map} in %root : (!transform.any_op) -> !transform.any_op
    %launch = transform.softmax.map_to_gpu %op {chip = "sm_90", threads_per_row = 64, vector_width = 4,
        strategy = #softmax.gpu_strategy<threads_per_row = 256, cached_vectors = 2>}
        : (!transform.any_op) -> !transform.op<"gpu.launch">
    transform.annotate %launch "mapped" : !transform.op<"gpu.launch">
    transform.yield
  }
}

// -----

// Without attributes: the heuristic for sm_90 (the default chip). A split
// row (the launch among the scratch allocations), a logsumexp of odd bf16
// rows with an f32 result (1031: peeled vectors of 8, the input's width)
// and an
// attention on gfx942 each give their one gpu.launch, in order.
// CHECK-LABEL: func @several
// CHECK: gpu.launch async
// CHECK: } {first, softmax.strategy = #softmax.gpu_strategy<threads_per_row = 128, rows_per_block = 1, vector_width = 4, cached_vectors = 16, splits = 32, split_merge = global>}
// CHECK: gpu.launch
// CHECK: } {second, softmax.strategy = #softmax.gpu_strategy<threads_per_row = 64, rows_per_block = 1, vector_width = 8, cached_vectors = 3, splits = 1>}
// CHECK: gpu.launch
// CHECK: } {softmax.strategy = #softmax.attention_gpu_strategy<mma = mfma16x16x16{{.*}}>, third}
func.func @several(%x: memref<4x262144xf32>, %y: memref<4x262144xf32>,
                   %a: memref<333x1031xbf16>, %s: memref<333xf32>,
                   %q: memref<1x2x64x64xbf16>, %k: memref<1x2x64x64xbf16>, %v: memref<1x2x64x64xbf16>, %o: memref<1x2x64x64xbf16>) {
  softmax.softmax ins(%x : memref<4x262144xf32>) outs(%y : memref<4x262144xf32>) dimension(1) masked(zero) algorithm(online)
  softmax.logsumexp ins(%a : memref<333x1031xbf16>) outs(%s : memref<333xf32>) dimension(1) masked(zero) algorithm(exp_pair)
  softmax.attention ins(%q, %k, %v : memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>) outs(%o : memref<1x2x64x64xbf16>) masked(zero)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %rows = transform.structured.match ops{["softmax.softmax", "softmax.logsumexp"]} in %root : (!transform.any_op) -> !transform.any_op
    %launches = transform.softmax.map_to_gpu %rows : (!transform.any_op) -> !transform.any_op
    %first, %second = transform.split_handle %launches : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %first "first" : !transform.any_op
    transform.annotate %second "second" : !transform.any_op
    %attention = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %third = transform.softmax.map_to_gpu %attention {chip = "gfx942"} : (!transform.any_op) -> !transform.any_op
    transform.annotate %third "third" : !transform.any_op
    transform.yield
  }
}

// -----

// The decode attributes, as the pass options: 3 splits of the keys, the two
// query heads of each KV head packed; the handle holds the launch of the
// split blocks, not the merge's.
// CHECK-LABEL: func @decode
// CHECK: memref.collapse_shape {{.*}} into memref<1x2x2x64xbf16>
// CHECK: gpu.launch async
// CHECK: } {decode, softmax.strategy = #softmax.attention_gpu_strategy<{{.*}} key_splits = 3, packed_heads = 2, tile_copy = tma>}
// CHECK: gpu.launch async
// CHECK:   scf.for
func.func @decode(%q: memref<1x4x1x64xbf16>, %k: memref<1x2x500x64xbf16>, %o: memref<1x4x1x64xbf16>) {
  softmax.attention ins(%q, %k, %k : memref<1x4x1x64xbf16>, memref<1x2x500x64xbf16>, memref<1x2x500x64xbf16>) outs(%o : memref<1x4x1x64xbf16>) masked(zero)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %a = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %l = transform.softmax.map_to_gpu %a {attention_key_splits = 3, attention_packed_heads = 2} : (!transform.any_op) -> !transform.any_op
    transform.annotate %l "decode" : !transform.any_op
    transform.yield
  }
}

// -----

// Stream-K by attribute: 3 chunks per head group over the batch's key
// tiles; the handle holds the chunk blocks' launch, not the schedule's
// before it or the merge's after it.
// CHECK-LABEL: func @ragged
// CHECK: gpu.launch async
// CHECK:   memref.store %{{.*}} : memref<?xi32>
// CHECK: gpu.launch async {{.*}} in ({{.*}} = %c3{{(_[0-9]+)?}}, {{.*}} = %{{.*}}, {{.*}} = %c1{{(_[0-9]+)?}})
// CHECK: } {ragged, softmax.strategy = #softmax.attention_gpu_strategy<{{.*}} key_splits = 1, packed_heads = 2, stream_k = 3>}
// CHECK: gpu.launch async
// CHECK:   scf.for
func.func @ragged(%q: memref<2x4x1x64xbf16>, %k: memref<2x2x500x64xbf16>, %len: memref<2xi32>, %o: memref<2x4x1x64xbf16>) {
  softmax.attention ins(%q, %k, %k : memref<2x4x1x64xbf16>, memref<2x2x500x64xbf16>, memref<2x2x500x64xbf16>) outs(%o : memref<2x4x1x64xbf16>) masked(zero) key_lengths(%len : memref<2xi32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %a = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %l = transform.softmax.map_to_gpu %a {attention_stream_k = 3} : (!transform.any_op) -> !transform.any_op
    transform.annotate %l "ragged" : !transform.any_op
    transform.yield
  }
}

// -----

// The fused linear cross-entropy: of its three launches the handle gets the
// logit kernel's (the one that records the strategy), with the class ranges
// the attribute asks for.
// CHECK-LABEL: func @cross_entropy
// CHECK: gpu.launch async
// CHECK: } {mapped, softmax.strategy = #softmax.cross_entropy_gpu_strategy<mma = m16n8k16, rows_per_block = 128, classes_per_tile = 128, k_tile = 64, stages = 2, vocab_splits = 6>}
// CHECK: gpu.launch async
// CHECK-NOT: mapped
// CHECK: gpu.launch async
// CHECK-NOT: softmax.linear_cross_entropy ins
// CHECK: return
func.func @cross_entropy(%h: memref<512x256xbf16>, %w: memref<32000x256xbf16>, %t: memref<512xi64>, %l: memref<f32>) {
  softmax.linear_cross_entropy ins(%h, %w, %t : memref<512x256xbf16>, memref<32000x256xbf16>, memref<512xi64>) outs(%l : memref<f32>) reduction(sum)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.linear_cross_entropy"]} in %root : (!transform.any_op) -> !transform.any_op
    %launch = transform.softmax.map_to_gpu %op {chip = "sm_90", cross_entropy_vocab_splits = 6}
        : (!transform.any_op) -> !transform.op<"gpu.launch">
    transform.annotate %launch "mapped" : !transform.op<"gpu.launch">
    transform.yield
  }
}

// -----

// The cross-entropy's gradient: the handle gets the tile kernel's launch
// (the one that records the strategy).
// CHECK-LABEL: func @cross_entropy_grad
// CHECK: gpu.launch async
// CHECK-NOT: mapped
// CHECK: gpu.launch async
// CHECK: } {mapped, softmax.strategy = #softmax.cross_entropy_gpu_strategy<mma = m16n8k16, rows_per_block = 128, classes_per_tile = 128, k_tile = 64, stages = 2>}
// CHECK-NOT: softmax.linear_cross_entropy_grad ins
// CHECK: return
func.func @cross_entropy_grad(%h: memref<512x256xbf16>, %w: memref<32000x256xbf16>, %t: memref<512xi64>, %lse: memref<512xf32>, %dl: memref<f32>, %gh: memref<512x256xf32>, %gw: memref<32000x256xf32>) {
  softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : memref<512x256xbf16>, memref<32000x256xbf16>, memref<512xi64>, memref<512xf32>, memref<f32>) outs(%gh, %gw : memref<512x256xf32>, memref<32000x256xf32>) reduction(sum)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.linear_cross_entropy_grad"]} in %root : (!transform.any_op) -> !transform.any_op
    %launch = transform.softmax.map_to_gpu %op {chip = "sm_90"}
        : (!transform.any_op) -> !transform.op<"gpu.launch">
    transform.annotate %launch "mapped" : !transform.op<"gpu.launch">
    transform.yield
  }
}

// -----

// On sm_90a the chunked form: the handle gets the logit tiles' launch inside
// the loop over the chunks of classes (the products' launches follow it).
// CHECK-LABEL: func @cross_entropy_grad_sm90a
// CHECK: scf.for
// CHECK: gpu.launch async
// CHECK: } {mapped, softmax.strategy = #softmax.cross_entropy_gpu_strategy<mma = wgmma.m64nNk16, rows_per_block = 128, classes_per_tile = 256, k_tile = 64, stages = 4>}
// CHECK: gpu.launch async
// CHECK-NOT: mapped
// CHECK: gpu.launch async
// CHECK-NOT: mapped
// CHECK-NOT: softmax.linear_cross_entropy_grad ins
// CHECK: return
func.func @cross_entropy_grad_sm90a(%h: memref<512x256xbf16>, %w: memref<32000x256xbf16>, %t: memref<512xi64>, %lse: memref<512xf32>, %dl: memref<f32>, %gh: memref<512x256xf32>, %gw: memref<32000x256xf32>) {
  softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : memref<512x256xbf16>, memref<32000x256xbf16>, memref<512xi64>, memref<512xf32>, memref<f32>) outs(%gh, %gw : memref<512x256xf32>, memref<32000x256xf32>) reduction(sum)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.linear_cross_entropy_grad"]} in %root : (!transform.any_op) -> !transform.any_op
    %launch = transform.softmax.map_to_gpu %op {chip = "sm_90a"}
        : (!transform.any_op) -> !transform.op<"gpu.launch">
    transform.annotate %launch "mapped" : !transform.op<"gpu.launch">
    transform.yield
  }
}

// -----

// The strategy's split_merge: the blocks of a split row form a cluster
// (sm_90) and the launch names it.
// CHECK-LABEL: func @cluster_rows
// CHECK-NOT: gpu.alloc
// CHECK: gpu.launch clusters
// CHECK: } {clustered, softmax.strategy = #softmax.gpu_strategy<threads_per_row = 128, rows_per_block = 1, vector_width = 8, cached_vectors = 8, splits = 16, split_merge = cluster>}
func.func @cluster_rows(%x: memref<100x128256xbf16>, %y: memref<100x128256xbf16>) {
  softmax.softmax ins(%x : memref<100x128256xbf16>) outs(%y : memref<100x128256xbf16>) dimension(1) masked(zero) algorithm(online)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %launch = transform.softmax.map_to_gpu %op {chip = "sm_90",
        strategy = #softmax.gpu_strategy<split_merge = cluster>}
        : (!transform.any_op) -> !transform.op<"gpu.launch">
    transform.annotate %launch "clustered" : !transform.op<"gpu.launch">
    transform.yield
  }
}

// -----

// The strategy's reread: a streamed softmax row's second pass runs from
// the thread's last group of vectors back to its first.
// CHECK-LABEL: func @reversed_rows
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c32768
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %{{.*}} step %c1
// CHECK: } {reversed, softmax.strategy = #softmax.gpu_strategy<threads_per_row = 1024, rows_per_block = 1, vector_width = 8, cached_vectors = 0, unroll = 4, splits = 1, reread = reverse>}
func.func @reversed_rows(%x: memref<256x128256xbf16>, %y: memref<256x128256xbf16>) {
  softmax.softmax ins(%x : memref<256x128256xbf16>) outs(%y : memref<256x128256xbf16>) dimension(1) masked(zero) algorithm(online)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %launch = transform.softmax.map_to_gpu %op {chip = "sm_90",
        strategy = #softmax.gpu_strategy<reread = reverse>}
        : (!transform.any_op) -> !transform.op<"gpu.launch">
    transform.annotate %launch "reversed" : !transform.op<"gpu.launch">
    transform.yield
  }
}

// -----

// The unroll attribute, as the pass option: the logsumexp row streams four
// vectors an iteration (a step of 4 x 1024 threads x 8 elements).
// CHECK-LABEL: func @streamed_unrolled
// CHECK: scf.for {{.*}} step %c32768
// CHECK: } {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 1024, rows_per_block = 1, vector_width = 8, cached_vectors = 0, unroll = 4, splits = 1>, unrolled}
func.func @streamed_unrolled(%x: memref<256x128256xbf16>, %y: memref<256xbf16>) {
  softmax.logsumexp ins(%x : memref<256x128256xbf16>) outs(%y : memref<256xbf16>) dimension(1) masked(zero) algorithm(online)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.logsumexp"]} in %root : (!transform.any_op) -> !transform.any_op
    %launch = transform.softmax.map_to_gpu %op {chip = "sm_90", unroll = 4}
        : (!transform.any_op) -> !transform.op<"gpu.launch">
    transform.annotate %launch "unrolled" : !transform.op<"gpu.launch">
    transform.yield
  }
}
