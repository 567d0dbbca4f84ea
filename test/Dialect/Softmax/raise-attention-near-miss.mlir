// RUN: softmax-opt %s --softmax-raise -split-input-file | FileCheck %s
// RUN: softmax-opt %s --softmax-raise=remarks=true -split-input-file -verify-diagnostics -o /dev/null
// Graphs that look like attention but compute something else, or something
// softmax.attention cannot express, stay as they are (their softmax may
// still become softmax.softmax).

// The softmax runs over the queries (dimension 2), not the keys.
// CHECK-LABEL: func @softmax_over_queries
// CHECK-NOT: softmax.attention
// CHECK: = linalg.contract
// CHECK: = softmax.softmax {{.*}} dimension(2)
// CHECK: %[[O:.*]] = linalg.contract
// CHECK-NOT: softmax.attention
// CHECK: return %[[O]]
func.func @softmax_over_queries(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.25 : f32
  %es = tensor.empty() : tensor<1x2x8x8xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%es : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %eo = tensor.empty() : tensor<1x2x8x16xf32>
  %oinit = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %s = linalg.contract indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, h, j, d)>,
      affine_map<(b, h, i, j, d) -> (b, h, i, j)>]
      ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sinit : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<1x2x8x8xf32>) outs(%es : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %pr = linalg.softmax dimension(2) ins(%x : tensor<1x2x8x8xf32>) outs(%es : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  // expected-remark @below {{softmax-raise: attention-shaped computation not raised: softmax is not over the last dimension}}
  %out = linalg.contract indexing_maps = [affine_map<(b, h, i, e, j) -> (b, h, i, j)>, affine_map<(b, h, i, e, j) -> (b, h, j, e)>,
      affine_map<(b, h, i, e, j) -> (b, h, i, e)>]
      ins(%pr, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oinit : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %out : tensor<1x2x8x16xf32>
}

// -----

// The scale is a function argument, not a constant.
// CHECK-LABEL: func @scale_not_constant
// CHECK-NOT: softmax.attention
// CHECK: = linalg.contract
// CHECK: = softmax.softmax {{.*}} dimension(3)
// CHECK: %[[O:.*]] = linalg.contract
// CHECK-NOT: softmax.attention
// CHECK: return %[[O]]
func.func @scale_not_constant(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %scale: f32) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.25 : f32
  %es = tensor.empty() : tensor<1x2x8x8xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%es : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %eo = tensor.empty() : tensor<1x2x8x16xf32>
  %oinit = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %s = linalg.contract indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, h, j, d)>,
      affine_map<(b, h, i, j, d) -> (b, h, i, j)>]
      ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sinit : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<1x2x8x8xf32>) outs(%es : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %scale : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<1x2x8x8xf32>) outs(%es : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  // expected-remark @below {{softmax-raise: attention-shaped computation not raised: softmax input is not c * S (+ mask) with c constant and S = Q K^T a batched matmul into zeros}}
  %out = linalg.contract indexing_maps = [affine_map<(b, h, i, e, j) -> (b, h, i, j)>, affine_map<(b, h, i, e, j) -> (b, h, j, e)>,
      affine_map<(b, h, i, e, j) -> (b, h, i, e)>]
      ins(%pr, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oinit : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %out : tensor<1x2x8x16xf32>
}

// -----

// The constant divided by the scores (c / S) is no scale.
// CHECK-LABEL: func @constant_over_scores
// CHECK-NOT: softmax.attention
// CHECK: = linalg.contract
// CHECK: = softmax.softmax {{.*}} dimension(3)
// CHECK: %[[O:.*]] = linalg.contract
// CHECK-NOT: softmax.attention
// CHECK: return %[[O]]
func.func @constant_over_scores(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.25 : f32
  %es = tensor.empty() : tensor<1x2x8x8xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%es : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %eo = tensor.empty() : tensor<1x2x8x16xf32>
  %oinit = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %s = linalg.contract indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, h, j, d)>,
      affine_map<(b, h, i, j, d) -> (b, h, i, j)>]
      ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sinit : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<1x2x8x8xf32>) outs(%es : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.divf %c, %a : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<1x2x8x8xf32>) outs(%es : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  // expected-remark @below {{softmax-raise: attention-shaped computation not raised: softmax input is not c * S (+ mask) with c constant and S = Q K^T a batched matmul into zeros}}
  %out = linalg.contract indexing_maps = [affine_map<(b, h, i, e, j) -> (b, h, i, j)>, affine_map<(b, h, i, e, j) -> (b, h, j, e)>,
      affine_map<(b, h, i, e, j) -> (b, h, i, e)>]
      ins(%pr, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oinit : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %out : tensor<1x2x8x16xf32>
}

// -----

// The probabilities are returned as well: raising would compute them twice.
// CHECK-LABEL: func @probabilities_returned
// CHECK-NOT: softmax.attention
// CHECK: = linalg.contract
// CHECK: = softmax.softmax {{.*}} dimension(3)
// CHECK: %[[O:.*]] = linalg.contract
// CHECK-NOT: softmax.attention
// CHECK: return %[[O]], %
func.func @probabilities_returned(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> (tensor<1x2x8x16xf32>, tensor<1x2x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.25 : f32
  %es = tensor.empty() : tensor<1x2x8x8xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%es : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %eo = tensor.empty() : tensor<1x2x8x16xf32>
  %oinit = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %s = linalg.contract indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, h, j, d)>,
      affine_map<(b, h, i, j, d) -> (b, h, i, j)>]
      ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sinit : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<1x2x8x8xf32>) outs(%es : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<1x2x8x8xf32>) outs(%es : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  // expected-remark @below {{softmax-raise: attention-shaped computation not raised: probabilities have other users}}
  %out = linalg.contract indexing_maps = [affine_map<(b, h, i, e, j) -> (b, h, i, j)>, affine_map<(b, h, i, e, j) -> (b, h, j, e)>,
      affine_map<(b, h, i, e, j) -> (b, h, i, e)>]
      ins(%pr, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oinit : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %out, %pr : tensor<1x2x8x16xf32>, tensor<1x2x8x8xf32>
}

// -----

// Dropout between the softmax and P V.
// CHECK-LABEL: func @dropout
// CHECK-NOT: softmax.attention
// CHECK: = linalg.contract
// CHECK: = softmax.softmax {{.*}} dimension(3)
// CHECK: %[[O:.*]] = linalg.contract
// CHECK-NOT: softmax.attention
// CHECK: return %[[O]]
func.func @dropout(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %keep: tensor<1x2x8x8xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.25 : f32
  %es = tensor.empty() : tensor<1x2x8x8xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%es : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %eo = tensor.empty() : tensor<1x2x8x16xf32>
  %oinit = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %s = linalg.contract indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, h, j, d)>,
      affine_map<(b, h, i, j, d) -> (b, h, i, j)>]
      ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sinit : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<1x2x8x8xf32>) outs(%es : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<1x2x8x8xf32>) outs(%es : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %dr = linalg.mul ins(%pr, %keep : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%es : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  // expected-remark @below {{softmax-raise: attention-shaped computation not raised: left operand is not a softmax}}
  %out = linalg.contract indexing_maps = [affine_map<(b, h, i, e, j) -> (b, h, i, j)>, affine_map<(b, h, i, e, j) -> (b, h, j, e)>,
      affine_map<(b, h, i, e, j) -> (b, h, i, e)>]
      ins(%dr, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oinit : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %out : tensor<1x2x8x16xf32>
}

// -----

// The scaled scores are returned as well.
// CHECK-LABEL: func @scores_returned
// CHECK-NOT: softmax.attention
// CHECK: = linalg.contract
// CHECK: = softmax.softmax {{.*}} dimension(3)
// CHECK: %[[O:.*]] = linalg.contract
// CHECK-NOT: softmax.attention
// CHECK: return %[[O]], %
func.func @scores_returned(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> (tensor<1x2x8x16xf32>, tensor<1x2x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.25 : f32
  %es = tensor.empty() : tensor<1x2x8x8xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%es : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %eo = tensor.empty() : tensor<1x2x8x16xf32>
  %oinit = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %s = linalg.contract indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, h, j, d)>,
      affine_map<(b, h, i, j, d) -> (b, h, i, j)>]
      ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sinit : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<1x2x8x8xf32>) outs(%es : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<1x2x8x8xf32>) outs(%es : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  // expected-remark @below {{softmax-raise: attention-shaped computation not raised: scores have other users}}
  %out = linalg.contract indexing_maps = [affine_map<(b, h, i, e, j) -> (b, h, i, j)>, affine_map<(b, h, i, e, j) -> (b, h, j, e)>,
      affine_map<(b, h, i, e, j) -> (b, h, i, e)>]
      ins(%pr, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oinit : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %out, %x : tensor<1x2x8x16xf32>, tensor<1x2x8x8xf32>
}

// -----

// The second matmul contracts the query dimension of P (P^T V), not the keys.
// CHECK-LABEL: func @pv_contracts_queries
// CHECK-NOT: softmax.attention
// CHECK: = linalg.contract
// CHECK: = softmax.softmax {{.*}} dimension(3)
// CHECK: %[[O:.*]] = linalg.contract
// CHECK-NOT: softmax.attention
// CHECK: return %[[O]]
func.func @pv_contracts_queries(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.25 : f32
  %es = tensor.empty() : tensor<1x2x8x8xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%es : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %eo = tensor.empty() : tensor<1x2x8x16xf32>
  %oinit = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %s = linalg.contract indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, h, j, d)>,
      affine_map<(b, h, i, j, d) -> (b, h, i, j)>]
      ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sinit : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<1x2x8x8xf32>) outs(%es : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<1x2x8x8xf32>) outs(%es : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  // expected-remark @below {{softmax-raise: attention-shaped computation not raised: not a batched matmul}}
  %out = linalg.contract indexing_maps = [affine_map<(b, h, m, n, k) -> (b, h, k, m)>, affine_map<(b, h, m, n, k) -> (b, h, k, n)>,
      affine_map<(b, h, m, n, k) -> (b, h, m, n)>]
      ins(%pr, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oinit : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %out : tensor<1x2x8x16xf32>
}

// -----

// A mask over the keys only ([Nk], a padding mask) is not a near miss any
// more: the op takes [.., Nq, Nk], so the mask is broadcast over the queries
// first.
// CHECK-LABEL: func @mask_keys_only
// CHECK: %[[M:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<8xf32>) outs(%{{.*}} : tensor<1x1x8x8xf32>)
// CHECK: %[[O:.*]] = softmax.attention ins({{.*}}, %[[M]] : {{.*}}, tensor<1x1x8x8xf32>)
// CHECK: return %[[O]]
func.func @mask_keys_only(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %mask: tensor<8xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.25 : f32
  %es = tensor.empty() : tensor<1x2x8x8xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%es : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %eo = tensor.empty() : tensor<1x2x8x16xf32>
  %oinit = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %s = linalg.contract indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, h, j, d)>,
      affine_map<(b, h, i, j, d) -> (b, h, i, j)>]
      ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sinit : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s, %mask : tensor<1x2x8x8xf32>, tensor<8xf32>) outs(%es : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %t = arith.mulf %a, %c : f32
    %r = arith.addf %t, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<1x2x8x8xf32>) outs(%es : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %out = linalg.contract indexing_maps = [affine_map<(b, h, i, e, j) -> (b, h, i, j)>, affine_map<(b, h, i, e, j) -> (b, h, j, e)>,
      affine_map<(b, h, i, e, j) -> (b, h, i, e)>]
      ins(%pr, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oinit : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %out : tensor<1x2x8x16xf32>
}

// -----

// A mask read transposed ([Nk, Nq]).
// CHECK-LABEL: func @mask_transposed
// CHECK-NOT: softmax.attention
// CHECK: = linalg.contract
// CHECK: = softmax.softmax {{.*}} dimension(3)
// CHECK: %[[O:.*]] = linalg.contract
// CHECK-NOT: softmax.attention
// CHECK: return %[[O]]
func.func @mask_transposed(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %mask: tensor<8x8xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.25 : f32
  %es = tensor.empty() : tensor<1x2x8x8xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%es : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %eo = tensor.empty() : tensor<1x2x8x16xf32>
  %oinit = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %s = linalg.contract indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, h, j, d)>,
      affine_map<(b, h, i, j, d) -> (b, h, i, j)>]
      ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sinit : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (j, i)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s, %mask : tensor<1x2x8x8xf32>, tensor<8x8xf32>) outs(%es : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %t = arith.mulf %a, %c : f32
    %r = arith.addf %t, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<1x2x8x8xf32>) outs(%es : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  // expected-remark @below {{softmax-raise: attention-shaped computation not raised: mask is not [B or 1, H or 1, Nq, Nk] up to unit dimensions}}
  %out = linalg.contract indexing_maps = [affine_map<(b, h, i, e, j) -> (b, h, i, j)>, affine_map<(b, h, i, e, j) -> (b, h, j, e)>,
      affine_map<(b, h, i, e, j) -> (b, h, i, e)>]
      ins(%pr, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oinit : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %out : tensor<1x2x8x16xf32>
}

// -----

// The mask is added before the scale, which scales the mask too.
// CHECK-LABEL: func @mask_before_scale
// CHECK-NOT: softmax.attention
// CHECK: = linalg.contract
// CHECK: = softmax.softmax {{.*}} dimension(3)
// CHECK: %[[O:.*]] = linalg.contract
// CHECK-NOT: softmax.attention
// CHECK: return %[[O]]
func.func @mask_before_scale(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %mask: tensor<1x1x8x8xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.25 : f32
  %es = tensor.empty() : tensor<1x2x8x8xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%es : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %eo = tensor.empty() : tensor<1x2x8x16xf32>
  %oinit = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %s = linalg.contract indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, h, j, d)>,
      affine_map<(b, h, i, j, d) -> (b, h, i, j)>]
      ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%sinit : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (0, 0, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s, %mask : tensor<1x2x8x8xf32>, tensor<1x1x8x8xf32>) outs(%es : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %t = arith.addf %a, %m : f32
    %r = arith.mulf %t, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<1x2x8x8xf32>) outs(%es : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  // expected-remark @below {{softmax-raise: attention-shaped computation not raised: softmax input is not c * S (+ mask) with c constant and S = Q K^T a batched matmul into zeros}}
  %out = linalg.contract indexing_maps = [affine_map<(b, h, i, e, j) -> (b, h, i, j)>, affine_map<(b, h, i, e, j) -> (b, h, j, e)>,
      affine_map<(b, h, i, e, j) -> (b, h, i, e)>]
      ins(%pr, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oinit : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %out : tensor<1x2x8x16xf32>
}

// -----

// Q K^T accumulates into a bias instead of zero.
// CHECK-LABEL: func @scores_accumulate
// CHECK-NOT: softmax.attention
// CHECK: = linalg.contract
// CHECK: = softmax.softmax {{.*}} dimension(3)
// CHECK: %[[O:.*]] = linalg.contract
// CHECK-NOT: softmax.attention
// CHECK: return %[[O]]
func.func @scores_accumulate(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %bias: tensor<1x2x8x8xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.25 : f32
  %es = tensor.empty() : tensor<1x2x8x8xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%es : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %eo = tensor.empty() : tensor<1x2x8x16xf32>
  %oinit = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %s = linalg.contract indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, h, j, d)>,
      affine_map<(b, h, i, j, d) -> (b, h, i, j)>]
      ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%bias : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<1x2x8x8xf32>) outs(%es : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<1x2x8x8xf32>) outs(%es : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  // expected-remark @below {{softmax-raise: attention-shaped computation not raised: softmax input is not c * S (+ mask) with c constant and S = Q K^T a batched matmul into zeros}}
  %out = linalg.contract indexing_maps = [affine_map<(b, h, i, e, j) -> (b, h, i, j)>, affine_map<(b, h, i, e, j) -> (b, h, j, e)>,
      affine_map<(b, h, i, e, j) -> (b, h, i, e)>]
      ins(%pr, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%oinit : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %out : tensor<1x2x8x16xf32>
}

// -----

// K repeats 2 key/value heads 4 times, V repeats 4 heads twice: the op
// has one key/value head count.
// CHECK-LABEL: func @kv_heads_differ
// CHECK-NOT: softmax.attention
// CHECK: = linalg.contract
// CHECK: = softmax.softmax {{.*}} dimension(3)
// CHECK: %[[O:.*]] = linalg.contract
// CHECK-NOT: softmax.attention
// CHECK: return %[[O]]
func.func @kv_heads_differ(%q: tensor<1x8x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x4x8x16xf32>) -> tensor<1x8x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.25 : f32
  %ek = tensor.empty() : tensor<1x2x4x8x16xf32>
  %k5 = linalg.generic {indexing_maps = [affine_map<(b, k, g, n, d) -> (b, k, n, d)>, affine_map<(b, k, g, n, d) -> (b, k, g, n, d)>],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%k : tensor<1x2x8x16xf32>) outs(%ek : tensor<1x2x4x8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x2x4x8x16xf32>
  %kr = tensor.collapse_shape %k5 [[0], [1, 2], [3], [4]] : tensor<1x2x4x8x16xf32> into tensor<1x8x8x16xf32>
  %ev = tensor.empty() : tensor<1x4x2x8x16xf32>
  %v5 = linalg.generic {indexing_maps = [affine_map<(b, k, g, n, d) -> (b, k, n, d)>, affine_map<(b, k, g, n, d) -> (b, k, g, n, d)>],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%v : tensor<1x4x8x16xf32>) outs(%ev : tensor<1x4x2x8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x4x2x8x16xf32>
  %vr = tensor.collapse_shape %v5 [[0], [1, 2], [3], [4]] : tensor<1x4x2x8x16xf32> into tensor<1x8x8x16xf32>
  %es = tensor.empty() : tensor<1x8x8x8xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%es : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %s = linalg.contract indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, h, j, d)>,
      affine_map<(b, h, i, j, d) -> (b, h, i, j)>]
      ins(%q, %kr : tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>) outs(%sinit : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<1x8x8x8xf32>) outs(%es : tensor<1x8x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x8x8x8xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<1x8x8x8xf32>) outs(%es : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %eo = tensor.empty() : tensor<1x8x8x16xf32>
  %oinit = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  // expected-remark @below {{softmax-raise: attention-shaped computation not raised: key and value do not repeat their heads alike}}
  %out = linalg.contract indexing_maps = [affine_map<(b, h, i, e, j) -> (b, h, i, j)>, affine_map<(b, h, i, e, j) -> (b, h, j, e)>,
      affine_map<(b, h, i, e, j) -> (b, h, i, e)>]
      ins(%pr, %vr : tensor<1x8x8x8xf32>, tensor<1x8x8x16xf32>) outs(%oinit : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  return %out : tensor<1x8x8x16xf32>
}

// -----

// Flattened heads that are split back differently: Q is [4, 2, N, D] merged
// to [8, N, D], the scores are split back as [2, 4, Nq, Nk]. Row i of every
// flattened operand is still batch-head i of the scores, so the [8, N, D]
// query is split as the scores are (not a near miss any more).
// CHECK-LABEL: func @flattened_head_counts_differ
// CHECK: %[[C:.*]] = tensor.collapse_shape %{{.*}} : tensor<4x2x8x16xf32> into tensor<8x8x16xf32>
// CHECK: %[[Q:.*]] = tensor.expand_shape %[[C]] {{.*}} into tensor<2x4x8x16xf32>
// CHECK: %[[A:.*]] = softmax.attention ins(%[[Q]],
// CHECK: %[[O:.*]] = tensor.collapse_shape %[[A]]
// CHECK: return %[[O]]
func.func @flattened_head_counts_differ(%q: tensor<4x2x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>) -> tensor<8x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %qf = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<4x2x8x16xf32> into tensor<8x8x16xf32>
  %kf = tensor.collapse_shape %k [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %es3 = tensor.empty() : tensor<8x8x8xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%es3 : tensor<8x8x8xf32>) -> tensor<8x8x8xf32>
  %s3 = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%qf, %kf : tensor<8x8x16xf32>, tensor<8x8x16xf32>) outs(%sinit : tensor<8x8x8xf32>) -> tensor<8x8x8xf32>
  %s = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 8, 8] : tensor<8x8x8xf32> into tensor<2x4x8x8xf32>
  %es = tensor.empty() : tensor<2x4x8x8xf32>
  %pr = linalg.softmax dimension(3) ins(%s : tensor<2x4x8x8xf32>) outs(%es : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %pf = tensor.collapse_shape %pr [[0, 1], [2], [3]] : tensor<2x4x8x8xf32> into tensor<8x8x8xf32>
  %vf = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %eo = tensor.empty() : tensor<8x8x16xf32>
  %oinit = linalg.fill ins(%zero : f32) outs(%eo : tensor<8x8x16xf32>) -> tensor<8x8x16xf32>
  %out = linalg.batch_matmul ins(%pf, %vf : tensor<8x8x8xf32>, tensor<8x8x16xf32>) outs(%oinit : tensor<8x8x16xf32>) -> tensor<8x8x16xf32>
  return %out : tensor<8x8x16xf32>
}

