// RUN: softmax-opt %s --softmax-map-to-cpu="vector-width=8 unroll=2" --canonicalize -split-input-file | FileCheck %s

// softmax.topk on the CPU: one scf.parallel iteration per row, which reads
// the row once, with its buffer of k (values, indices) and its held count
// in rows of scratch buffers allocated around the loop. Each vector is folded into the online (m, l) (vector max,
// exp) and filtered: one vector compare against the k-th kept value (or
// the not-NaN test while fewer than k are held), an or-reduction, and only
// where some lane passes, a loop over the lanes that inserts each one still
// admitted into the row's heap of k (an scf.while moving it up, or down
// from the root once k are held). After the row the heap is sorted (a loop
// of sift-downs), the row's lse from (m, l), then the k outputs. The strategy
// is recorded on the loop.
// CHECK-LABEL: func.func @topk
// CHECK:       %[[VALUES:.*]] = memref.alloc() : memref<4x50xf32>
// CHECK:       %[[IDX:.*]] = memref.alloc() : memref<4x50xi64>
// CHECK:       %[[HELD:.*]] = memref.alloc() : memref<4x16xi64>
// CHECK:       scf.parallel (%[[ROW:.*]]) =
// CHECK:         memref.store %c0_i64, %[[HELD]][%[[ROW]], %c0]
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             vector.load %{{.*}}[%[[ROW]], %{{.*}}] : memref<4x1001xbf16>, vector<8xbf16>
// CHECK:             vector.load %{{.*}}[%[[ROW]], %{{.*}}] : memref<4x1001xbf16>, vector<8xbf16>
// CHECK:             arith.cmpf ogt, %{{.*}} : vector<8xf32>
// CHECK:             %[[ANY:.*]] = vector.reduction <or>, %{{.*}} : vector<8xi1> into i1
// CHECK:             scf.if %[[ANY]] {
// CHECK:               scf.for %[[LANE:.*]] = %c0 to %c8 step %c1 {
// CHECK:                 vector.extract %{{.*}}[%[[LANE]]] : i1 from vector<8xi1>
// CHECK:                 scf.if
// CHECK:                   scf.while
// CHECK:                   memref.store %{{.*}}, %[[VALUES]][%[[ROW]],
// CHECK:                   memref.store %{{.*}}, %[[IDX]][%[[ROW]],
// The tail: masked loads, the mask joined to the filter's.
// CHECK:         scf.for
// CHECK:           vector.maskedload
// CHECK:           vector.reduction <or>
// CHECK:         math.log
// CHECK:         scf.for %[[J:.*]] = %c0 to %c50 step %c1 {
// CHECK:           math.exp
// CHECK:           memref.store %{{.*}}, %{{.*}}[%[[ROW]], %[[J]]] : memref<4x50xf32>
// CHECK:           memref.store %{{.*}}, %{{.*}}[%[[ROW]], %[[J]]] : memref<4x50xi32>
// CHECK:           memref.store %{{.*}}, %{{.*}}[%[[ROW]], %[[J]]] : memref<4x50xf32>
// CHECK:       } {softmax.strategy = #softmax.cpu_strategy<algorithm = online, vector_width = 8, unroll = 2, block = {{[0-9]+}}, exp = fast>}
// CHECK:       memref.dealloc %[[VALUES]]
// CHECK-NOT:   softmax.topk
func.func @topk(%x: memref<4x1001xbf16>, %p: memref<4x50xf32>, %i: memref<4x50xi32>, %l: memref<4x50xf32>) {
  softmax.topk ins(%x : memref<4x1001xbf16>) outs(%p, %i : memref<4x50xf32>, memref<4x50xi32>) log_probs(%l : memref<4x50xf32>) k(50)
  return
}

// -----

// Rows of a larger buffer (a slice with a row stride) are read in place.
// CHECK-LABEL: func.func @rows_of_a_slice
// CHECK:       scf.parallel (%[[ROW:.*]]) =
// CHECK:         vector.load %{{.*}}[%[[ROW]], %{{.*}}] : memref<4x1001xf32, strided<[2002, 1], offset: 1>>, vector<8xf32>
func.func @rows_of_a_slice(%x: memref<4x1001xf32, strided<[2002, 1], offset: 1>>, %p: memref<4x5xf32>, %i: memref<4x5xi32>) {
  softmax.topk ins(%x : memref<4x1001xf32, strided<[2002, 1], offset: 1>>) outs(%p, %i : memref<4x5xf32>, memref<4x5xi32>) k(5)
  return
}
