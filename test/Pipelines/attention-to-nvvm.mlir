// REQUIRES: ptxas
// softmax.attention through softmax-to-nvvm: ptxas accepts the kernels for
// sm_90 and sm_80 (format=bin), and the PTX has the tensor-core and
// ldmatrix instructions the mapping meant; a linalg graph is raised first.
// RUN: softmax-opt %S/Inputs/attention-kernels.mlir --softmax-to-nvvm="chip=sm_90 format=bin" | FileCheck %s --check-prefix=BIN
// RUN: softmax-opt %S/Inputs/attention-kernels.mlir --softmax-to-nvvm="chip=sm_80 format=bin" | FileCheck %s --check-prefix=BIN
// RUN: softmax-opt %S/Inputs/attention-kernels.mlir --softmax-to-nvvm="chip=sm_90 format=isa" | FileCheck %s --check-prefix=PTX

// BIN-NOT: softmax.
// BIN-NOT: linalg.
// BIN-DAG: gpu.binary @attention_kernel
// BIN-DAG: gpu.binary @masked_lse_kernel
// BIN-DAG: gpu.binary @linalg_attention_kernel
// BIN-DAG: llvm.func @_mlir_ciface_attention(
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-DAG: cp.async.cg.shared.global
// PTX-DAG: ex2.approx
// PTX-DAG: .entry linalg_attention_kernel
