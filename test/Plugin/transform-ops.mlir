// The transform.softmax ops in Debian's stock mlir-opt through the dialect
// plugin alone: a script maps a softmax onto CPU vector loops.
// An ASan-built plugin cannot be dlopen'ed into the uninstrumented mlir-opt.
// UNSUPPORTED: asan

// RUN: %mlir_opt --load-dialect-plugin=%plugin %s --transform-interpreter | FileCheck %s

// CHECK-LABEL: func.func @softmax
// CHECK: scf.parallel
// CHECK: vector.load {{.*}} vector<8xf32>
// CHECK: } {softmax.strategy = #softmax.cpu_strategy<algorithm = online, vector_width = 8, {{.*}}>}
// CHECK-NOT: softmax.softmax ins
func.func @softmax(%x: memref<4x100xf32>, %y: memref<4x100xf32>) {
  softmax.softmax ins(%x : memref<4x100xf32>) outs(%y : memref<4x100xf32>) dimension(1) masked(zero)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %ops = transform.structured.match ops{["softmax.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.softmax.select_algorithm %ops {target = "gpu"} : !transform.any_op
    %loops = transform.softmax.map_to_cpu %ops {vector_width = 8} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
