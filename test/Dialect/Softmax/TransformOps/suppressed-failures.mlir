// RUN: softmax-opt %s --transform-interpreter | FileCheck %s
// A silenceable failure leaves its payload op as it was, strategy attribute
// included, and can be suppressed: the other ops of the handle are mapped
// all the same.

// CHECK-LABEL: func @mixed
// The op that the GPU mapping does not take (a reduction along dimension
// 0) is untouched: no softmax.strategy is left on it.
// CHECK: softmax.softmax ins(%{{.*}} : memref<64x1024xf32>) outs(%{{.*}} : memref<64x1024xf32>) dimension(0) masked(zero) algorithm(online) {outer}
// The other op is mapped, with the script's strategy.
// CHECK: gpu.launch
// CHECK: } {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 128, rows_per_block = 1, vector_width = 4, cached_vectors = 2, splits = 1>}
// CHECK-NOT: softmax.softmax ins
// CHECK: return
func.func @mixed(%x: memref<64x1024xf32>, %y: memref<64x1024xf32>) {
  softmax.softmax ins(%x : memref<64x1024xf32>) outs(%y : memref<64x1024xf32>) dimension(0) masked(zero) algorithm(online) {outer}
  softmax.softmax ins(%x : memref<64x1024xf32>) outs(%y : memref<64x1024xf32>) dimension(1) masked(zero) algorithm(online)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    transform.sequence %root : !transform.any_op failures(suppress) {
    ^bb0(%arg: !transform.any_op):
      %ops = transform.structured.match ops{["softmax.softmax"]} in %arg : (!transform.any_op) -> !transform.any_op
      %launches = transform.softmax.map_to_gpu %ops {strategy = #softmax.gpu_strategy<threads_per_row = 128, cached_vectors = 2>}
          : (!transform.any_op) -> !transform.any_op
    }
    transform.yield
  }
}
