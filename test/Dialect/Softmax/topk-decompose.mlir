// RUN: softmax-opt %s --softmax-decompose=to-state=true --canonicalize | FileCheck %s

// The rows' lse (an online state), then k passes: each a reduction over
// the row that takes the next element in the order (value descending,
// index ascending) after the last pass's, and writes column j.
// CHECK-LABEL: func.func @topk
// CHECK:       softmax.partial ins(%arg0 : tensor<3x97xbf16>) {{.*}} dimension(1) algorithm(online)
// CHECK:       softmax.lse
// CHECK:       scf.for %[[J:.*]] = %c0 to %c5 step %c1
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%arg0, %{{.*}}, %{{.*}} :
// CHECK:           arith.cmpf olt
// CHECK:           arith.cmpf oeq
// CHECK:           arith.cmpi sgt
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel"]}
// CHECK:           math.exp
// CHECK:         tensor.insert_slice %{{.*}} into %{{.*}}[0, %[[J]]] [3, 1] [1, 1]
// CHECK:         tensor.insert_slice %{{.*}} into %{{.*}}[0, %[[J]]] [3, 1] [1, 1]
func.func @topk(%x: tensor<3x97xbf16>, %p0: tensor<3x5xf32>, %i0: tensor<3x5xi32>) -> (tensor<3x5xf32>, tensor<3x5xi32>) {
  %p, %i = softmax.topk ins(%x : tensor<3x97xbf16>) outs(%p0, %i0 : tensor<3x5xf32>, tensor<3x5xi32>) k(5)
  return %p, %i : tensor<3x5xf32>, tensor<3x5xi32>
}
