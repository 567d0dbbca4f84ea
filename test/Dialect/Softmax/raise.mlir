// RUN: softmax-opt %s --softmax-raise -split-input-file | FileCheck %s

// CHECK-LABEL: func @linalg_softmax
// CHECK-SAME: (%[[X:.*]]: tensor<2x16xf32>)
// CHECK: %[[E:.*]] = tensor.empty
// CHECK: softmax.softmax ins(%[[X]] : tensor<2x16xf32>) outs(%[[E]] : tensor<2x16xf32>) dimension(1) masked(nan){{$}}
func.func @linalg_softmax(%x: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %e = tensor.empty() : tensor<2x16xf32>
  %y = linalg.softmax dimension(1) ins(%x : tensor<2x16xf32>) outs(%e : tensor<2x16xf32>) -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}

// -----

// torch-mlir style: one linalg.generic per step, dynamic row length.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func @generic_steps
// CHECK-SAME: (%[[X:.*]]: tensor<4x?xbf16>)
// CHECK: %[[Y:.*]] = softmax.softmax ins(%[[X]] : tensor<4x?xbf16>) outs(%{{.*}} : tensor<4x?xbf16>) dimension(1) masked(nan)
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
func.func @generic_steps(%x: tensor<4x?xbf16>) -> tensor<4x?xbf16> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<4x?xbf16>
  %ninf = arith.constant 0xFF80 : bf16
  %zero = arith.constant 0.0 : bf16
  %e4 = tensor.empty() : tensor<4xbf16>
  %minit = linalg.fill ins(%ninf : bf16) outs(%e4 : tensor<4xbf16>) -> tensor<4xbf16>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x?xbf16>) outs(%minit : tensor<4xbf16>) {
  ^bb0(%a: bf16, %b: bf16):
    %m = arith.maximumf %a, %b : bf16
    linalg.yield %m : bf16
  } -> tensor<4xbf16>
  %e = tensor.empty(%n) : tensor<4x?xbf16>
  %sub = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<4x?xbf16>, tensor<4xbf16>) outs(%e : tensor<4x?xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %c: bf16):
    %s = arith.subf %a, %b : bf16
    linalg.yield %s : bf16
  } -> tensor<4x?xbf16>
  %exp = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sub : tensor<4x?xbf16>) outs(%e : tensor<4x?xbf16>) {
  ^bb0(%a: bf16, %c: bf16):
    %t = math.exp %a : bf16
    linalg.yield %t : bf16
  } -> tensor<4x?xbf16>
  %sinit = linalg.fill ins(%zero : bf16) outs(%e4 : tensor<4xbf16>) -> tensor<4xbf16>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<4x?xbf16>) outs(%sinit : tensor<4xbf16>) {
  ^bb0(%a: bf16, %b: bf16):
    %s = arith.addf %b, %a : bf16
    linalg.yield %s : bf16
  } -> tensor<4xbf16>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<4x?xbf16>, tensor<4xbf16>) outs(%e : tensor<4x?xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %c: bf16):
    %d = arith.divf %a, %b : bf16
    linalg.yield %d : bf16
  } -> tensor<4x?xbf16>
  return %y : tensor<4x?xbf16>
}

// -----

