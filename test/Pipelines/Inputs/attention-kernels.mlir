// Attention kernels for the pipeline tests (attention-to-nvvm.mlir,
// attention-to-rocdl.mlir): the op on dynamic buffers with causal and
// window limits, an f16 op with an additive mask and an lse result at
// small head dimensions, and a front end's linalg graph that
// softmax-raise turns into the op.
func.func @attention(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) attributes {llvm.emit_c_interface} {
  softmax.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>) masked(zero) causal window(128)
  return
}

// f16 with a broadcast additive mask, an lse result, d 16 and dv 32 (fewer
// 16-byte chunks per tile than threads).
func.func @masked_lse(%q: memref<?x?x?x16xf16>, %k: memref<?x?x?x16xf16>, %v: memref<?x?x?x32xf16>, %m: memref<1x?x?x?xf16>, %o: memref<?x?x?x32xf32>, %lse: memref<?x?x?xf32>) {
  softmax.attention ins(%q, %k, %v, %m : memref<?x?x?x16xf16>, memref<?x?x?x16xf16>, memref<?x?x?x32xf16>, memref<1x?x?x?xf16>) outs(%o, %lse : memref<?x?x?x32xf32>, memref<?x?x?xf32>) masked(nan)
  return
}

// A front end's bf16 attention in linalg on tensors (Q K^T with K
// transposed by its map, a constant scale, linalg.softmax, P V): the
// pipeline raises it and maps it onto the same tensor-core kernel.
#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>
func.func @linalg_attention(%q: tensor<2x4x256x64xbf16>, %k: tensor<2x4x256x64xbf16>,
                            %v: tensor<2x4x256x64xbf16>) -> tensor<2x4x256x64xf32> {
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<2x4x256x256xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%es : tensor<2x4x256x256xf32>) -> tensor<2x4x256x256xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x4x256x64xbf16>, tensor<2x4x256x64xbf16>) outs(%sinit : tensor<2x4x256x256xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %a32 = arith.extf %a : bf16 to f32
    %b32 = arith.extf %b : bf16 to f32
    %mul = arith.mulf %a32, %b32 : f32
    %r = arith.addf %acc, %mul : f32
    linalg.yield %r : f32
  } -> tensor<2x4x256x256xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x256x256xf32>) outs(%es : tensor<2x4x256x256xf32>) {
  ^bb0(%a: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %m = arith.mulf %a, %c : f32
    linalg.yield %m : f32
  } -> tensor<2x4x256x256xf32>
  %pe = tensor.empty() : tensor<2x4x256x256xf32>
  %p = linalg.softmax dimension(3) ins(%x : tensor<2x4x256x256xf32>) outs(%pe : tensor<2x4x256x256xf32>) -> tensor<2x4x256x256xf32>
  %eo = tensor.empty() : tensor<2x4x256x64xf32>
  %oinit = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x4x256x64xf32>) -> tensor<2x4x256x64xf32>
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<2x4x256x256xf32>, tensor<2x4x256x64xbf16>) outs(%oinit : tensor<2x4x256x64xf32>) {
  ^bb0(%a: f32, %b: bf16, %acc: f32):
    %b32 = arith.extf %b : bf16 to f32
    %mul = arith.mulf %a, %b32 : f32
    %r = arith.addf %acc, %mul : f32
    linalg.yield %r : f32
  } -> tensor<2x4x256x64xf32>
  return %o : tensor<2x4x256x64xf32>
}
