// RUN: softmax-opt %s --softmax-map-to-cpu=vector-width=8 --canonicalize --cse | FileCheck %s

// A skip tile of one row by 8 keys at 8 lanes: ln(lambda) of the batch
// entry once per row; the key blocks start at the tile that holds the
// window's first key (key tiles are aligned to key 0) and mask the keys
// before it; each block's max against the running max decides, before any
// exp or value load, whether the block is folded; the counts are zeroed
// before the rows and each row adds its own atomically.
// CHECK-LABEL: func.func @skip
// CHECK-SAME:    %[[T:[a-z0-9]+]]: memref<1xf32>, %[[N:[a-z0-9]+]]: memref<2xi64>
// CHECK:         memref.store %c0_i64, %[[N]][%c0] : memref<2xi64>
// CHECK:         memref.store %c0_i64, %[[N]][%c1] : memref<2xi64>
// CHECK:         scf.parallel
// CHECK:           %[[LO:.*]] = arith.maxsi
// CHECK:           %[[HI:.*]] = arith.maxsi
// CHECK:           %[[LAM:.*]] = memref.load %[[T]][%c0] : memref<1xf32>
// CHECK:           math.log %[[LAM]] : f32
// CHECK:           %[[LOGLAM:.*]] = arith.select
// CHECK:           %[[Q:.*]] = arith.divui %[[LO]], %c8 : index
// CHECK:           %[[START:.*]] = arith.muli %[[Q]], %c8 : index
// CHECK:           %[[LOOP:.*]]:6 = scf.for %[[J0:.*]] = %[[START]] to %[[HI]] step %c8 iter_args(%[[M:[a-z0-9]+]] = %{{.*}}, {{.*}}) -> (f32, f32, vector<8xf32>, vector<8xf32>, i64, i64)
// CHECK:             %[[NB:.*]] = arith.subi %[[LO]], %[[J0]] : index
// CHECK:             %[[BEFORE:.*]] = vector.create_mask %[[NB]] : vector<8xi1>
// CHECK:             arith.xori %[[BEFORE]], %cst{{.*}} : vector<8xi1>
// CHECK:             %[[S:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<8xi1>, vector<8xf32>
// CHECK:             %[[TMAX:.*]] = vector.reduction <maxnumf>, %[[S]] : vector<8xf32> into f32
// CHECK:             %[[D:.*]] = arith.subf %[[TMAX]], %[[M]] : f32
// CHECK:             %[[BELOW:.*]] = arith.cmpf olt, %[[D]], %[[LOGLAM]] : f32
// CHECK:             %[[BLIND:.*]] = arith.cmpf ole, %[[TMAX]], %cst{{.*}} : f32
// CHECK:             %[[SKIP:.*]] = arith.ori %[[BELOW]], %[[BLIND]] : i1
// CHECK-NOT:         vector.load %arg1
// CHECK:             scf.if %[[SKIP]] -> (f32, f32, vector<8xf32>, vector<8xf32>) {
// CHECK-NEXT:          scf.yield %[[M]], %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, vector<8xf32>, vector<8xf32>
// CHECK-NEXT:        } else {
// CHECK:               math.fma
// CHECK:             }
// CHECK:             arith.cmpf ogt, %[[TMAX]]
// CHECK-COUNT-2:     arith.extui
// CHECK:           memref.atomic_rmw addi %[[LOOP]]#4, %[[N]][%c0] : (i64, memref<2xi64>) -> i64
// CHECK:           memref.atomic_rmw addi %[[LOOP]]#5, %[[N]][%c1] : (i64, memref<2xi64>) -> i64
// CHECK:           scf.reduce
func.func @skip(%q: memref<1x2x8x16xf32>, %k: memref<1x2x40x16xf32>, %o: memref<1x2x8x16xf32>, %t: memref<1xf32>, %n: memref<2xi64>) {
  softmax.attention ins(%q, %k, %k : memref<1x2x8x16xf32>, memref<1x2x40x16xf32>, memref<1x2x40x16xf32>) outs(%o : memref<1x2x8x16xf32>) masked(zero) window(5) skip(lambda %t : memref<1xf32>, tile [1, 8]) skip_counts(%n : memref<2xi64>)
  return
}
