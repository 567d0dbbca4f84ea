// RUN: softmax-opt %s --one-shot-bufferize="bufferize-function-boundaries" -split-input-file | FileCheck %s

// The op reads its input and writes its init in place.
// CHECK-LABEL: func @in_place
// CHECK-SAME: (%[[X:.*]]: memref<4x128xf32{{.*}}>, %[[Y:.*]]: memref<4x128xf32{{.*}}>)
// CHECK-NOT: memref.alloc
// CHECK: softmax.softmax ins(%[[X]] : memref<4x128xf32{{.*}}>) outs(%[[Y]] : memref<4x128xf32{{.*}}>) dimension(1) masked(zero) algorithm(online)
// CHECK-NOT: memref.copy
func.func @in_place(%x: tensor<4x128xf32>, %y: tensor<4x128xf32>) -> tensor<4x128xf32> {
  %0 = softmax.softmax ins(%x : tensor<4x128xf32>) outs(%y : tensor<4x128xf32>) dimension(1) masked(zero) algorithm(online)
  return %0 : tensor<4x128xf32>
}

// -----

// The init is only written: a fresh tensor needs an allocation, no copy.
// CHECK-LABEL: func @fresh_init
// CHECK: %[[A:.*]] = memref.alloc() {{.*}} : memref<4xf32>
// CHECK-NOT: memref.copy
// CHECK: softmax.logsumexp ins(%{{.*}} : memref<4x128xf32{{.*}}>) outs(%[[A]] : memref<4xf32>)
func.func @fresh_init(%x: tensor<4x128xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %0 = softmax.logsumexp ins(%x : tensor<4x128xf32>) outs(%e : tensor<4xf32>) dimension(1) masked(nan) algorithm(exp_pair)
  return %0 : tensor<4xf32>
}

// -----

// A per-op strategy request on the tensor op reaches the mapping on buffers.
// CHECK-LABEL: func @request
// CHECK: softmax.softmax ins(%{{.*}} : memref<4x128xf32{{.*}}>) outs(%{{.*}} : memref<4x128xf32{{.*}}>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 64>}
// CHECK: softmax.attention {{.*}} masked(zero) {softmax.strategy = #softmax.attention_cpu_strategy<vector_width = 4>}
func.func @request(%x: tensor<4x128xf32>, %y: tensor<4x128xf32>, %q: tensor<1x1x4x16xf32>, %k: tensor<1x1x8x16xf32>, %v: tensor<1x1x8x16xf32>, %o: tensor<1x1x4x16xf32>) -> (tensor<4x128xf32>, tensor<1x1x4x16xf32>) {
  %0 = softmax.softmax ins(%x : tensor<4x128xf32>) outs(%y : tensor<4x128xf32>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 64>}
  %1 = softmax.attention ins(%q, %k, %v : tensor<1x1x4x16xf32>, tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>) outs(%o : tensor<1x1x4x16xf32>) masked(zero) {softmax.strategy = #softmax.attention_cpu_strategy<vector_width = 4>}
  return %0, %1 : tensor<4x128xf32>, tensor<1x1x4x16xf32>
}
