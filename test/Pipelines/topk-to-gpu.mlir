// softmax.topk through the GPU pipelines: bufferized, mapped to one kernel
// per op (no host code computes it), PTX for sm_90 and AMDGPU assembly for
// gfx942; the vocabulary kernel's loads are 16 bytes wide and its
// candidates go through workgroup-memory atomics and barriers.
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90 format=isa" | FileCheck %s --check-prefix=PTX
// RUN: softmax-opt %s --softmax-to-rocdl="chip=gfx942 format=isa" | FileCheck %s --check-prefix=ISA

// PTX-NOT: softmax.
// PTX: gpu.binary @vocab_kernel
// PTX-SAME: ld.global.v4.{{[bu]}}32
// PTX-SAME: atom.shared.add.u32
// PTX-SAME: bar.sync
// PTX: gpu.binary @odd_kernel
// PTX-SAME: ld.global.b32
// ISA-NOT: softmax.
// ISA: gpu.binary @vocab_kernel  [#gpu.object<#rocdl.target<O = 3, chip = "gfx942">
// ISA-SAME: ds_add_rtn_u32
// ISA-SAME: s_barrier
func.func @vocab(%x: tensor<4x128256xbf16>, %p0: tensor<4x50xf32>, %i0: tensor<4x50xi64>) -> (tensor<4x50xf32>, tensor<4x50xi64>) {
  %p, %i = softmax.topk ins(%x : tensor<4x128256xbf16>) outs(%p0, %i0 : tensor<4x50xf32>, tensor<4x50xi64>) k(50)
  return %p, %i : tensor<4x50xf32>, tensor<4x50xi64>
}

func.func @odd(%x: tensor<3x1031xf32>, %p0: tensor<3x7xf32>, %i0: tensor<3x7xi32>, %l0: tensor<3x7xf32>) -> (tensor<3x7xf32>, tensor<3x7xi32>, tensor<3x7xf32>) {
  %p, %i, %l = softmax.topk ins(%x : tensor<3x1031xf32>) outs(%p0, %i0 : tensor<3x7xf32>, tensor<3x7xi32>) log_probs(%l0 : tensor<3x7xf32>) k(7)
  return %p, %i, %l : tensor<3x7xf32>, tensor<3x7xi32>, tensor<3x7xf32>
}
