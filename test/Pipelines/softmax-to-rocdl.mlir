// REQUIRES: rocm-device-libs
// The same kernels through the ROCDL end: AMDGPU assembly for gfx942 and
// gfx90a (64-lane wavefronts), and hsaco code objects linked by ld.lld
// against Debian's rocm-device-libs (gpu-module-to-binary looks for
// <toolkit>/amdgcn and <toolkit>/llvm/bin/ld.lld, so the test makes that
// folder of links).
// RUN: rm -rf %t.rocm && mkdir -p %t.rocm/llvm/bin
// RUN: ln -s /usr/lib/x86_64-linux-gnu/amdgcn %t.rocm/amdgcn
// RUN: ln -s /usr/lib/llvm-22/bin/ld.lld %t.rocm/llvm/bin/ld.lld
// RUN: softmax-opt %S/Inputs/gpu-kernels.mlir --softmax-to-rocdl="chip=gfx942 format=isa" | FileCheck %s --check-prefix=ISA
// RUN: softmax-opt %S/Inputs/gpu-kernels.mlir --softmax-to-rocdl="chip=gfx942 format=bin toolkit=%t.rocm" | FileCheck %s --check-prefix=BIN
// RUN: softmax-opt %S/Inputs/gpu-kernels.mlir --softmax-to-rocdl="chip=gfx90a format=bin toolkit=%t.rocm" | FileCheck %s --check-prefix=BIN

// ISA: gpu.binary @split_rows_kernel  [#gpu.object<#rocdl.target<O = 3, chip = "gfx942">
// ISA-SAME: .amdgcn_target \22amdgcn-amd-amdhsa--gfx942\22
// ISA-SAME: global_load_dwordx4
// ISA-SAME: ds_bpermute_b32
// ISA-SAME: global_store_dwordx4

// BIN-NOT: softmax.
// BIN-DAG: llvm.func @_mlir_ciface_split_rows(
// BIN-DAG: gpu.binary @linalg_softmax_kernel  [#gpu.object<#rocdl.target<O = 3, chip = "gfx9{{42|0a}}">, {{.*}}bin = "\7FELF
// BIN-DAG: gpu.binary @split_rows_kernel  [{{.*}}bin = "\7FELF
// BIN-DAG: gpu.binary @streamed_kernel  [{{.*}}bin = "\7FELF
// BIN-DAG: gpu.binary @streamed_unrolled_kernel  [{{.*}}bin = "\7FELF
