// RUN: softmax-opt %s --softmax-map-to-cpu="vector-width=16 unroll=4" -split-input-file | FileCheck %s

// A request on the op (softmax.strategy = #softmax.cpu_strategy<...>) wins
// over the pass options and the heuristic for that op; what it leaves out
// keeps theirs (block 16); the op without a request keeps the options.
// CHECK-LABEL: func @request
// CHECK:       scf.parallel
// CHECK:         vector.load %arg0{{.*}} : memref<8x1000xf32>, vector<4xf32>
// CHECK-NOT:     vector<16xf32>
// CHECK:       } {softmax.strategy = #softmax.cpu_strategy<algorithm = three_pass, vector_width = 4, unroll = 2, block = 16, three_pass = recompute, exp = polynomial>}
// CHECK:       scf.parallel
// CHECK:         vector.load %arg0{{.*}} : memref<8x1000xf32>, vector<16xf32>
// CHECK:       } {softmax.strategy = #softmax.cpu_strategy<algorithm = three_pass, vector_width = 16, unroll = 4, block = 16, three_pass = {{.*}}, exp = fast>}
func.func @request(%x: memref<8x1000xf32>, %y: memref<8x1000xf32>, %z: memref<8x1000xf32>) {
  softmax.softmax ins(%x : memref<8x1000xf32>) outs(%y : memref<8x1000xf32>) dimension(1) masked(zero) algorithm(three_pass) {softmax.strategy = #softmax.cpu_strategy<vector_width = 4, unroll = 2, three_pass = recompute, exp = polynomial>}
  softmax.softmax ins(%x : memref<8x1000xf32>) outs(%z : memref<8x1000xf32>) dimension(1) masked(zero) algorithm(three_pass)
  return
}

// -----

// exp = polynomial in a request expands math.exp as the option does
// (exp-expansion.mlir): no math.exp left, no clamp at -88 of the fast exp.
// CHECK-LABEL: func @polynomial
// CHECK-NOT:   math.exp
// CHECK-NOT:   dense<-8.800000e+01>
// CHECK:       math.fma
// CHECK-NOT:   math.exp
// CHECK:       } {softmax.strategy = #softmax.cpu_strategy<algorithm = online, vector_width = 16, unroll = 4, block = 16, exp = polynomial>}
func.func @polynomial(%x: memref<8x64xf32>, %y: memref<8x64xf32>) {
  softmax.softmax ins(%x : memref<8x64xf32>) outs(%y : memref<8x64xf32>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.cpu_strategy<exp = polynomial>}
  return
}

// -----

// A record is a valid request: the same strategy again.
// CHECK-LABEL: func @record_as_request
// CHECK:       } {softmax.strategy = #softmax.cpu_strategy<algorithm = exp_pair, vector_width = 8, unroll = 1, block = 2, exp = fast>}
func.func @record_as_request(%x: memref<8x64xf32>, %y: memref<8xf32>) {
  softmax.logsumexp ins(%x : memref<8x64xf32>) outs(%y : memref<8xf32>) dimension(1) masked(zero) algorithm(exp_pair) {softmax.strategy = #softmax.cpu_strategy<algorithm = exp_pair, vector_width = 8, unroll = 1, block = 2, exp = fast>}
  return
}

// -----

// Attention: a request for 8 lanes over the option's 16.
// CHECK-LABEL: func @attention
// CHECK:       scf.parallel
// CHECK:         vector.load %arg0{{.*}} : memref<1x2x4x32xf32>, vector<8xf32>
// CHECK:       } {softmax.strategy = #softmax.attention_cpu_strategy<vector_width = 8, keys_per_block = 8>}
func.func @attention(%q: memref<1x2x4x32xf32>, %k: memref<1x2x8x32xf32>, %v: memref<1x2x8x32xf32>, %o: memref<1x2x4x32xf32>) {
  softmax.attention ins(%q, %k, %v : memref<1x2x4x32xf32>, memref<1x2x8x32xf32>, memref<1x2x8x32xf32>) outs(%o : memref<1x2x4x32xf32>) masked(zero) {softmax.strategy = #softmax.attention_cpu_strategy<vector_width = 8>}
  return
}
