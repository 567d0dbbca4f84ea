// softmax.linear_cross_entropy_grad through softmax-to-nvvm: bufferized in
// place (on tensors it writes its inits), mapped to its kernels (no host
// code computes it), PTX for sm_90: the weights kernel, the tile kernel
// (cp.async slices, ldmatrix plain and transposed, mma.sync bf16, the
// block vote on shared memory, f32 atomics into the accumulators), the
// rounds. Through softmax-to-rocdl: AMDGPU assembly for gfx942 (MFMA
// 16x16x16 bf16; the products' operands by inner rows as two-byte LDS
// reads; the accumulators' f32 atomics as compare-and-swap loops, which is
// how LLVM lowers a float atomic add without the unsafe-atomics
// attribute), and hsaco code objects for gfx942 and gfx90a linked by
// ld.lld against Debian's rocm-device-libs. No AMD GPU runs them here.
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90 format=isa" | FileCheck %s --check-prefix=PTX
// RUN: softmax-opt %s --softmax-to-rocdl="chip=gfx942 format=isa" | FileCheck %s --check-prefix=CDNA
// RUN: %if rocm-device-libs %{ rm -rf %t.rocm && mkdir -p %t.rocm/llvm/bin %}
// RUN: %if rocm-device-libs %{ ln -s /usr/lib/x86_64-linux-gnu/amdgcn %t.rocm/amdgcn %}
// RUN: %if rocm-device-libs %{ ln -s /usr/lib/llvm-22/bin/ld.lld %t.rocm/llvm/bin/ld.lld %}
// RUN: %if rocm-device-libs %{ softmax-opt %s --softmax-to-rocdl="chip=gfx942 format=bin toolkit=%t.rocm" | FileCheck %s --check-prefix=HSACO %}
// RUN: %if rocm-device-libs %{ softmax-opt %s --softmax-to-rocdl="chip=gfx90a format=bin toolkit=%t.rocm" | FileCheck %s --check-prefix=HSACO %}
// On sm_90a the chunked form: the host loops over the chunks of classes,
// each on a stream of its own; its kernels' warpgroup products, the
// logits' K-major (trans 0, 0), du W's with B by inner rows (0, 1), du^T
// h's with both (1, 1), every operand by bulk tensor copies.
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90a format=isa" | FileCheck %s --check-prefix=PTX90A

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
// PTX90A-COUNT-6: llvm.call @mgpuTensorMapEncodeTiledMemref
// PTX90A: llvm.call @mgpuStreamCreate
// PTX90A: llvm.call @mgpuStreamSynchronize
// PTX90A: gpu.binary @grad_kernel_0
// PTX90A-SAME: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX90A-SAME: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {{.*}}, p, 1,  1, 0,  0;
// PTX90A-NOT: red.global
// PTX90A: gpu.binary @grad_kernel_1
// PTX90A-SAME: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {{.*}}, p, 1,  1, 0,  1;
// PTX90A: gpu.binary @grad_kernel_2
// PTX90A-SAME: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {{.*}}, p, 1,  1, 1,  1;
// PTX90A: gpu.binary @grad_kernel_3
// CDNA-NOT: softmax.
// CDNA: gpu.binary @grad_kernel  [#gpu.object<#rocdl.target<O = 3, chip = "gfx942">
// CDNA: gpu.binary @grad_kernel_0
// CDNA-SAME: v_mfma_f32_16x16x16_bf16
// CDNA-SAME: ds_read_u16
// CDNA-SAME: global_atomic_cmpswap
// CDNA-SAME: .vgpr_spill_count:     0
// CDNA: gpu.binary @grad_kernel_1
// CDNA: gpu.binary @grad_kernel_2
// HSACO-COUNT-4: gpu.binary @grad_kernel{{(_[0-9])?}}  [#gpu.object<#rocdl.target<O = 3, chip = "gfx9{{42|0a}}">, {{.*}}bin = "\7FELF
func.func @grad(%h: tensor<512x256xbf16>, %w: tensor<32000x256xbf16>, %t: tensor<512xi64>, %lse: tensor<512xf32>, %dl: tensor<f32>, %gh0: tensor<512x256xbf16>, %gw0: tensor<32000x256xbf16>) -> (tensor<512x256xbf16>, tensor<32000x256xbf16>) {
  %gh, %gw = softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : tensor<512x256xbf16>, tensor<32000x256xbf16>, tensor<512xi64>, tensor<512xf32>, tensor<f32>) outs(%gh0, %gw0 : tensor<512x256xbf16>, tensor<32000x256xbf16>) reduction(mean)
  return %gh, %gw : tensor<512x256xbf16>, tensor<32000x256xbf16>
}
