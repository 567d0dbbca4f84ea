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

// class_max: the forward's tiles of 512 classes write their groups of 256
// (a linalg.reduce of maximumf per group, inserted at column (v0 + g0) /
// 256; 1031 classes: the last group of 7). The gradient bounds each
// (block, tile) from the largest class_max of the groups it meets, the
// tokens' lse, weights and targets (crossEntropyBoundsToken: max - lse <=
// log(filter (1 - 2^-10)), weight ordered, target elsewhere or ignored),
// and recomputes the tile's logits only when that fails; the third count
// is the tiles bounded.
// CHECK-LABEL: func.func @class_max
// CHECK:       %[[FWD:.*]]:4 = scf.for %[[V0:.*]] = %c0 to %c1031 step %c512 iter_args({{.*}}, %[[CMI:.*]] = %arg5)
// CHECK:         scf.for %[[G0:.*]] = %c0 to %{{.*}} step %c256 iter_args(%[[CM:.*]] = %[[CMI]])
// CHECK:           %[[RED:.*]] = linalg.reduce ins(%{{.*}} : tensor<8x?xf32>)
// CHECK:             arith.maximumf
// CHECK:           %[[AT:.*]] = arith.addi %[[V0]], %[[G0]]
// CHECK:           %[[COL:.*]] = arith.divui %[[AT]], %c256
// CHECK:           tensor.insert_slice %[[RED]] into %[[CM]][0, %[[COL]]] [8, 1] [1, 1] : tensor<8xf32> into tensor<8x5xf32>
// CHECK:       scf.for %[[GV0:.*]] = %c0 to %c1031 step %c256 iter_args({{.*}}) -> (tensor<8x64xf32>, tensor<1031x64xbf16>, i64, i64, i64)
// CHECK:         scf.for %[[N0:.*]] = %c0 to %c8 step %c4
// CHECK:           %[[GFIRST:.*]] = arith.divui %[[GV0]], %c256
// CHECK:           %[[GEND:.*]] = arith.ceildivui %{{.*}}, %c256
// CHECK:           %[[NG:.*]] = arith.subi %[[GEND]], %[[GFIRST]]
// CHECK:           tensor.extract_slice %[[FWD]]#3[%[[N0]], %[[GFIRST]]] [%{{.*}}, %[[NG]]] [1, 1]
// CHECK:           linalg.reduce
// CHECK:             arith.maximumf
// CHECK:           %[[BOUNDS:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]}
// CHECK:             arith.subf
// CHECK:             arith.cmpf ole
// CHECK:             arith.cmpf ord
// CHECK:           %[[BOUNDED:.*]] = tensor.extract %[[BOUNDS]][] : tensor<i1>
// CHECK:           %[[TILE:.*]]:3 = scf.if %[[BOUNDED]]
// CHECK-NEXT:        scf.yield %{{.*}}, %{{.*}}, %true
// CHECK:           } else {
// CHECK:             linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK:             math.exp
// CHECK:           %[[FILTERED:.*]] = arith.ori %[[BOUNDED]], %[[TILE]]#2
// CHECK:           arith.extui %[[FILTERED]] : i1 to i64
// CHECK:           arith.extui %[[BOUNDED]] : i1 to i64
// CHECK:       tensor.insert %{{.*}} into %{{.*}}[%c2] : tensor<3xi64>
func.func @class_max(%h: tensor<8x64xbf16>, %w: tensor<1031x64xbf16>, %t: tensor<8xi64>, %l0: tensor<f32>, %s0: tensor<8xf32>, %cm0: tensor<8x5xf32>, %dl: tensor<f32>, %gh0: tensor<8x64xbf16>, %gw0: tensor<1031x64xbf16>, %n0: tensor<3xi64>) -> (tensor<f32>, tensor<8x64xbf16>, tensor<1031x64xbf16>, tensor<3xi64>) {
  %l, %lse, %cm = softmax.linear_cross_entropy ins(%h, %w, %t : tensor<8x64xbf16>, tensor<1031x64xbf16>, tensor<8xi64>) outs(%l0 : tensor<f32>) lse(%s0 : tensor<8xf32>) class_max(%cm0 : tensor<8x5xf32>) reduction(mean) vocab_tile(512)
  %gh, %gw, %n = softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : tensor<8x64xbf16>, tensor<1031x64xbf16>, tensor<8xi64>, tensor<8xf32>, tensor<f32>) class_max(%cm : tensor<8x5xf32>) outs(%gh0, %gw0 : tensor<8x64xbf16>, tensor<1031x64xbf16>) filter_counts(%n0 : tensor<3xi64>) reduction(mean) vocab_tile(256) token_tile(4)
  return %l, %gh, %gw, %n : tensor<f32>, tensor<8x64xbf16>, tensor<1031x64xbf16>, tensor<3xi64>
}
