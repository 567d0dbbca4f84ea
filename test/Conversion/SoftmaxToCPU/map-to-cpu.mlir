// RUN: softmax-opt %s --softmax-map-to-cpu="vector-width=16 l1-bytes=49152 l2-bytes=1048576" --canonicalize --split-input-file | FileCheck %s

// exp_pair: one fold pass (per-lane exponent and mantissa sum, no max
// pass), blocks of 16 groups of 4 vectors, a masked tail, then the output.
// CHECK-LABEL: func.func @exp_pair
// CHECK:       scf.parallel (%[[ROW:.*]]) = (%c0) to (%c64) step (%c1)
// CHECK:         scf.for {{.*}} step %c1024 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK:           scf.for {{.*}} step %c64 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-4:     vector.load %{{.*}}[%[[ROW]], %{{.*}}] : memref<64x4000xf32>, vector<16xf32>
// CHECK:             math.roundeven
// CHECK:             arith.shli
// CHECK:         scf.for {{.*}} step %c16 iter_args
// CHECK:           vector.create_mask
// CHECK:           vector.maskedload
// CHECK:         vector.reduction <maxnumf>
// The sum of the lanes: a halving tree (16 -> 8 -> 4 -> 2 -> 1), not an
// ordered vector.reduction <add>.
// CHECK:         vector.extract_strided_slice %{{.*}} {offsets = [0], sizes = [8], strides = [1]} : vector<16xf32> to vector<8xf32>
// CHECK:         vector.extract_strided_slice %{{.*}} {offsets = [8], sizes = [8], strides = [1]} : vector<16xf32> to vector<8xf32>
// CHECK:         arith.addf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK:         arith.addf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK:         arith.addf %{{.*}}, %{{.*}} : vector<2xf32>
// CHECK:         arith.addf %{{.*}}, %{{.*}} : vector<1xf32>
// CHECK:         vector.extract %{{.*}}[0] : f32 from vector<1xf32>
// CHECK-NOT:     vector.reduction <add>
// CHECK:         scf.if
// CHECK:           vector.maskedstore
// CHECK:         } else {
// CHECK:           vector.store
// CHECK:           vector.maskedstore
// CHECK:       } {softmax.strategy = #softmax.cpu_strategy<algorithm = exp_pair, vector_width = 16, unroll = 4, block = 16, exp = fast>}
func.func @exp_pair(%x: memref<64x4000xf32>, %y: memref<64x4000xf32>) {
  softmax.softmax ins(%x : memref<64x4000xf32>) outs(%y : memref<64x4000xf32>) dimension(1) masked(zero) algorithm(exp_pair)
  return
}

// -----

// three_pass on a row that fits half of L2 but not L1 (64 KiB in + out): a
// max pass, a sum pass that stores the exps (reload), and a pass that
// rescales the output.
// CHECK-LABEL: func.func @three_pass_reload
// CHECK:       scf.parallel
// CHECK:         arith.cmpf ogt
// CHECK:         vector.reduction <maxnumf>
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             vector.store
// CHECK:         arith.addf %{{.*}}, %{{.*}} : vector<1xf32>
// CHECK:         scf.if
// CHECK:         } else {
// CHECK:           vector.load %arg1
// CHECK:           arith.mulf
// CHECK:           vector.store
// CHECK:       } {softmax.strategy = #softmax.cpu_strategy<algorithm = three_pass, vector_width = 16, unroll = 4, block = 16, three_pass = reload, exp = fast>}
func.func @three_pass_reload(%x: memref<8x8192xf32>, %y: memref<8x8192xf32>) {
  softmax.softmax ins(%x : memref<8x8192xf32>) outs(%y : memref<8x8192xf32>) dimension(1) masked(zero) algorithm(three_pass)
  return
}

// -----

// bf16 in and out, a dynamic row length, online: the loads are extended to
// f32, the stores truncated.
// CHECK-LABEL: func.func @online_bf16
// CHECK:       %[[N:.*]] = memref.dim %arg0, %c1
// CHECK:       scf.parallel
// CHECK:         vector.load {{.*}} : memref<?x?xbf16>, vector<16xbf16>
// CHECK:         arith.extf {{.*}} : vector<16xbf16> to vector<16xf32>
// CHECK:         arith.truncf {{.*}} : vector<16xf32> to vector<16xbf16>
// CHECK:       } {softmax.strategy = #softmax.cpu_strategy<algorithm = online, vector_width = 16, unroll = 4, block = 16, exp = fast>}
func.func @online_bf16(%x: memref<?x?xbf16>, %y: memref<?x?xbf16>) {
  softmax.softmax ins(%x : memref<?x?xbf16>) outs(%y : memref<?x?xbf16>) dimension(1) masked(zero) algorithm(online)
  return
}