// StableHLO-to-linalg style: linalg.reduce, linalg.broadcast, linalg.map,
// reduction over the leading dimension, -FLT_MAX as the max seed.
// CHECK-LABEL: func @named_ops_dim0
// CHECK: softmax.softmax ins(%{{.*}} : tensor<8x3xf32>) outs(%{{.*}} : tensor<8x3xf32>) dimension(0) masked(nan)
// CHECK-NOT: linalg.map
func.func @named_ops_dim0(%x: tensor<8x3xf32>) -> tensor<8x3xf32> {
  %lowest = arith.constant -3.40282347E+38 : f32
  %zero = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<3xf32>
  %e = tensor.empty() : tensor<8x3xf32>
  %minit = linalg.fill ins(%lowest : f32) outs(%e3 : tensor<3xf32>) -> tensor<3xf32>
  %max = linalg.reduce ins(%x : tensor<8x3xf32>) outs(%minit : tensor<3xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %m = arith.maxnumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %bmax = linalg.broadcast ins(%max : tensor<3xf32>) outs(%e : tensor<8x3xf32>) dimensions = [0]
  %sub = linalg.map { arith.subf } ins(%x, %bmax : tensor<8x3xf32>, tensor<8x3xf32>) outs(%e : tensor<8x3xf32>)
  %exp = linalg.map { math.exp } ins(%sub : tensor<8x3xf32>) outs(%e : tensor<8x3xf32>)
  %sinit = linalg.fill ins(%zero : f32) outs(%e3 : tensor<3xf32>) -> tensor<3xf32>
  %sum = linalg.reduce { arith.addf } ins(%exp : tensor<8x3xf32>) outs(%sinit : tensor<3xf32>) dimensions = [0]
  %bsum = linalg.broadcast ins(%sum : tensor<3xf32>) outs(%e : tensor<8x3xf32>) dimensions = [0]
  %y = linalg.map { arith.divf } ins(%exp, %bsum : tensor<8x3xf32>, tensor<8x3xf32>) outs(%e : tensor<8x3xf32>)
  return %y : tensor<8x3xf32>
}

// -----

// Fused form: exp(x - max) computed inside the sum reduction and again in
// the division.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func @fused_exp
// CHECK: softmax.softmax ins(%{{.*}} : tensor<4x32xf32>) outs(%{{.*}} : tensor<4x32xf32>) dimension(1) masked(nan)
func.func @fused_exp(%x: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<4xf32>
  %e = tensor.empty() : tensor<4x32xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %max = linalg.reduce { arith.maximumf } ins(%x : tensor<4x32xf32>) outs(%minit : tensor<4xf32>) dimensions = [1]
  %sinit = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %max : tensor<4x32xf32>, tensor<4xf32>) outs(%sinit : tensor<4xf32>) {
  ^bb0(%a: f32, %m: f32, %s: f32):
    %d = arith.subf %a, %m : f32
    %t = math.exp %d : f32
    %r = arith.addf %t, %s : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max, %sum : tensor<4x32xf32>, tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4x32xf32>) {
  ^bb0(%a: f32, %m: f32, %s: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %t = math.exp %d : f32
    %q = arith.divf %t, %s : f32
    linalg.yield %q : f32
  } -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// log_softmax: (x - max) - log(sum(exp(x - max))), log taken on the
// reduced tensor, then broadcast.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#r1 = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func @log_softmax
// CHECK: softmax.log_softmax ins(%{{.*}} : tensor<4x32xf32>) outs(%{{.*}} : tensor<4x32xf32>) dimension(1) masked(nan)
func.func @log_softmax(%x: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<4xf32>
  %e = tensor.empty() : tensor<4x32xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %max = linalg.reduce { arith.maximumf } ins(%x : tensor<4x32xf32>) outs(%minit : tensor<4xf32>) dimensions = [1]
  %shifted = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<4x32xf32>, tensor<4xf32>) outs(%e : tensor<4x32xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    linalg.yield %d : f32
  } -> tensor<4x32xf32>
  %exp = linalg.map { math.exp } ins(%shifted : tensor<4x32xf32>) outs(%e : tensor<4x32xf32>)
  %sinit = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.reduce { arith.addf } ins(%exp : tensor<4x32xf32>) outs(%sinit : tensor<4xf32>) dimensions = [1]
  %log = linalg.map { math.log } ins(%sum : tensor<4xf32>) outs(%e4 : tensor<4xf32>)
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%shifted, %log : tensor<4x32xf32>, tensor<4xf32>) outs(%e : tensor<4x32xf32>) {
  ^bb0(%a: f32, %l: f32, %o: f32):
    %d = arith.subf %a, %l : f32
    linalg.yield %d : f32
  } -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// logsumexp: max + log(sum(exp(x - max))). With a -inf seed an all -inf row
// yields NaN; with -FLT_MAX it yields -inf: the raised op says which.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#r1 = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func @logsumexp
// CHECK: %[[A:.*]] = softmax.logsumexp ins(%{{.*}} : tensor<4x32xf32>) outs(%{{.*}} : tensor<4xf32>) dimension(1) masked(nan)
// CHECK: %[[B:.*]] = softmax.logsumexp ins(%{{.*}} : tensor<4x32xf32>) outs(%{{.*}} : tensor<4xf32>) dimension(1) masked(zero)
// CHECK: return %[[A]], %[[B]]
func.func @logsumexp(%x: tensor<4x32xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %lowest = arith.constant -3.40282347E+38 : f32
  %zero = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<4xf32>
  %e = tensor.empty() : tensor<4x32xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %aminit = linalg.fill ins(%ninf : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %amax = linalg.reduce { arith.maximumf } ins(%x : tensor<4x32xf32>) outs(%aminit : tensor<4xf32>) dimensions = [1]
  %aexp = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %amax : tensor<4x32xf32>, tensor<4xf32>) outs(%e : tensor<4x32xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %t = math.exp %d : f32
    linalg.yield %t : f32
  } -> tensor<4x32xf32>
  %asum = linalg.reduce { arith.addf } ins(%aexp : tensor<4x32xf32>) outs(%sinit : tensor<4xf32>) dimensions = [1]
  %alse = linalg.generic {indexing_maps = [#r1, #r1, #r1], iterator_types = ["parallel"]}
      ins(%amax, %asum : tensor<4xf32>, tensor<4xf32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%m: f32, %s: f32, %o: f32):
    %l = math.log %s : f32
    %r = arith.addf %m, %l : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %bminit = linalg.fill ins(%lowest : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %bmax = linalg.reduce { arith.maximumf } ins(%x : tensor<4x32xf32>) outs(%bminit : tensor<4xf32>) dimensions = [1]
  %bexp = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %bmax : tensor<4x32xf32>, tensor<4xf32>) outs(%e : tensor<4x32xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %t = math.exp %d : f32
    linalg.yield %t : f32
  } -> tensor<4x32xf32>
  %bsum = linalg.reduce { arith.addf } ins(%bexp : tensor<4x32xf32>) outs(%sinit : tensor<4xf32>) dimensions = [1]
  %blse = linalg.generic {indexing_maps = [#r1, #r1, #r1], iterator_types = ["parallel"]}
      ins(%bmax, %bsum : tensor<4xf32>, tensor<4xf32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%m: f32, %s: f32, %o: f32):
    %l = math.log %s : f32
    %r = arith.addf %m, %l : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %alse, %blse : tensor<4xf32>, tensor<4xf32>
}
