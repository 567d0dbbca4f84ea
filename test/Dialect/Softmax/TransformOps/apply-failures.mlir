// RUN: softmax-opt %s --transform-interpreter -split-input-file -verify-diagnostics
// What an op cannot do to a payload op is a silenceable error of the
// transform op, with the mapping's own diagnostic as a note at the payload
// op; where the mapping had already built IR, a definite one.

func.func @not_semantic(%x: memref<4x100xf32>, %y: memref<4x100xf32>) {
  // expected-note @below {{target op}}
  memref.copy %x, %y : memref<4x100xf32> to memref<4x100xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["memref.copy"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{expects softmax.softmax, softmax.log_softmax or softmax.logsumexp ops, not memref.copy}}
    transform.softmax.select_algorithm %op : !transform.any_op
    transform.yield
  }
}

// -----

func.func @not_semantic(%x: memref<4x100xf32>, %y: memref<4x100xf32>) {
  // expected-note @below {{target op}}
  memref.copy %x, %y : memref<4x100xf32> to memref<4x100xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["memref.copy"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{expects softmax.softmax, softmax.log_softmax, softmax.logsumexp, softmax.attention, softmax.topk, softmax.linear_cross_entropy or softmax.linear_cross_entropy_grad ops, not memref.copy}}
    %0 = transform.softmax.map_to_gpu %op : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @tensors(%x: tensor<4x100xf32>, %i: tensor<4x100xf32>) -> tensor<4x100xf32> {
  // expected-note @below {{'softmax.softmax' op CPU mapping expects memrefs; run one-shot-bufferize first}}
  %0 = softmax.softmax ins(%x : tensor<4x100xf32>) outs(%i : tensor<4x100xf32>) dimension(1) masked(zero) algorithm(online)
  return %0 : tensor<4x100xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{could not map to CPU vector loops}}
    %0 = transform.softmax.map_to_cpu %op : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// An option outside its range is refused by the op itself (OptionRange),
// before any payload op is touched.
func.func @width(%x: memref<4x100xf32>, %y: memref<4x100xf32>) {
  softmax.softmax ins(%x : memref<4x100xf32>) outs(%y : memref<4x100xf32>) dimension(1) masked(zero) algorithm(three_pass)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{vector-width must be 0 (the host's width) or a power of two from 1 to 64, not 12}}
    %0 = transform.softmax.map_to_cpu %op {vector_width = 12} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @outer_dim(%x: memref<64x100xf32>, %y: memref<64x100xf32>) {
  // expected-note @below {{'softmax.softmax' op GPU mapping reduces the innermost dimension only, not dimension 0 of rank 2}}
  softmax.softmax ins(%x : memref<64x100xf32>) outs(%y : memref<64x100xf32>) dimension(0) masked(zero) algorithm(online)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{could not map to a GPU kernel}}
    %0 = transform.softmax.map_to_gpu %op : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @attention_strategy(%q: memref<1x2x64x64xbf16>, %k: memref<1x2x64x64xbf16>, %v: memref<1x2x64x64xbf16>, %o: memref<1x2x64x64xbf16>) {
  // expected-note @below {{target op}}
  softmax.attention ins(%q, %k, %v : memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>) outs(%o : memref<1x2x64x64xbf16>) masked(zero)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{does not apply to softmax.attention: an attention takes a #softmax.attention_gpu_strategy, a softmax, log_softmax or logsumexp a #softmax.gpu_strategy}}
    %0 = transform.softmax.map_to_gpu %op {strategy = #softmax.gpu_strategy<threads_per_row = 32>} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @strategy_field(%x: memref<64x1024xf32>, %y: memref<64x1024xf32>) {
  // expected-note @below {{'softmax.softmax' op strategy: threads-per-row must be a power of two from 1 to 1024, not 2048}}
  softmax.softmax ins(%x : memref<64x1024xf32>) outs(%y : memref<64x1024xf32>) dimension(1) masked(zero) algorithm(online)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{could not map to a GPU kernel}}
    %0 = transform.softmax.map_to_gpu %op {strategy = #softmax.gpu_strategy<threads_per_row = 2048>} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The attention mapping finds out that the tiles do not fit in LDS after it
// has built the first index computations: a definite error.
func.func @too_much_lds(%q: memref<1x1x64x256xbf16>, %k: memref<1x1x64x256xbf16>, %v: memref<1x1x64x256xbf16>, %o: memref<1x1x64x256xbf16>) {
  // expected-note @below {{'softmax.attention' op GPU attention mapping needs 68096 bytes of shared memory per block for these head dimensions; gfx942 has 65536}}
  softmax.attention ins(%q, %k, %v : memref<1x1x64x256xbf16>, memref<1x1x64x256xbf16>, memref<1x1x64x256xbf16>) outs(%o : memref<1x1x64x256xbf16>) masked(zero)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{could not map to a GPU kernel after the mapping had changed the payload}}
    %0 = transform.softmax.map_to_gpu %op {chip = "gfx942"} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// map_to_cpu consumes its operand: the payload op is gone, and so is the
// handle (select_algorithm only reads its own).
func.func @consumed(%x: memref<4x100xf32>, %y: memref<4x100xf32>) {
  // expected-note @below {{payload op}}
  softmax.softmax ins(%x : memref<4x100xf32>) outs(%y : memref<4x100xf32>) dimension(1) masked(zero)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    // expected-note @below {{handle to invalidated ops}}
    %op = transform.structured.match ops{["softmax.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.softmax.select_algorithm %op : !transform.any_op
    // expected-note @below {{invalidated by this transform op that consumes its operand #0 and invalidates all handles to payload IR entities associated with this operand and entities nested in them}}
    %loops = transform.softmax.map_to_cpu %op : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{uses a handle invalidated by a previously executed transform op}}
    transform.softmax.select_algorithm %op : !transform.any_op
    transform.yield
  }
}
