// RUN: softmax-opt %s --softmax-to-cpu | FileCheck %s --check-prefix=LLVM
// RUN: softmax-opt %s --softmax-to-cpu | %mlir_runner -e main -entry-point-result=void %runner_libs | FileCheck %s
// RUN: softmax-opt %s --softmax-to-cpu="reduction-tile-size=2" | %mlir_runner -e main -entry-point-result=void %runner_libs | FileCheck %s
// RUN: softmax-opt %s --softmax-to-cpu="vector-width=0" | %mlir_runner -e main -entry-point-result=void %runner_libs | FileCheck %s
// RUN: softmax-opt %s --softmax-to-cpu="vector-width=4 three-pass=reload" | %mlir_runner -e main -entry-point-result=void %runner_libs | FileCheck %s
// RUN: softmax-opt %s --softmax-to-cpu="vector-width=8" | FileCheck %s --check-prefix=VEC8
// RUN: softmax-opt %s --softmax-to-cpu="vector-width=0" | FileCheck %s --check-prefix=SCALAR
// RUN: %if libomp %{ softmax-opt %s --softmax-to-cpu="threads=2" | FileCheck %s --check-prefix=OMP %}
// RUN: %if libomp %{ softmax-opt %s --softmax-to-cpu="threads=2" | %mlir_runner -e main -entry-point-result=void %omp_runner_libs | FileCheck %s %}

// The vector mapping runs at the requested width (masked loads for the
// rows of 5); vector-width=0 is the scalar linalg path; threads=2 hands
// the row loops to OpenMP.
// VEC8: llvm.intr.masked.load {{.*}} -> vector<8xf32>
// SCALAR-NOT: vector<
// OMP: omp.parallel num_threads
// OMP: omp.wsloop

// The pipeline leaves only the LLVM dialect.
// LLVM-NOT: softmax.
// LLVM-NOT: linalg.
// LLVM-NOT: memref.alloc
// LLVM: llvm.func @main()

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %x = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0],
                             [0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000],
                             [1.0e4, -1.0e4, 1.0e4, 0xFF800000, 3.0]]> : tensor<3x5xf32>
  %e = tensor.empty() : tensor<3x5xf32>
  %r = tensor.empty() : tensor<3xf32>
  // CHECK: [0.0116562, 0.0316849, 0.0861285, 0.234122, 0.636409]
  // CHECK-NEXT: [0, 0, 0, 0, 0]
  // CHECK-NEXT: [0.5, 0, 0.5, 0, 0]
  %y = softmax.softmax ins(%x : tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) dimension(1) masked(zero) algorithm(online)
  // CHECK: [-4.45191, -3.45191, -2.45191, -1.45191, -0.451914]
  // CHECK-NEXT: [nan, nan, nan, nan, nan]
  // CHECK-NEXT: [-0.693147, -20000.7, -0.693147, -inf, -9997.69]
  %z = softmax.log_softmax ins(%x : tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) dimension(1) masked(nan) algorithm(exp_pair)
  // CHECK: [5.45191, -inf, 10000.7]
  %s = softmax.logsumexp ins(%x : tensor<3x5xf32>) outs(%r : tensor<3xf32>) dimension(1) masked(zero) algorithm(three_pass)
  %ym = bufferization.to_buffer %y : tensor<3x5xf32> to memref<3x5xf32>
  %yu = memref.cast %ym : memref<3x5xf32> to memref<*xf32>
  call @printMemrefF32(%yu) : (memref<*xf32>) -> ()
  %zm = bufferization.to_buffer %z : tensor<3x5xf32> to memref<3x5xf32>
  %zu = memref.cast %zm : memref<3x5xf32> to memref<*xf32>
  call @printMemrefF32(%zu) : (memref<*xf32>) -> ()
  %sm = bufferization.to_buffer %s : tensor<3xf32> to memref<3xf32>
  %su = memref.cast %sm : memref<3xf32> to memref<*xf32>
  call @printMemrefF32(%su) : (memref<*xf32>) -> ()
  return
}