// -----

// logsumexp of a 3-D input: the leading dimensions collapse into rows and
// each row stores one scalar.
// CHECK-LABEL: func.func @logsumexp_3d
// CHECK:       memref.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : memref<2x3x100xf32> into memref<6x100xf32>
// CHECK:       memref.collapse_shape %arg1 {{\[\[}}0, 1]] : memref<2x3xf32> into memref<6xf32>
// CHECK:       scf.parallel
// CHECK:         math.log
// CHECK:         memref.store {{.*}} : memref<6xf32>
// CHECK:       } {softmax.strategy = #softmax.cpu_strategy<algorithm = three_pass,
func.func @logsumexp_3d(%x: memref<2x3x100xf32>, %y: memref<2x3xf32>) {
  softmax.logsumexp ins(%x : memref<2x3x100xf32>) outs(%y : memref<2x3xf32>) dimension(2) masked(zero) algorithm(three_pass)
  return
}

// -----

// A reduction along dimension 0 of a 3-D memref: lanes run across the
// reductions (16 neighbouring columns of the collapsed [1, 100, 40] view,
// the last chunk masked), each lane's state is final, and fully masked
// lanes are selected per vector instead of branched on.
// CHECK-LABEL: func.func @across
// CHECK:       %[[C:.*]] = memref.collapse_shape %arg0 {{\[\[}}0], [1, 2]] : memref<100x5x8xf32> into memref<100x40xf32>
// CHECK:       %[[X:.*]] = memref.expand_shape %[[C]] {{\[\[}}0, 1], [2]] output_shape [1, 100, 40]
// The outer dimension is 1: one loop dimension, over the chunks.
// CHECK:       scf.parallel (%[[J:.*]]) = (%c0) to (%c3) step (%c1)
// CHECK:         %[[COL:.*]] = arith.muli %[[J]], %c16
// CHECK:         %[[MASK:.*]] = vector.create_mask
// CHECK:         vector.maskedload %[[X]][%c0, %{{.*}}, %[[COL]]], %[[MASK]]
// CHECK-NOT:     vector.reduction
// CHECK:         arith.select
// CHECK:         vector.maskedstore
// CHECK:       } {softmax.strategy = #softmax.cpu_strategy<algorithm = online,
func.func @across(%x: memref<100x5x8xf32>, %y: memref<100x5x8xf32>) {
  softmax.softmax ins(%x : memref<100x5x8xf32>) outs(%y : memref<100x5x8xf32>) dimension(0) masked(zero) algorithm(online)
  return
}

// -----

// Rows of a larger buffer (a [rows, n] slice with a row stride, as
// bufferizing tensor.extract_slice gives) are read and written in place:
// no collapse, no copy.
// CHECK-LABEL: func.func @rows_of_a_slice
// CHECK:       scf.parallel (%[[ROW:.*]]) =
// CHECK:         vector.load %{{.*}}[%[[ROW]], %{{.*}}] : memref<4x1000xf32, strided<[2048, 1], offset: 3>>, vector<16xf32>
// CHECK:         vector.store %{{.*}}, %{{.*}}[%[[ROW]], %{{.*}}] : memref<4x1000xf32, strided<[1024, 1]>>, vector<16xf32>
// CHECK:         memref.store %{{.*}}, %{{.*}}[%[[ROW]]] : memref<4xf32, strided<[1], offset: 2>>
func.func @rows_of_a_slice(%x: memref<4x1000xf32, strided<[2048, 1], offset: 3>>, %y: memref<4x1000xf32, strided<[1024, 1]>>, %s: memref<4xf32, strided<[1], offset: 2>>) {
  softmax.softmax ins(%x : memref<4x1000xf32, strided<[2048, 1], offset: 3>>) outs(%y : memref<4x1000xf32, strided<[1024, 1]>>) dimension(1) masked(zero) algorithm(online)
  softmax.logsumexp ins(%x : memref<4x1000xf32, strided<[2048, 1], offset: 3>>) outs(%s : memref<4xf32, strided<[1], offset: 2>>) dimension(1) masked(zero) algorithm(online)
  return
}

