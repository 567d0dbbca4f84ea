// REQUIRES: ptxas
// Every kernel's PTX goes through CUDA's ptxas (format=bin) for sm_90 and
// sm_80; the PTX itself uses 16-byte accesses and warp shuffles.
// RUN: softmax-opt %S/Inputs/gpu-kernels.mlir --softmax-to-nvvm="chip=sm_90 format=bin" | FileCheck %s --check-prefix=BIN
// RUN: softmax-opt %S/Inputs/gpu-kernels.mlir --softmax-to-nvvm="chip=sm_80 format=bin" | FileCheck %s --check-prefix=BIN
// RUN: softmax-opt %S/Inputs/gpu-kernels.mlir --softmax-to-nvvm="chip=sm_90 format=isa" | FileCheck %s --check-prefix=PTX

// BIN-NOT: softmax.
// BIN-DAG: llvm.func @linalg_softmax(
// BIN-DAG: llvm.func @_mlir_ciface_split_rows(
// BIN-DAG: llvm.call @mgpuMemAlloc
// BIN-DAG: llvm.call @mgpuMemset32
// BIN-DAG: gpu.binary @linalg_softmax_kernel  [#gpu.object<#nvvm.target<O = 3, chip = "sm_{{[89]}}0", features = "+ptx81">, properties = {{.*}}, bin = "
// BIN-DAG: gpu.binary @warp_rows_bf16_kernel  [{{.*}} bin = "
// BIN-DAG: gpu.binary @block_rows_f16_kernel  [{{.*}} bin = "
// BIN-DAG: gpu.binary @split_rows_kernel  [{{.*}} bin = "
// BIN-DAG: gpu.binary @exp_pair_lse_kernel  [{{.*}} bin = "
// BIN-DAG: gpu.binary @streamed_kernel  [{{.*}} bin = "
// BIN-DAG: gpu.binary @streamed_unrolled_kernel  [{{.*}} bin = "

// PTX: gpu.binary @split_rows_kernel
// PTX-SAME: ld.global.v4.b32
// PTX-SAME: shfl.sync.bfly
// PTX-SAME: atom.global.add.u32
// PTX-SAME: st.global.v4.b32
