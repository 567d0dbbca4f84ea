// RUN: softmax-opt %s --transform-interpreter -split-input-file | FileCheck %s
// transform.softmax.map_to_cpu maps the ops of its handle (and only those)
// onto the vector loops of softmax-map-to-cpu, with the strategy its
// attributes fix, and returns the loops.

// CHECK-LABEL: func @softmax
// The op of the handle: an scf.parallel over its rows at 8 lanes, two
// vectors per iteration, the handle's loop annotated.
// CHECK: scf.parallel
// CHECK: vector.load {{.*}} vector<8xf32>
// CHECK: } {mapped, softmax.strategy = #softmax.cpu_strategy<algorithm = three_pass, vector_width = 8, unroll = 2, block = 4, three_pass = recompute, exp = fast>}
// The op outside the handle is left alone.
// CHECK: softmax.log_softmax ins(%{{.*}} : memref<4x100xf32>)
func.func @softmax(%x: memref<4x100xf32>, %y: memref<4x100xf32>) {
  softmax.softmax ins(%x : memref<4x100xf32>) outs(%y : memref<4x100xf32>) dimension(1) masked(zero) algorithm(three_pass) {map}
  softmax.log_softmax ins(%x : memref<4x100xf32>) outs(%y : memref<4x100xf32>) dimension(1) masked(zero) algorithm(three_pass)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match attributes{map} in %root : (!transform.any_op) -> !transform.any_op
    %loops = transform.softmax.map_to_cpu %op {vector_width = 8, unroll = 2, block = 4, three_pass = "recompute"}
        : (!transform.any_op) -> !transform.op<"scf.parallel">
    transform.annotate %loops "mapped" : !transform.op<"scf.parallel">
    transform.yield
  }
}

// -----

// A handle to several ops (a logsumexp, an attention) gives one loop per
// op, in order. The cache sizes steer the three_pass variant as the pass's
// l1-bytes / l2-bytes do (a row of 400 bytes: beyond 256 bytes of L1,
// within half of L2, so not tiled; reload becomes recompute for a
// logsumexp), and exp = "polynomial" is recorded.
// CHECK-LABEL: func @several
// CHECK-NOT: softmax.logsumexp ins
// CHECK: scf.parallel
// CHECK: } {first, softmax.strategy = #softmax.cpu_strategy<algorithm = three_pass, vector_width = 16, unroll = 4, block = 16, three_pass = recompute, exp = polynomial>}
// CHECK: scf.parallel
// CHECK: } {second, softmax.strategy = #softmax.attention_cpu_strategy<vector_width = 16, keys_per_block = 16>}
// CHECK-NOT: softmax.logsumexp ins
// CHECK-NOT: softmax.attention ins
func.func @several(%x: memref<4x100xf32>, %s: memref<4xf32>,
                   %q: memref<1x2x16x32xf32>, %k: memref<1x2x16x32xf32>, %v: memref<1x2x16x32xf32>, %o: memref<1x2x16x32xf32>) {
  softmax.logsumexp ins(%x : memref<4x100xf32>) outs(%s : memref<4xf32>) dimension(1) masked(zero) algorithm(three_pass)
  softmax.attention ins(%q, %k, %v : memref<1x2x16x32xf32>, memref<1x2x16x32xf32>, memref<1x2x16x32xf32>) outs(%o : memref<1x2x16x32xf32>) masked(zero)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %ops = transform.structured.match ops{["softmax.logsumexp", "softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %loops = transform.softmax.map_to_cpu %ops {vector_width = 16, l1_bytes = 256, l2_bytes = 65536, exp = "polynomial"}
        : (!transform.any_op) -> !transform.any_op
    %first, %second = transform.split_handle %loops : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %first "first" : !transform.any_op
    transform.annotate %second "second" : !transform.any_op
    transform.yield
  }
}

// -----

// softmax.topk: the one-read kernel's loop over rows (its scratch buffers
// allocated around it), at the handle's width.
// CHECK-LABEL: func @topk
// CHECK: memref.alloc
// CHECK: scf.parallel
// CHECK: vector.load {{.*}} vector<4xf32>
// CHECK: vector.reduction <or>
// CHECK: } {mapped, softmax.strategy = #softmax.cpu_strategy<algorithm = online, vector_width = 4, {{.*}}>}
// CHECK: memref.dealloc
// CHECK-NOT: softmax.topk ins
func.func @topk(%x: memref<4x100xf32>, %p: memref<4x5xf32>, %i: memref<4x5xi64>) {
  softmax.topk ins(%x : memref<4x100xf32>) outs(%p, %i : memref<4x5xf32>, memref<4x5xi64>) k(5)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.topk"]} in %root : (!transform.any_op) -> !transform.any_op
    %loops = transform.softmax.map_to_cpu %op {vector_width = 4}
        : (!transform.any_op) -> !transform.op<"scf.parallel">
    transform.annotate %loops "mapped" : !transform.op<"scf.parallel">
    transform.yield
  }
}