// -----

// f64 throughout: softmax.softmax takes f64, softmax.attention does not.
// CHECK-LABEL: func @f64
// CHECK-NOT: softmax.attention
// CHECK: = linalg.contract
// CHECK: = softmax.softmax {{.*}} : tensor<1x2x8x8xf64>
// CHECK: %[[O:.*]] = linalg.contract
// CHECK-NOT: softmax.attention
// CHECK: return %[[O]]
func.func @f64(%q: tensor<1x2x8x16xf64>, %k: tensor<1x2x8x16xf64>, %v: tensor<1x2x8x16xf64>) -> tensor<1x2x8x16xf64> {
  %zero = arith.constant 0.0 : f64
  %c = arith.constant 0.25 : f64
  %es = tensor.empty() : tensor<1x2x8x8xf64>
  %sinit = linalg.fill ins(%zero : f64) outs(%es : tensor<1x2x8x8xf64>) -> tensor<1x2x8x8xf64>
  %eo = tensor.empty() : tensor<1x2x8x16xf64>
  %oinit = linalg.fill ins(%zero : f64) outs(%eo : tensor<1x2x8x16xf64>) -> tensor<1x2x8x16xf64>
  %s = linalg.contract indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, h, j, d)>,
      affine_map<(b, h, i, j, d) -> (b, h, i, j)>]
      ins(%q, %k : tensor<1x2x8x16xf64>, tensor<1x2x8x16xf64>) outs(%sinit : tensor<1x2x8x8xf64>) -> tensor<1x2x8x8xf64>
  %x = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<1x2x8x8xf64>) outs(%es : tensor<1x2x8x8xf64>) {
  ^bb0(%a: f64, %o: f64):
    %r = arith.mulf %a, %c : f64
    linalg.yield %r : f64
  } -> tensor<1x2x8x8xf64>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<1x2x8x8xf64>) outs(%es : tensor<1x2x8x8xf64>) -> tensor<1x2x8x8xf64>
  // expected-remark @below {{softmax-raise: attention-shaped computation not raised: softmax does not accumulate in f32}}
  %out = linalg.contract indexing_maps = [affine_map<(b, h, i, e, j) -> (b, h, i, j)>, affine_map<(b, h, i, e, j) -> (b, h, j, e)>,
      affine_map<(b, h, i, e, j) -> (b, h, i, e)>]
      ins(%pr, %v : tensor<1x2x8x8xf64>, tensor<1x2x8x16xf64>) outs(%oinit : tensor<1x2x8x16xf64>) -> tensor<1x2x8x16xf64>
  return %out : tensor<1x2x8x16xf64>
}

