// RUN: softmax-opt %s --one-shot-bufferize="bufferize-function-boundaries" -split-input-file | FileCheck %s

// The op reads query, key and value and writes output and lse in place.
// CHECK-LABEL: func @in_place
// CHECK-SAME: (%[[Q:.*]]: memref<1x8x16x32xbf16{{.*}}>, %[[K:.*]]: memref<1x2x64x32xbf16{{.*}}>, %[[V:.*]]: memref<1x2x64x32xbf16{{.*}}>, %[[O:.*]]: memref<1x8x16x32xbf16{{.*}}>, %[[L:.*]]: memref<1x8x16xf32{{.*}}>)
// CHECK-NOT: memref.alloc
// CHECK: softmax.attention ins(%[[Q]], %[[K]], %[[V]] : {{.*}}) outs(%[[O]], %[[L]] : {{.*}}) masked(zero) scale(1.250000e-01) causal window(16){{$}}
// CHECK-NOT: memref.copy
// CHECK: return
func.func @in_place(%q: tensor<1x8x16x32xbf16>, %k: tensor<1x2x64x32xbf16>,
                    %v: tensor<1x2x64x32xbf16>, %o: tensor<1x8x16x32xbf16>,
                    %l: tensor<1x8x16xf32>)
    -> (tensor<1x8x16x32xbf16>, tensor<1x8x16xf32>) {
  %0:2 = softmax.attention ins(%q, %k, %v : tensor<1x8x16x32xbf16>, tensor<1x2x64x32xbf16>, tensor<1x2x64x32xbf16>)
      outs(%o, %l : tensor<1x8x16x32xbf16>, tensor<1x8x16xf32>)
      masked(zero) scale(0.125) causal window(16)
  return %0#0, %0#1 : tensor<1x8x16x32xbf16>, tensor<1x8x16xf32>
}

// -----

// The inits are only written: fresh tensors need allocations, no copies.
// The mask is read like the other inputs.
// CHECK-LABEL: func @fresh_inits
// CHECK-SAME: (%[[Q:.*]]: memref<2x4x8x16xf32{{.*}}>, %[[M:.*]]: memref<2x1x8x8xi1{{.*}}>)
// CHECK-DAG: %[[O:.*]] = memref.alloc() {{.*}} : memref<2x4x8x16xf32>
// CHECK-DAG: %[[L:.*]] = memref.alloc() {{.*}} : memref<2x4x8xf32>
// CHECK-NOT: memref.copy
// CHECK: softmax.attention ins(%[[Q]], %[[Q]], %[[Q]], %[[M]] : {{.*}}) outs(%[[O]], %[[L]] : memref<2x4x8x16xf32>, memref<2x4x8xf32>) masked(nan){{$}}
// CHECK: return %[[O]], %[[L]]
func.func @fresh_inits(%q: tensor<2x4x8x16xf32>, %m: tensor<2x1x8x8xi1>)
    -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>) {
  %eo = tensor.empty() : tensor<2x4x8x16xf32>
  %el = tensor.empty() : tensor<2x4x8xf32>
  %0:2 = softmax.attention ins(%q, %q, %q, %m : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x1x8x8xi1>)
      outs(%eo, %el : tensor<2x4x8x16xf32>, tensor<2x4x8xf32>) masked(nan)
  return %0#0, %0#1 : tensor<2x4x8x16xf32>, tensor<2x4x8xf32>
}

// -----

// An init that is still read after the op cannot be overwritten, so the op
// writes a new buffer; its old contents are never read, so nothing is copied.
// CHECK-LABEL: func @init_read_later
// CHECK-SAME: (%[[Q:.*]]: memref<1x1x4x4xf32{{.*}}>, %[[O:.*]]: memref<1x1x4x4xf32{{.*}}>)
// CHECK: %[[A:.*]] = memref.alloc() {{.*}} : memref<1x1x4x4xf32>
// CHECK-NOT: memref.copy
// CHECK: softmax.attention ins(%[[Q]], %[[Q]], %[[Q]] : {{.*}}) outs(%[[A]] : memref<1x1x4x4xf32>) masked(zero)
// CHECK: return %[[A]], %[[O]]
func.func @init_read_later(%q: tensor<1x1x4x4xf32>, %o: tensor<1x1x4x4xf32>)
    -> (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) {
  %0 = softmax.attention ins(%q, %q, %q : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>)
      outs(%o : tensor<1x1x4x4xf32>) masked(zero)
  return %0, %o : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>
}

// -----

