// REQUIRES: ptxas
// The transform route to NVVM equals the pipeline: Inputs/kernels.mlir
// (linalg.softmax f32, softmax bf16, log_softmax f32, logsumexp bf16,
// attention bf16) lowered by softmax-to-nvvm{chip=sm_90 format=isa} and by
// the transform script Inputs/lower-to-gpu.mlir (entry point @nvvm)
// followed by softmax-to-nvvm-after-mapping give the same module, PTX
// included. The NVVM end records how long the PTX took to build
// (LLVMIRToISATimeInMs), which the comparison leaves out. The CUDA toolkit
// (which `ptxas` marks) provides libdevice.
//
// RUN: softmax-opt %S/Inputs/kernels.mlir --softmax-to-nvvm="chip=sm_90 format=isa" \
// RUN:   | sed -E 's/TimeInMs = [0-9]+/TimeInMs = N/g' > %t.pipeline
// RUN: softmax-opt %S/Inputs/kernels.mlir \
// RUN:   --transform-preload-library="transform-library-paths=%S/Inputs/lower-to-gpu.mlir" \
// RUN:   --transform-interpreter="entry-point=nvvm" \
// RUN:   --softmax-to-nvvm-after-mapping="chip=sm_90 format=isa" \
// RUN:   | sed -E 's/TimeInMs = [0-9]+/TimeInMs = N/g' > %t.transform
// RUN: diff %t.pipeline %t.transform
// RUN: FileCheck %s --implicit-check-not=softmax. < %t.transform

// One kernel per op, in PTX for sm_90; the attention on tensor cores.
// CHECK-DAG: gpu.binary @linalg_softmax_kernel  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx81">
// CHECK-DAG: gpu.binary @softmax_bf16_kernel
// CHECK-DAG: gpu.binary @log_softmax_f32_kernel
// CHECK-DAG: gpu.binary @logsumexp_bf16_kernel
// CHECK-DAG: gpu.binary @attention_bf16_kernel {{.*}}mma.sync.aligned
// CHECK-DAG: llvm.func @attention_bf16(
