// REQUIRES: rocm-device-libs
// softmax.attention through softmax-to-rocdl, the same mapping on CDNA
// MFMA: AMDGPU assembly for gfx942 with the 16x16x16 bf16 and f16 MFMA
// instructions, LDS staging and cross-lane row statistics, and hsaco code
// objects for gfx942 and gfx90a linked by ld.lld against Debian's
// rocm-device-libs. No AMD GPU runs them here (docs/Attention.md, status).
// RUN: rm -rf %t.rocm && mkdir -p %t.rocm/llvm/bin
// RUN: ln -s /usr/lib/x86_64-linux-gnu/amdgcn %t.rocm/amdgcn
// RUN: ln -s /usr/lib/llvm-22/bin/ld.lld %t.rocm/llvm/bin/ld.lld
// RUN: softmax-opt %S/Inputs/attention-kernels.mlir --softmax-to-rocdl="chip=gfx942 format=isa" | FileCheck %s --check-prefix=ISA
// RUN: softmax-opt %S/Inputs/attention-kernels.mlir --softmax-to-rocdl="chip=gfx942 format=bin toolkit=%t.rocm" | FileCheck %s --check-prefix=BIN
// RUN: softmax-opt %S/Inputs/attention-kernels.mlir --softmax-to-rocdl="chip=gfx90a format=bin toolkit=%t.rocm" | FileCheck %s --check-prefix=BIN
// RUN: softmax-opt %S/Inputs/attention-kernels.mlir --softmax-to-rocdl="chip=gfx90a format=isa" | FileCheck %s --check-prefix=ISA90A

// ISA: gpu.binary @attention_kernel  [#gpu.object<#rocdl.target<O = 3, chip = "gfx942">
// ISA-SAME: v_mfma_f32_16x16x16_bf16
// ISA-SAME: ds_read
// ISA-SAME: .vgpr_spill_count:     0
// ISA: gpu.binary @masked_lse_kernel
// ISA-SAME: v_mfma_f32_16x16x16_f16
// ISA-SAME: ds_bpermute_b32
// ISA: gpu.binary @linalg_attention_kernel
// ISA-SAME: v_mfma_f32_16x16x16_bf16
// ISA90A: v_mfma_f32_16x16x16bf16_1k

// BIN-NOT: softmax.
// BIN-NOT: linalg.
// BIN-DAG: llvm.func @_mlir_ciface_attention(
// BIN-DAG: gpu.binary @attention_kernel  [#gpu.object<#rocdl.target<O = 3, chip = "gfx9{{42|0a}}">, {{.*}}bin = "\7FELF
// BIN-DAG: gpu.binary @masked_lse_kernel  [{{.*}}bin = "\7FELF
// BIN-DAG: gpu.binary @linalg_attention_kernel  [{{.*}}bin = "\7FELF