// -----

// Integer scores (i8 Q K^T into i32, converted to f32 for the softmax): not a
// float contraction.
// CHECK-LABEL: func @integer_scores
// CHECK-NOT: softmax.attention
// CHECK: = linalg.batch_matmul
// CHECK: = softmax.softmax {{.*}} dimension(2)
// CHECK: %[[O:.*]] = linalg.batch_matmul
// CHECK-NOT: softmax.attention
// CHECK: return %[[O]]
func.func @integer_scores(%q: tensor<4x8x16xi8>, %k: tensor<4x8x16xi8>, %v: tensor<4x8x16xf32>) -> tensor<4x8x16xf32> {
  %zero = arith.constant 0 : i32
  %fzero = arith.constant 0.0 : f32
  %ei = tensor.empty() : tensor<4x8x8xi32>
  %sinit = linalg.fill ins(%zero : i32) outs(%ei : tensor<4x8x8xi32>) -> tensor<4x8x8xi32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%q, %k : tensor<4x8x16xi8>, tensor<4x8x16xi8>) outs(%sinit : tensor<4x8x8xi32>) -> tensor<4x8x8xi32>
  %es = tensor.empty() : tensor<4x8x8xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<4x8x8xi32>) outs(%es : tensor<4x8x8xf32>) {
  ^bb0(%a: i32, %o: f32):
    %r = arith.sitofp %a : i32 to f32
    linalg.yield %r : f32
  } -> tensor<4x8x8xf32>
  %pr = linalg.softmax dimension(2) ins(%x : tensor<4x8x8xf32>) outs(%es : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %eo = tensor.empty() : tensor<4x8x16xf32>
  %oinit = linalg.fill ins(%fzero : f32) outs(%eo : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  // expected-remark @below {{softmax-raise: attention-shaped computation not raised: softmax input is not c * S (+ mask) with c constant and S = Q K^T a batched matmul into zeros}}
  %out = linalg.batch_matmul ins(%pr, %v : tensor<4x8x8xf32>, tensor<4x8x16xf32>) outs(%oinit : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  return %out : tensor<4x8x16xf32>
}
