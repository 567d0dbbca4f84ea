// softmax.linear_cross_entropy_grad through softmax-to-nvvm: bufferized in
// place (on tensors it writes its inits), mapped to its kernels (no host
// code computes it), PTX for sm_90: the weights kernel, the tile kernel
// (cp.async slices, ldmatrix plain and transposed, mma.sync bf16, the
// block vote on shared memory, f32 atomics into the accumulators), the
// rounds. softmax-to-rocdl refuses it: the CDNA end has no products by
// inner rows yet.
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90 format=isa" | FileCheck %s --check-prefix=PTX
// RUN: not softmax-opt %s --softmax-to-rocdl="chip=gfx942 format=isa" 2>&1 | FileCheck %s --check-prefix=CDNA

// PTX-NOT: softmax.
// PTX: llvm.call @mgpuMemAlloc
// PTX: llvm.call @mgpuMemset32
// PTX: gpu.binary @grad_kernel
// PTX: gpu.binary @grad_kernel_0
// PTX-SAME: cp.async.cg.shared.global
// PTX-SAME: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-SAME: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-SAME: red.global.add.v2.f32
// PTX: gpu.binary @grad_kernel_1
// PTX: gpu.binary @grad_kernel_2
// CDNA: error: 'softmax.linear_cross_entropy_grad' op has no GPU kernel for 'bf16' inputs on gfx942
func.func @grad(%h: tensor<512x256xbf16>, %w: tensor<32000x256xbf16>, %t: tensor<512xi64>, %lse: tensor<512xf32>, %dl: tensor<f32>, %gh0: tensor<512x256xbf16>, %gw0: tensor<32000x256xbf16>) -> (tensor<512x256xbf16>, tensor<32000x256xbf16>) {
  %gh, %gw = softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : tensor<512x256xbf16>, tensor<32000x256xbf16>, tensor<512xi64>, tensor<512xf32>, tensor<f32>) outs(%gh0, %gw0 : tensor<512x256xbf16>, tensor<32000x256xbf16>) reduction(mean)
  return %gh, %gw : tensor<512x256xbf16>, tensor<32000x256xbf16>
}
