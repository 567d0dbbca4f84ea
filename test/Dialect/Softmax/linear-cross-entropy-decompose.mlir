// RUN: softmax-opt %s --softmax-decompose --canonicalize --cse | FileCheck %s
// RUN: softmax-opt %s --softmax-decompose=to-state=true | FileCheck %s --check-prefix=STATE

// The vocabulary in tiles of 256 (1031 classes: the last tile of 7): each
// tile's f32 logits [8, size] are a contraction of the hidden states with
// a slice of the classifier (bias and softcap applied), folded into the
// tokens' (m, l, c) state; the loop carries the state and no [8, 1031]
// tensor exists. The target logits read their classifier rows with
// tensor.extract (the class clamped into [0, V)); the mean divides the sum
// of the kept tokens' losses by their count.
// CHECK-LABEL: func.func @mean
// CHECK-NOT:   tensor<8x1031xf32>
// CHECK:       %[[ST:.*]]:3 = scf.for %[[V0:.*]] = %c0 to %c1031 step %c256 iter_args(%[[M:.*]] = %{{.*}}, %[[L:.*]] = %{{.*}}, %[[C:.*]] = %{{.*}})
// CHECK:         %[[SIZE:.*]] = arith.minsi %{{.*}}, %c256 : index
// CHECK:         %[[W:.*]] = tensor.extract_slice %arg1[%[[V0]], 0] [%[[SIZE]], 64] [1, 1]
// CHECK:         %[[Z:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %[[W]] : tensor<8x64xbf16>, tensor<?x64xbf16>)
// CHECK:           arith.extf
// CHECK:           arith.mulf
// CHECK:         linalg.generic {{.*}} ins(%[[Z]], %{{.*}} : tensor<8x?xf32>, tensor<?xbf16>)
// CHECK:           math.tanh
// CHECK:         linalg.generic {{.*}} outs(%[[M]], %[[L]], %[[C]] :
// CHECK:           arith.maximumf
// CHECK:           math.exp
// CHECK:         scf.yield
// CHECK:       linalg.generic {{.*}} ins(%[[ST]]#0, %[[ST]]#1 :
// CHECK:         math.log
// CHECK:       linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%arg0, %arg2 : tensor<8x64xbf16>, tensor<8xi64>)
// CHECK:         arith.maxsi
// CHECK:         arith.minsi
// CHECK:         tensor.extract %arg1[
// CHECK:       linalg.generic {{.*}} iterator_types = ["reduction"]}
// CHECK:         arith.cmpi ne, %{{.*}}, %c-100_i64
// CHECK:       linalg.generic {{.*}} outs(%arg4 : tensor<f32>)
// CHECK:         arith.divf
// STATE-LABEL: func.func @mean
// STATE:       scf.for
// STATE:         softmax.partial ins(%{{.*}} : tensor<{{.*}}xf32>) {{.*}} dimension(1) algorithm(online)
// STATE:       softmax.lse
func.func @mean(%h: tensor<8x64xbf16>, %w: tensor<1031x64xbf16>, %t: tensor<8xi64>, %b: tensor<1031xbf16>, %l0: tensor<f32>) -> tensor<f32> {
  %l = softmax.linear_cross_entropy ins(%h, %w, %t : tensor<8x64xbf16>, tensor<1031x64xbf16>, tensor<8xi64>) bias(%b : tensor<1031xbf16>) outs(%l0 : tensor<f32>) reduction(mean) softcap(30.0) vocab_tile(256)
  return %l : tensor<f32>
}

// The gradient: class tiles of 32 outside, token blocks of 2 inside; each
// (block, tile) recomputes its logits, forms du, asks whether the filter
// keeps any entry (|du| > filter |w_n|, unordered: NaN is kept) and, if
// so, runs du W into the block's grad_hidden rows and du^T h into the
// tile's grad_classifier rows; the counts count every tile and the
// filtered ones; grad_classifier rows are rounded to bf16 once per tile.
// CHECK-LABEL: func.func @grad
// CHECK:       scf.for %[[V0:.*]] = %c0 to %c97 step %c32
// CHECK:         scf.for %[[N0:.*]] = %c0 to %c5 step %c2
// CHECK:           math.exp
// CHECK:           %[[ANY:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]}
// CHECK:             %[[LIMIT:.*]] = arith.mulf %{{.*}}, %[[EPS:.*]] : f32
// CHECK:             %[[ABS:.*]] = math.absf
// CHECK:             arith.cmpf ugt, %[[ABS]], %[[LIMIT]] : f32
// CHECK:             arith.ori
// CHECK:           %[[KEEP:.*]] = tensor.extract %[[ANY]][] : tensor<i1>
// CHECK:           %[[SKIP:.*]] = arith.xori %[[KEEP]], %true
// CHECK:           scf.if %[[KEEP]]
// CHECK:             linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK:             tensor.insert_slice
// CHECK:             linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK:           arith.extui %[[SKIP]] : i1 to i64
// CHECK:         arith.truncf %{{.*}} : f32 to bf16
// CHECK:         tensor.insert_slice
// CHECK:       tensor.insert %{{.*}} into %arg7[%c0]
// CHECK:       tensor.insert %{{.*}} into %{{.*}}[%c1]
func.func @grad(%h: tensor<5x16xbf16>, %w: tensor<97x16xbf16>, %t: tensor<5xi64>, %lse: tensor<5xf32>, %dl: tensor<f32>, %gh0: tensor<5x16xbf16>, %gw0: tensor<97x16xbf16>, %n0: tensor<2xi64>) -> (tensor<5x16xbf16>, tensor<97x16xbf16>, tensor<2xi64>) {
  %gh, %gw, %n = softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : tensor<5x16xbf16>, tensor<97x16xbf16>, tensor<5xi64>, tensor<5xf32>, tensor<f32>) outs(%gh0, %gw0 : tensor<5x16xbf16>, tensor<97x16xbf16>) filter_counts(%n0 : tensor<2xi64>) reduction(mean) vocab_tile(32) token_tile(2)
  return %gh, %gw, %n : tensor<5x16xbf16>, tensor<97x16xbf16>, tensor<2xi64>
}
