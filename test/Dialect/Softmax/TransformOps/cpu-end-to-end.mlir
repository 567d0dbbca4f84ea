// The transform route to CPU code equals the pipeline: Inputs/kernels.mlir
// (linalg.softmax f32, softmax bf16, log_softmax f32, logsumexp bf16,
// attention bf16) plus the f64 softmax below, lowered by
// softmax-to-cpu{vector-width=8} and by the transform script
// Inputs/lower-to-cpu.mlir followed by softmax-to-cpu-after-mapping, give
// the same LLVM dialect module, byte for byte; the same with the rows on two
// OpenMP threads. test/Integration/transform-cpu.test runs the route.
//
// RUN: cat %S/Inputs/kernels.mlir %s > %t.input.mlir
// RUN: softmax-opt %t.input.mlir --softmax-to-cpu="vector-width=8" -o %t.pipeline
// RUN: softmax-opt %t.input.mlir \
// RUN:   --transform-preload-library="transform-library-paths=%S/Inputs/lower-to-cpu.mlir" \
// RUN:   --transform-interpreter --softmax-to-cpu-after-mapping -o %t.transform
// RUN: diff %t.pipeline %t.transform
// RUN: FileCheck %s --implicit-check-not=softmax. --implicit-check-not=linalg. < %t.transform
//
// RUN: softmax-opt %t.input.mlir --softmax-to-cpu="vector-width=8 threads=2" -o %t.omp.pipeline
// RUN: softmax-opt %t.input.mlir \
// RUN:   --transform-preload-library="transform-library-paths=%S/Inputs/lower-to-cpu.mlir" \
// RUN:   --transform-interpreter --softmax-to-cpu-after-mapping="threads=2" -o %t.omp.transform
// RUN: diff %t.omp.pipeline %t.omp.transform
// RUN: FileCheck %s --check-prefix=OMP < %t.omp.transform

// Every function reached the LLVM dialect through 8-lane vector code (the
// script's vector_width), nothing of the input dialects is left.
// CHECK-DAG: llvm.func @linalg_softmax(
// CHECK-DAG: llvm.func @softmax_bf16(
// CHECK-DAG: llvm.func @log_softmax_f32(
// CHECK-DAG: llvm.func @logsumexp_bf16(
// CHECK-DAG: llvm.func @attention_bf16(
// CHECK-DAG: llvm.func @softmax_f64(
// CHECK-DAG: llvm.intr.masked.load {{.*}} -> vector<8xf32>
// OMP: omp.parallel
// OMP: omp.wsloop

// No mapping takes f64: the script decomposes it (decompose and
// state_to_linalg patterns), as the pipeline does.
func.func @softmax_f64(%x: tensor<4x100xf64>, %i: tensor<4x100xf64>) -> tensor<4x100xf64> {
  %y = softmax.softmax ins(%x : tensor<4x100xf64>) outs(%i : tensor<4x100xf64>) dimension(1) masked(zero)
  return %y : tensor<4x100xf64>
}
