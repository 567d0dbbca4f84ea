// REQUIRES: ptxas
// softmax.attention through softmax-to-nvvm: ptxas accepts the kernel for
// sm_90 and sm_80 (format=bin), and the PTX has the tensor-core and
// ldmatrix instructions the mapping meant (a linalg graph raised first).
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90 format=bin" | FileCheck %s --check-prefix=BIN
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_80 format=bin" | FileCheck %s --check-prefix=BIN
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90 format=isa" | FileCheck %s --check-prefix=PTX

// BIN-NOT: softmax.
// BIN-DAG: gpu.binary @attention_kernel
// BIN-DAG: llvm.func @_mlir_ciface_attention(
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-DAG: ex2.approx
func.func @attention(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) attributes {llvm.emit_c_interface} {
  softmax.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>) masked(zero) causal window(128)
  return
}