// -----

// Rows of a range of heads ([2, 2, 8, n] of [2, 4, 8, n]: no one stride
// steps over the outer dimensions): the parallel loop runs over them and
// views each row as [1, n] in place, the logsumexp's element as [1].
// CHECK-LABEL: func.func @rows_of_heads
// CHECK:       scf.parallel (%[[B:.*]], %[[H:.*]], %[[S:.*]]) = (%{{.*}}, %{{.*}}, %{{.*}}) to (%c2, %c2, %c8)
// CHECK:         %[[XV:.*]] = memref.subview %{{.*}}[%[[B]], %[[H]], %[[S]], 0] [1, 1, 1, 1000] [1, 1, 1, 1]
// CHECK:         %[[XR:.*]] = memref.collapse_shape %[[XV]] {{\[}}[0, 1, 2], [3]] : memref<1x1x1x1000xf32, strided<[32000, 8000, 1000, 1], offset: ?>> into memref<1x1000xf32, strided<[32000, 1], offset: ?>>
// CHECK:         vector.load %[[XR]][%c0, %{{.*}}] : memref<1x1000xf32, strided<[32000, 1], offset: ?>>, vector<16xf32>
// CHECK:         vector.store %{{.*}}, %{{.*}}[%c0, %{{.*}}] : memref<1x1000xf32, strided<[16000, 1], offset: ?>>, vector<16xf32>
// CHECK:       scf.parallel
// CHECK:         memref.subview %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] [1, 1, 1] [1, 1, 1] : memref<2x2x8xf32, strided<[32, 8, 1], offset: 8>>
// CHECK:         %[[SR:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0, 1, 2]] : memref<1x1x1xf32, strided<[32, 8, 1], offset: ?>> into memref<1xf32, strided<[32], offset: ?>>
// CHECK:         memref.store %{{.*}}, %[[SR]][%c0]
func.func @rows_of_heads(%x: memref<2x2x8x1000xf32, strided<[32000, 8000, 1000, 1], offset: 8000>>, %y: memref<2x2x8x1000xf32>, %s: memref<2x2x8xf32, strided<[32, 8, 1], offset: 8>>) {
  softmax.softmax ins(%x : memref<2x2x8x1000xf32, strided<[32000, 8000, 1000, 1], offset: 8000>>) outs(%y : memref<2x2x8x1000xf32>) dimension(3) masked(zero) algorithm(online)
  softmax.logsumexp ins(%x : memref<2x2x8x1000xf32, strided<[32000, 8000, 1000, 1], offset: 8000>>) outs(%s : memref<2x2x8xf32, strided<[32, 8, 1], offset: 8>>) dimension(3) masked(zero) algorithm(online)
  return
}

// -----

// A logsumexp stored into every other element of a larger buffer: its
// outputs are written one element per row, so any strides do.
// CHECK-LABEL: func.func @logsumexp_into_a_column
// CHECK:       scf.parallel (%[[ROW:.*]]) =
// CHECK:         memref.store %{{.*}}, %{{.*}}[%[[ROW]]] : memref<4xf32, strided<[2], offset: 1>>
func.func @logsumexp_into_a_column(%x: memref<4x1000xf32>, %s: memref<4xf32, strided<[2], offset: 1>>) {
  softmax.logsumexp ins(%x : memref<4x1000xf32>) outs(%s : memref<4xf32, strided<[2], offset: 1>>) dimension(1) masked(zero) algorithm(online)
  return
}

// -----

// One row of a larger buffer (x[3, :]): a unit dimension added in place.
// CHECK-LABEL: func.func @one_row_of_a_slice
// CHECK:       %[[XR:.*]] = memref.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [1, 1000] : memref<1000xf32, strided<[1], offset: ?>> into memref<1x1000xf32, strided<[1000, 1], offset: ?>>
// CHECK:       vector.load %[[XR]][%c0, %{{.*}}] : memref<1x1000xf32, strided<[1000, 1], offset: ?>>, vector<16xf32>
func.func @one_row_of_a_slice(%x: memref<1000xf32, strided<[1], offset: ?>>, %y: memref<1000xf32>) {
  softmax.softmax ins(%x : memref<1000xf32, strided<[1], offset: ?>>) outs(%y : memref<1000xf32>) dimension(0) masked(zero) algorithm(online)
  return
}
