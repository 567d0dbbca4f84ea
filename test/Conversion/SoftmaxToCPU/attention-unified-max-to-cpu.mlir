// RUN: softmax-opt %s --softmax-map-to-cpu="vector-width=16" --canonicalize | FileCheck %s

// A unified max on the CPU: per query row, the key loop carries only (l,
// O): its terms are exp(s - phi) (the fast exp of s - phi, no lane max,
// no rescale). A row whose l is outside [2^-64, 2^64] runs the online loop,
// with its max, in the scf.if's else region; the kept row's offset is phi.
// CHECK-LABEL: func.func @decode
// CHECK-DAG:   %[[HI:.*]] = arith.constant 1.84467441E+19 : f32
// CHECK-DAG:   %[[LO:.*]] = arith.constant 5.42101086E-20 : f32
// CHECK-DAG:   %[[PHI:.*]] = arith.constant 3.000000e+00 : f32
// CHECK-DAG:   %[[PHIV:.*]] = arith.constant dense<3.000000e+00> : vector<16xf32>
// CHECK:       scf.parallel
// CHECK:         %[[R:.*]]:2 = scf.for %{{.*}} = %c0 to %c37 step %c16 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, vector<16xf32>)
// CHECK-NOT:       vector.reduction <maxnumf>
// CHECK:           arith.subf %{{.*}}, %[[PHIV]] : vector<16xf32>
// CHECK-NOT:       vector.reduction <maxnumf>
// CHECK:           scf.yield
// CHECK:         %[[GE:.*]] = arith.cmpf oge, %[[R]]#0, %[[LO]] : f32
// CHECK:         %[[LE:.*]] = arith.cmpf ole, %[[R]]#0, %[[HI]] : f32
// CHECK:         %[[KEEP:.*]] = arith.andi %[[GE]], %[[LE]] : i1
// CHECK:         scf.if %[[KEEP]] -> (f32, f32, vector<16xf32>) {
// CHECK:           scf.yield %[[PHI]], %[[R]]#0, %[[R]]#1
// CHECK:         } else {
// CHECK:           scf.for
// CHECK:             vector.reduction <maxnumf>
func.func @decode(%q: memref<2x4x1x16xf32>, %k: memref<2x2x37x16xf32>,
                  %v: memref<2x2x37x16xf32>, %o: memref<2x4x1x16xf32>,
                  %l: memref<2x4x1xf32>) {
  softmax.attention ins(%q, %k, %v : memref<2x4x1x16xf32>, memref<2x2x37x16xf32>, memref<2x2x37x16xf32>)
      outs(%o, %l : memref<2x4x1x16xf32>, memref<2x4x1xf32>) masked(zero)
      algorithm(unified_max, phi = 3.0)
  return
}
