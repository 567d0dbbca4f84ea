// RUN: softmax-opt %s --softmax-decompose --canonicalize --cse -split-input-file | FileCheck %s

// A thresholded attention decomposes tiled by its own skip tile's keys
// (16 of 40: a short last tile): ln(lambda) once, then per key tile every
// row's verdict from the state algebra, the and over each query tile of 4
// rows, the old state kept where the tile is skipped, and the live and
// skipped pairs counted into the skip_counts result.
// CHECK-LABEL: func.func @query_tiles
// CHECK:       linalg.generic {{.*}} outs(%{{.*}} : tensor<1xf32>)
// CHECK:         arith.cmpf ogt, %[[T:.*]], %cst
// CHECK:         arith.cmpf olt, %[[T]], %cst
// CHECK:         math.log %[[T]]
// CHECK:       %[[LOOP:.*]]:5 = scf.for %{{.*}} = %c0 to %c40 step %c16 iter_args({{.*}}) -> (tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8x16xf32>, i64, i64)
// CHECK:         affine.min
// The rule: tile max - running max < ln(lambda), or the row sees no key.
// CHECK:         linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<1x2x8xi1>, tensor<1x2x8xi1>)
// CHECK:           %[[D:.*]] = arith.subf
// CHECK:           %[[BELOW:.*]] = arith.cmpf olt, %[[D]]
// CHECK:           %[[BLIND:.*]] = arith.cmpf ole, %{{.*}}, %cst{{.*}} : f32
// CHECK:           arith.ori %[[BELOW]], %[[BLIND]] : i1
// CHECK:           arith.cmpf ogt
// CHECK:         tensor.expand_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] output_shape [1, 2, 2, 4] : tensor<1x2x8xi1> into tensor<1x2x2x4xi1>
// CHECK:         linalg.reduce ins(%{{.*}} : tensor<1x2x2x4xi1>) {{.*}} dimensions = [3]
// CHECK:           arith.andi
// CHECK:         tensor.collapse_shape %{{.*}} : tensor<1x2x2x4xi1> into tensor<1x2x8xi1>
// CHECK:         linalg.reduce
// CHECK:           arith.ori
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction", "reduction", "reduction"]
// CHECK-COUNT-2:   arith.extui
// CHECK-COUNT-3: arith.select %in, %in_{{.*}}, %out : f32
// CHECK:         scf.yield
// CHECK:       %[[N:.*]] = tensor.from_elements %[[LOOP]]#3, %[[LOOP]]#4 : tensor<2xi64>
// CHECK:       return %{{.*}}, %[[N]]
func.func @query_tiles(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x40x16xf32>, %o: tensor<1x2x8x16xf32>, %t: f32, %n: tensor<2xi64>) -> (tensor<1x2x8x16xf32>, tensor<2xi64>) {
  %0:2 = softmax.attention ins(%q, %k, %k : tensor<1x2x8x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>) outs(%o : tensor<1x2x8x16xf32>) masked(zero) skip(lambda %t : f32, tile [4, 16]) skip_counts(%n : tensor<2xi64>)
  return %0#0, %0#1 : tensor<1x2x8x16xf32>, tensor<2xi64>
}

// -----

// One query row per tile needs no tile reduction; a dynamic Nq with Qt = 3
// pads the rows to a multiple of 3 (with true for the and). lambda = a / Nk
// per batch entry.
// CHECK-LABEL: func.func @rows_scale_factor
// CHECK:       arith.index_cast %{{.*}} : index to i64
// CHECK:       arith.sitofp
// CHECK:       linalg.generic {{.*}} ins(%{{.*}} : tensor<2xf32>) outs(%{{.*}} : tensor<2xf32>)
// CHECK:         arith.divf
// CHECK:         math.log
// CHECK:       scf.for
// CHECK-NOT:     linalg.reduce
// CHECK:         scf.yield
func.func @rows_scale_factor(%q: tensor<2x1x8x16xf32>, %k: tensor<2x1x?x16xf32>, %o: tensor<2x1x8x16xf32>, %a: tensor<2xf32>) -> tensor<2x1x8x16xf32> {
  %0 = softmax.attention ins(%q, %k, %k : tensor<2x1x8x16xf32>, tensor<2x1x?x16xf32>, tensor<2x1x?x16xf32>) outs(%o : tensor<2x1x8x16xf32>) masked(zero) skip(scale_factor %a : tensor<2xf32>, tile [1, 32])
  return %0 : tensor<2x1x8x16xf32>
}

// -----

// CHECK-LABEL: func.func @dynamic_rows
// CHECK:         tensor.pad %{{.*}} low[0, 0, 0] high[0, 0, %{{.*}}]
// CHECK:           tensor.yield %true
// CHECK:         tensor.expand_shape {{.*}} : tensor<1x1x?xi1> into tensor<1x1x?x3xi1>
func.func @dynamic_rows(%q: tensor<1x1x?x16xf32>, %k: tensor<1x1x64x16xf32>, %o: tensor<1x1x?x16xf32>, %t: f32) -> tensor<1x1x?x16xf32> {
  %0 = softmax.attention ins(%q, %k, %k : tensor<1x1x?x16xf32>, tensor<1x1x64x16xf32>, tensor<1x1x64x16xf32>) outs(%o : tensor<1x1x?x16xf32>) masked(zero) skip(lambda %t : f32, tile [3, 16])
  return %0 : tensor<1x1x?x16xf32>
}
