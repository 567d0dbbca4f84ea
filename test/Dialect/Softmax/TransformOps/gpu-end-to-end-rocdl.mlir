// REQUIRES: rocm-device-libs
// The transform route to ROCDL equals the pipeline: Inputs/kernels.mlir
// (linalg.softmax f32, softmax bf16, log_softmax f32, logsumexp bf16,
// attention bf16) lowered by softmax-to-rocdl{chip=gfx942 format=isa} and
// by the transform script Inputs/lower-to-gpu.mlir (entry point @rocdl)
// followed by softmax-to-rocdl-after-mapping give the same module, AMDGPU
// assembly included, byte for byte. Debian's rocm-device-libs provide the
// device library.
//
// RUN: softmax-opt %S/Inputs/kernels.mlir --softmax-to-rocdl="chip=gfx942 format=isa" \
// RUN:   -o %t.pipeline
// RUN: softmax-opt %S/Inputs/kernels.mlir \
// RUN:   --transform-preload-library="transform-library-paths=%S/Inputs/lower-to-gpu.mlir" \
// RUN:   --transform-interpreter="entry-point=rocdl" \
// RUN:   --softmax-to-rocdl-after-mapping="chip=gfx942 format=isa" -o %t.transform
// RUN: diff %t.pipeline %t.transform
// RUN: FileCheck %s --implicit-check-not=softmax. < %t.transform

// One kernel per op, in AMDGPU assembly for gfx942; the attention on MFMA.
// CHECK-DAG: gpu.binary @linalg_softmax_kernel  [#gpu.object<#rocdl.target<O = 3, chip = "gfx942">
// CHECK-DAG: gpu.binary @softmax_bf16_kernel
// CHECK-DAG: gpu.binary @log_softmax_f32_kernel
// CHECK-DAG: gpu.binary @logsumexp_bf16_kernel
// CHECK-DAG: gpu.binary @attention_bf16_kernel {{.*}}v_mfma
// CHECK-DAG: llvm.func @attention_bf16(
