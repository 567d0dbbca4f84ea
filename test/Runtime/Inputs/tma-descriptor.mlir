// nvgpu.tma.create.descriptor: convert-nvgpu-to-nvvm lowers it to a call of
// mgpuTensorMapEncodeTiledMemref (CUDA runtime only). The descriptor (a
// device pointer once lowered) is returned as !llvm.ptr, since the func
// signature conversion does not know the nvgpu type.
!desc = !nvgpu.tensormap.descriptor<
    tensor = memref<64x8xf16, #gpu.address_space<workgroup>>,
    swizzle = none, l2promo = none, oob = zero, interleave = none>

func.func @make_descriptor(%m: memref<*xf16>) -> !llvm.ptr {
  %c64 = arith.constant 64 : index
  %c8 = arith.constant 8 : index
  %d = nvgpu.tma.create.descriptor %m box[%c64, %c8] : memref<*xf16> -> !desc
  %p = builtin.unrealized_conversion_cast %d : !desc to !llvm.ptr
  return %p : !llvm.ptr
}
