// REQUIRES: ptxas
// Dense decode through softmax-to-nvvm on sm_90: ptxas accepts the kernel
// whose K/V tiles come by TMA (format=bin); its PTX has the bulk tensor
// copies and the mbarrier protocol; the host encodes the tensor maps
// through the runtime (mgpuTensorMapEncodeTiledMemref).
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90 format=bin" | FileCheck %s --check-prefix=BIN
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90 format=isa" | FileCheck %s --check-prefix=PTX

// BIN-NOT: nvgpu.
// BIN: llvm.call @mgpuTensorMapEncodeTiledMemref(
// BIN: llvm.call @mgpuTensorMapEncodeTiledMemref(
// BIN: gpu.binary @decode_kernel
// PTX-DAG: mbarrier.init.shared.b64
// PTX-DAG: fence.mbarrier_init.release.cluster
// PTX-DAG: mbarrier.arrive.expect_tx.shared.b64
// PTX-DAG: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-DAG: mbarrier.try_wait.parity.shared.b64
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-NOT: cp.async.cg.shared.global
func.func @decode(%q: memref<2x8x1x128xbf16>, %k: memref<2x2x1000x128xbf16>, %v: memref<2x2x1000x128xbf16>, %o: memref<2x8x1x128xbf16>) attributes {llvm.emit_c_interface} {
  softmax.attention ins(%q, %k, %v : memref<2x8x1x128xbf16>, memref<2x2x1000x128xbf16>, memref<2x2x1000x128xbf16>) outs(%o : memref<2x8x1x128xbf16>) masked(zero) {softmax.strategy = #softmax.attention_gpu_strategy<key_splits = 1>}
  return
}
