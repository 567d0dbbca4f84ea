// The kernels' vector math.exp is expanded by a rewrite pattern: the fast
// exp by default (no math.exp left, recorded as exp = fast), or upstream's
// polynomial approximation with exp=polynomial (recorded).
// RUN: softmax-opt %s --softmax-map-to-cpu="vector-width=8" | FileCheck %s --check-prefix=FAST
// RUN: softmax-opt %s --softmax-map-to-cpu="vector-width=8 exp=polynomial" | FileCheck %s --check-prefix=POLY

// FAST-LABEL: func @softmax
// FAST-NOT: math.exp
// exp(z) = 2^k p(z - k ln 2) with z clamped at -88, 2^k built by shifting
// k into the exponent bits.
// FAST-DAG: arith.constant dense<-8.800000e+01> : vector<8xf32>
// FAST-DAG: arith.shli
// FAST-NOT: math.exp
// FAST: softmax.strategy = #softmax.cpu_strategy<algorithm = online, vector_width = 8, unroll = {{[0-9]+}}, block = {{[0-9]+}}, exp = fast>
// FAST-NOT: math.exp

// POLY-LABEL: func @softmax
// POLY-NOT: math.exp
// POLY-NOT: dense<-8.800000e+01>
// POLY: math.fma
// POLY-NOT: math.exp
// POLY: softmax.strategy = #softmax.cpu_strategy<algorithm = online, vector_width = 8, unroll = {{[0-9]+}}, block = {{[0-9]+}}, exp = polynomial>
// POLY-NOT: math.exp
func.func @softmax(%x: memref<4x100xf32>, %y: memref<4x100xf32>) {
  softmax.softmax ins(%x : memref<4x100xf32>) outs(%y : memref<4x100xf32>)
                  dimension(1) masked(zero) algorithm(online)
  return
}