// A skip threshold: the per-batch threshold is read like the inputs, the
// counts written like the output; a scalar threshold stays as it is.
// CHECK-LABEL: func @skip
// CHECK-SAME: (%[[Q:.*]]: memref<2x2x8x16xf32{{.*}}>, %[[T:.*]]: memref<2xf32{{.*}}>, %[[A:.*]]: f32)
// CHECK-DAG: %[[O:.*]] = memref.alloc() {{.*}} : memref<2x2x8x16xf32>
// CHECK-DAG: %[[N:.*]] = memref.alloc() {{.*}} : memref<2xi64>
// CHECK-NOT: memref.copy
// CHECK: softmax.attention ins(%[[Q]], %[[Q]], %[[Q]] : {{.*}}) outs(%[[O]] : memref<2x2x8x16xf32>) masked(zero) skip(lambda %[[T]] : memref<2xf32{{.*}}>, tile [1, 8]) skip_counts(%[[N]] : memref<2xi64>){{$}}
// CHECK: softmax.attention ins(%[[Q]], %[[Q]], %[[Q]] : {{.*}}) outs(%{{.*}} : memref<2x2x8x16xf32>) masked(zero) skip(scale_factor %[[A]] : f32, tile [2, 8]){{$}}
func.func @skip(%q: tensor<2x2x8x16xf32>, %t: tensor<2xf32>, %a: f32)
    -> (tensor<2x2x8x16xf32>, tensor<2xi64>, tensor<2x2x8x16xf32>) {
  %eo = tensor.empty() : tensor<2x2x8x16xf32>
  %en = tensor.empty() : tensor<2xi64>
  %0:2 = softmax.attention ins(%q, %q, %q : tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>)
      outs(%eo : tensor<2x2x8x16xf32>) masked(zero)
      skip(lambda %t : tensor<2xf32>, tile [1, 8]) skip_counts(%en : tensor<2xi64>)
  %e2 = tensor.empty() : tensor<2x2x8x16xf32>
  %1 = softmax.attention ins(%q, %q, %q : tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>)
      outs(%e2 : tensor<2x2x8x16xf32>) masked(zero) skip(scale_factor %a : f32, tile [2, 8])
  return %0#0, %0#1, %1 : tensor<2x2x8x16xf32>, tensor<2xi64>, tensor<2x2x8x16xf32>
}

// -----

// Key lengths, a page table, a threshold and skip counts keep their places
// among the operands: each becomes its buffer, outputs and counts written
// in place.
// CHECK-LABEL: func @paged_ragged_skip
// CHECK-SAME: (%[[Q:[a-z0-9]+]]: memref<2x4x1x32xbf16{{.*}}>, %[[K:[a-z0-9]+]]: memref<9x16x2x32xbf16{{.*}}>, %[[V:[a-z0-9]+]]: memref<9x16x2x32xbf16{{.*}}>, %[[LEN:[a-z0-9]+]]: memref<2xi32{{.*}}>, %[[PT:[a-z0-9]+]]: memref<2x4xi32{{.*}}>, %[[T:[a-z0-9]+]]: f32, %[[O:[a-z0-9]+]]: memref<2x4x1x32xbf16{{.*}}>, %[[N:[a-z0-9]+]]: memref<2xi64{{.*}}>)
// CHECK-NOT: memref.alloc
// CHECK: softmax.attention ins(%[[Q]], %[[K]], %[[V]] : {{.*}}) outs(%[[O]] : {{.*}}) masked(zero) causal key_lengths(%[[LEN]] : memref<2xi32{{.*}}>) page_table(%[[PT]] : memref<2x4xi32{{.*}}>) skip(lambda %[[T]] : f32, tile [16, 64]) skip_counts(%[[N]] : memref<2xi64{{.*}}>){{$}}
// CHECK-NOT: memref.copy
// CHECK: return
func.func @paged_ragged_skip(%q: tensor<2x4x1x32xbf16>, %k: tensor<9x16x2x32xbf16>,
                             %v: tensor<9x16x2x32xbf16>, %len: tensor<2xi32>,
                             %pt: tensor<2x4xi32>, %t: f32, %o: tensor<2x4x1x32xbf16>,
                             %n: tensor<2xi64>)
    -> (tensor<2x4x1x32xbf16>, tensor<2xi64>) {
  %0:2 = softmax.attention ins(%q, %k, %v : tensor<2x4x1x32xbf16>, tensor<9x16x2x32xbf16>, tensor<9x16x2x32xbf16>)
      outs(%o : tensor<2x4x1x32xbf16>) masked(zero) causal
      key_lengths(%len : tensor<2xi32>) page_table(%pt : tensor<2x4xi32>)
      skip(lambda %t : f32, tile [16, 64]) skip_counts(%n : tensor<2xi64>)
  return %0#0, %0#1 : tensor<2x4x1x32xbf16>, tensor<2xi64>
}
