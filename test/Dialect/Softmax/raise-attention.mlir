// RUN: softmax-opt %s --softmax-raise -split-input-file | FileCheck %s
// Attention chains in the forms front ends emit become softmax.attention.

// 4-D generic contractions, K transposed by the first one's indexing map,
// f16 operands accumulated in f32; the scale and a mask shared by all heads
// ([B, 1, Nq, Nk], read at head 0) fused into one generic; linalg.softmax.
#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>
#m = affine_map<(b, h, i, j) -> (b, 0, i, j)>
// CHECK-LABEL: func @generic_4d_mask
// CHECK-SAME: (%[[Q:.*]]: tensor<2x8x128x64xf16>, %[[K:.*]]: tensor<2x8x128x64xf16>, %[[V:.*]]: tensor<2x8x128x64xf16>, %[[M:.*]]: tensor<2x1x128x128xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x8x128x64xf32>
// CHECK: %[[O:.*]] = softmax.attention ins(%[[Q]], %[[K]], %[[V]], %[[M]] : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x1x128x128xf32>) outs(%[[E]] : tensor<2x8x128x64xf32>) masked(nan) scale(1.250000e-01){{$}}
// CHECK-NOT: linalg.
// CHECK: return %[[O]]
func.func @generic_4d_mask(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>,
                           %v: tensor<2x8x128x64xf16>, %mask: tensor<2x1x128x128xf32>)
    -> tensor<2x8x128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<2x8x128x128xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%es : tensor<2x8x128x128xf32>) -> tensor<2x8x128x128xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) outs(%sinit : tensor<2x8x128x128xf32>) {
  ^bb0(%a: f16, %b: f16, %acc: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %mul = arith.mulf %a32, %b32 : f32
    %r = arith.addf %acc, %mul : f32
    linalg.yield %r : f32
  } -> tensor<2x8x128x128xf32>
  %x = linalg.generic {indexing_maps = [#id, #m, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s, %mask : tensor<2x8x128x128xf32>, tensor<2x1x128x128xf32>) outs(%es : tensor<2x8x128x128xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %sc = arith.mulf %a, %c : f32
    %r = arith.addf %sc, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x8x128x128xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<2x8x128x128xf32>) outs(%es : tensor<2x8x128x128xf32>) -> tensor<2x8x128x128xf32>
  %eo = tensor.empty() : tensor<2x8x128x64xf32>
  %oinit = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x8x128x64xf32>) -> tensor<2x8x128x64xf32>
  %out = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%pr, %v : tensor<2x8x128x128xf32>, tensor<2x8x128x64xf16>) outs(%oinit : tensor<2x8x128x64xf32>) {
  ^bb0(%a: f32, %b: f16, %acc: f32):
    %b32 = arith.extf %b : f16 to f32
    %mul = arith.mulf %a, %b32 : f32
    %r = arith.addf %acc, %mul : f32
    linalg.yield %r : f32
  } -> tensor<2x8x128x64xf32>
  return %out : tensor<2x8x128x64xf32>
}

// -----

// Flattened heads [B*H, N, D]: K transposed by an explicit linalg.transpose,
// linalg.batch_matmul, a division by a splat constant tensor, the softmax
// decomposed into reduce/broadcast/map steps (StableHLO style). The op is
// emitted on [1, B*H, N, D] views.
// CHECK-LABEL: func @batch_matmul_3d_div
// CHECK-SAME: (%[[Q:.*]]: tensor<16x128x64xf32>, %[[K:.*]]: tensor<16x128x64xf32>, %[[V:.*]]: tensor<16x128x64xf32>)
// CHECK-NOT: linalg.
// CHECK-DAG: %[[E:.*]] = tensor.empty() : tensor<16x128x64xf32>
// CHECK-DAG: %[[E4:.*]] = tensor.expand_shape %[[E]] {{\[\[}}0, 1], [2], [3]] output_shape [1, 16, 128, 64] : tensor<16x128x64xf32> into tensor<1x16x128x64xf32>
// CHECK-DAG: %[[Q4:.*]] = tensor.expand_shape %[[Q]] {{\[\[}}0, 1], [2], [3]] output_shape [1, 16, 128, 64]
// CHECK-DAG: %[[K4:.*]] = tensor.expand_shape %[[K]] {{\[\[}}0, 1], [2], [3]] output_shape [1, 16, 128, 64]
// CHECK-DAG: %[[V4:.*]] = tensor.expand_shape %[[V]] {{\[\[}}0, 1], [2], [3]] output_shape [1, 16, 128, 64]
// CHECK: %[[A:.*]] = softmax.attention ins(%[[Q4]], %[[K4]], %[[V4]] : tensor<1x16x128x64xf32>, tensor<1x16x128x64xf32>, tensor<1x16x128x64xf32>) outs(%[[E4]] : tensor<1x16x128x64xf32>) masked(nan) scale(1.250000e-01){{$}}
// CHECK: %[[O:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1], [2], [3]] : tensor<1x16x128x64xf32> into tensor<16x128x64xf32>
// CHECK-NOT: linalg.
// CHECK: return %[[O]]
func.func @batch_matmul_3d_div(%q: tensor<16x128x64xf32>, %k: tensor<16x128x64xf32>,
                               %v: tensor<16x128x64xf32>) -> tensor<16x128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %eight = arith.constant dense<8.0> : tensor<16x128x128xf32>
  %ekt = tensor.empty() : tensor<16x64x128xf32>
  %kt = linalg.transpose ins(%k : tensor<16x128x64xf32>) outs(%ekt : tensor<16x64x128xf32>) permutation = [0, 2, 1]
  %es = tensor.empty() : tensor<16x128x128xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%es : tensor<16x128x128xf32>) -> tensor<16x128x128xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<16x128x64xf32>, tensor<16x64x128xf32>) outs(%sinit : tensor<16x128x128xf32>) -> tensor<16x128x128xf32>
  %x = linalg.div ins(%s, %eight : tensor<16x128x128xf32>, tensor<16x128x128xf32>) outs(%es : tensor<16x128x128xf32>) -> tensor<16x128x128xf32>
  %er = tensor.empty() : tensor<16x128xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%er : tensor<16x128xf32>) -> tensor<16x128xf32>
  %max = linalg.reduce { arith.maximumf } ins(%x : tensor<16x128x128xf32>) outs(%minit : tensor<16x128xf32>) dimensions = [2]
  %bmax = linalg.broadcast ins(%max : tensor<16x128xf32>) outs(%es : tensor<16x128x128xf32>) dimensions = [2]
  %sub = linalg.sub ins(%x, %bmax : tensor<16x128x128xf32>, tensor<16x128x128xf32>) outs(%es : tensor<16x128x128xf32>) -> tensor<16x128x128xf32>
  %exp = linalg.exp ins(%sub : tensor<16x128x128xf32>) outs(%es : tensor<16x128x128xf32>) -> tensor<16x128x128xf32>
  %zinit = linalg.fill ins(%zero : f32) outs(%er : tensor<16x128xf32>) -> tensor<16x128xf32>
  %sum = linalg.reduce { arith.addf } ins(%exp : tensor<16x128x128xf32>) outs(%zinit : tensor<16x128xf32>) dimensions = [2]
  %bsum = linalg.broadcast ins(%sum : tensor<16x128xf32>) outs(%es : tensor<16x128x128xf32>) dimensions = [2]
  %pr = linalg.div ins(%exp, %bsum : tensor<16x128x128xf32>, tensor<16x128x128xf32>) outs(%es : tensor<16x128x128xf32>) -> tensor<16x128x128xf32>
  %eo = tensor.empty() : tensor<16x128x64xf32>
  %oinit = linalg.fill ins(%zero : f32) outs(%eo : tensor<16x128x64xf32>) -> tensor<16x128x64xf32>
  %out = linalg.batch_matmul ins(%pr, %v : tensor<16x128x128xf32>, tensor<16x128x64xf32>) outs(%oinit : tensor<16x128x64xf32>) -> tensor<16x128x64xf32>
  return %out : tensor<16x128x64xf32>
}

// -----

// linalg.batch_matmul that transposes K through its indexing maps, bf16
// throughout, the constant on the left of the multiplication, and a 2-D
// additive causal mask [Nq, Nk] broadcast by linalg.elementwise; the
// softmax decomposed into one generic per step (torch-mlir style).
#bq = affine_map<(b, m, n, k) -> (b, m, k)>
#bk = affine_map<(b, m, n, k) -> (b, n, k)>
#bs = affine_map<(b, m, n, k) -> (b, m, n)>
#id3 = affine_map<(b, i, j) -> (b, i, j)>
#row3 = affine_map<(b, i, j) -> (b, i)>
#m2 = affine_map<(b, i, j) -> (i, j)>
// CHECK-LABEL: func @batch_matmul_maps_causal_mask
// CHECK-SAME: (%[[Q:.*]]: tensor<32x64x128xbf16>, %[[K:.*]]: tensor<32x64x128xbf16>, %[[V:.*]]: tensor<32x64x128xbf16>, %[[M:.*]]: tensor<64x64xbf16>)
// CHECK-NOT: linalg.
// CHECK-DAG: %[[M4:.*]] = tensor.expand_shape %[[M]] {{\[\[}}0, 1, 2], [3]] output_shape [1, 1, 64, 64] : tensor<64x64xbf16> into tensor<1x1x64x64xbf16>
// CHECK-DAG: %[[Q4:.*]] = tensor.expand_shape %[[Q]] {{\[\[}}0, 1], [2], [3]] output_shape [1, 32, 64, 128]
// CHECK-DAG: %[[K4:.*]] = tensor.expand_shape %[[K]] {{\[\[}}0, 1], [2], [3]] output_shape [1, 32, 64, 128]
// CHECK-DAG: %[[V4:.*]] = tensor.expand_shape %[[V]] {{\[\[}}0, 1], [2], [3]] output_shape [1, 32, 64, 128]
// CHECK: %[[A:.*]] = softmax.attention ins(%[[Q4]], %[[K4]], %[[V4]], %[[M4]] : tensor<1x32x64x128xbf16>, tensor<1x32x64x128xbf16>, tensor<1x32x64x128xbf16>, tensor<1x1x64x64xbf16>) outs(%{{.*}} : tensor<1x32x64x128xbf16>) masked(nan) scale(0.0883789062){{$}}
// CHECK: %[[O:.*]] = tensor.collapse_shape %[[A]]
// CHECK-NOT: linalg.
// CHECK: return %[[O]]
func.func @batch_matmul_maps_causal_mask(%q: tensor<32x64x128xbf16>, %k: tensor<32x64x128xbf16>,
                                         %v: tensor<32x64x128xbf16>, %mask: tensor<64x64xbf16>)
    -> tensor<32x64x128xbf16> {
  %zero = arith.constant 0.0 : bf16
  %ninf = arith.constant 0xFF80 : bf16
  %es = tensor.empty() : tensor<32x64x64xbf16>
  %sinit = linalg.fill ins(%zero : bf16) outs(%es : tensor<32x64x64xbf16>) -> tensor<32x64x64xbf16>
  %s = linalg.batch_matmul indexing_maps = [#bq, #bk, #bs]
      ins(%q, %k : tensor<32x64x128xbf16>, tensor<32x64x128xbf16>) outs(%sinit : tensor<32x64x64xbf16>) -> tensor<32x64x64xbf16>
  %sc = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<32x64x64xbf16>) outs(%es : tensor<32x64x64xbf16>) {
  ^bb0(%a: bf16, %out: bf16):
    %c = arith.constant 0.08838834764 : bf16
    %r = arith.mulf %c, %a : bf16
    linalg.yield %r : bf16
  } -> tensor<32x64x64xbf16>
  %x = linalg.elementwise kind=#linalg.elementwise_kind<add> indexing_maps = [#id3, #m2, #id3]
      ins(%sc, %mask : tensor<32x64x64xbf16>, tensor<64x64xbf16>) outs(%es : tensor<32x64x64xbf16>) -> tensor<32x64x64xbf16>
  %er = tensor.empty() : tensor<32x64xbf16>
  %minit = linalg.fill ins(%ninf : bf16) outs(%er : tensor<32x64xbf16>) -> tensor<32x64xbf16>
  %max = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<32x64x64xbf16>) outs(%minit : tensor<32x64xbf16>) {
  ^bb0(%a: bf16, %b: bf16):
    %r = arith.maximumf %a, %b : bf16
    linalg.yield %r : bf16
  } -> tensor<32x64xbf16>
  %exp = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %max : tensor<32x64x64xbf16>, tensor<32x64xbf16>) outs(%es : tensor<32x64x64xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %out: bf16):
    %d = arith.subf %a, %b : bf16
    %e = math.exp %d : bf16
    linalg.yield %e : bf16
  } -> tensor<32x64x64xbf16>
  %zinit = linalg.fill ins(%zero : bf16) outs(%er : tensor<32x64xbf16>) -> tensor<32x64xbf16>
  %sum = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%exp : tensor<32x64x64xbf16>) outs(%zinit : tensor<32x64xbf16>) {
  ^bb0(%a: bf16, %b: bf16):
    %r = arith.addf %a, %b : bf16
    linalg.yield %r : bf16
  } -> tensor<32x64xbf16>
  %pr = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%exp, %sum : tensor<32x64x64xbf16>, tensor<32x64xbf16>) outs(%es : tensor<32x64x64xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %out: bf16):
    %r = arith.divf %a, %b : bf16
    linalg.yield %r : bf16
  } -> tensor<32x64x64xbf16>
  %eo = tensor.empty() : tensor<32x64x128xbf16>
  %oinit = linalg.fill ins(%zero : bf16) outs(%eo : tensor<32x64x128xbf16>) -> tensor<32x64x128xbf16>
  %out = linalg.batch_matmul ins(%pr, %v : tensor<32x64x64xbf16>, tensor<32x64x128xbf16>) outs(%oinit : tensor<32x64x128xbf16>) -> tensor<32x64x128xbf16>
  return %out : tensor<32x64x128xbf16>
}

// -----

// 4-D linalg.contract with a dynamic key length, no scale (scale(1.0) is
// written out: the op's default is 1/sqrt(D)), no mask, the softmax already
// raised with masked(zero), which the op keeps. The output is written into
// tensor.empty, whose contents are undefined, so nothing is added.
#cq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#ck = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#cs = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#cp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#cv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#co = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
// CHECK-LABEL: func @contract_dynamic
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x16x32xf32>, %[[K:.*]]: tensor<1x4x?x32xf32>, %[[V:.*]]: tensor<1x4x?x32xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x4x16x32xf32>
// CHECK: %[[O:.*]] = softmax.attention ins(%[[Q]], %[[K]], %[[V]] : tensor<1x4x16x32xf32>, tensor<1x4x?x32xf32>, tensor<1x4x?x32xf32>) outs(%[[E]] : tensor<1x4x16x32xf32>) masked(zero) scale(1.000000e+00){{$}}
// CHECK-NOT: linalg.
// CHECK: return %[[O]]
func.func @contract_dynamic(%q: tensor<1x4x16x32xf32>, %k: tensor<1x4x?x32xf32>,
                            %v: tensor<1x4x?x32xf32>) -> tensor<1x4x16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %c2 = arith.constant 2 : index
  %n = tensor.dim %k, %c2 : tensor<1x4x?x32xf32>
  %es = tensor.empty(%n) : tensor<1x4x16x?xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%es : tensor<1x4x16x?xf32>) -> tensor<1x4x16x?xf32>
  %s = linalg.contract indexing_maps = [#cq, #ck, #cs]
      ins(%q, %k : tensor<1x4x16x32xf32>, tensor<1x4x?x32xf32>) outs(%sinit : tensor<1x4x16x?xf32>) -> tensor<1x4x16x?xf32>
  %pr = softmax.softmax ins(%s : tensor<1x4x16x?xf32>) outs(%es : tensor<1x4x16x?xf32>) dimension(3) masked(zero)
  %eo = tensor.empty() : tensor<1x4x16x32xf32>
  %out = linalg.contract indexing_maps = [#cp, #cv, #co]
      ins(%pr, %v : tensor<1x4x16x?xf32>, tensor<1x4x?x32xf32>) outs(%eo : tensor<1x4x16x32xf32>) -> tensor<1x4x16x32xf32>
  return %out : tensor<1x4x16x32xf32>
}

// -----

// The scale split between Q (applied before the first matmul, as some
// models do) and the scores; the two multiply into one scale (0.5 / 4).
// A mask [B, Nq, Nk] broadcast over the heads by linalg.broadcast and added
// by linalg.add becomes [B, 1, Nq, Nk].
#cq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#ck = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#cs = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
// CHECK-LABEL: func @scaled_query_broadcast_mask
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x32x16xf32>, %[[K:.*]]: tensor<2x4x32x16xf32>, %[[V:.*]]: tensor<2x4x32x16xf32>, %[[M:.*]]: tensor<2x32x32xf32>)
// CHECK-NOT: linalg.
// CHECK-DAG: %[[M4:.*]] = tensor.expand_shape %[[M]] {{\[\[}}0], [1, 2], [3]] output_shape [2, 1, 32, 32] : tensor<2x32x32xf32> into tensor<2x1x32x32xf32>
// CHECK-DAG: %[[E:.*]] = tensor.empty() : tensor<2x4x32x16xf32>
// CHECK: %[[O:.*]] = softmax.attention ins(%[[Q]], %[[K]], %[[V]], %[[M4]] : tensor<2x4x32x16xf32>, tensor<2x4x32x16xf32>, tensor<2x4x32x16xf32>, tensor<2x1x32x32xf32>) outs(%[[E]] : tensor<2x4x32x16xf32>) masked(nan) scale(1.250000e-01){{$}}
// CHECK-NOT: linalg.
// CHECK: return %[[O]]
func.func @scaled_query_broadcast_mask(%q: tensor<2x4x32x16xf32>, %k: tensor<2x4x32x16xf32>,
                                       %v: tensor<2x4x32x16xf32>, %mask: tensor<2x32x32xf32>)
    -> tensor<2x4x32x16xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %four = arith.constant 4.0 : f32
  %eq = tensor.empty() : tensor<2x4x32x16xf32>
  %hq = linalg.fill ins(%half : f32) outs(%eq : tensor<2x4x32x16xf32>) -> tensor<2x4x32x16xf32>
  %qs = linalg.mul ins(%q, %hq : tensor<2x4x32x16xf32>, tensor<2x4x32x16xf32>) outs(%eq : tensor<2x4x32x16xf32>) -> tensor<2x4x32x16xf32>
  %es = tensor.empty() : tensor<2x4x32x32xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%es : tensor<2x4x32x32xf32>) -> tensor<2x4x32x32xf32>
  %s = linalg.contract indexing_maps = [#cq, #ck, #cs]
      ins(%qs, %k : tensor<2x4x32x16xf32>, tensor<2x4x32x16xf32>) outs(%sinit : tensor<2x4x32x32xf32>) -> tensor<2x4x32x32xf32>
  %f = linalg.fill ins(%four : f32) outs(%es : tensor<2x4x32x32xf32>) -> tensor<2x4x32x32xf32>
  %sd = linalg.div ins(%s, %f : tensor<2x4x32x32xf32>, tensor<2x4x32x32xf32>) outs(%es : tensor<2x4x32x32xf32>) -> tensor<2x4x32x32xf32>
  %bm = linalg.broadcast ins(%mask : tensor<2x32x32xf32>) outs(%es : tensor<2x4x32x32xf32>) dimensions = [1]
  %x = linalg.add ins(%bm, %sd : tensor<2x4x32x32xf32>, tensor<2x4x32x32xf32>) outs(%es : tensor<2x4x32x32xf32>) -> tensor<2x4x32x32xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<2x4x32x32xf32>) outs(%es : tensor<2x4x32x32xf32>) -> tensor<2x4x32x32xf32>
  %eo = tensor.empty() : tensor<2x4x32x16xf32>
  %oinit = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x4x32x16xf32>) -> tensor<2x4x32x16xf32>
  %ev = tensor.empty() : tensor<2x4x16x32xf32>
  %out = linalg.contract indexing_maps = [
      affine_map<(b, h, i, e, j) -> (b, h, i, j)>, affine_map<(b, h, i, e, j) -> (b, h, j, e)>,
      affine_map<(b, h, i, e, j) -> (b, h, i, e)>]
      ins(%pr, %v : tensor<2x4x32x32xf32>, tensor<2x4x32x16xf32>) outs(%oinit : tensor<2x4x32x16xf32>) -> tensor<2x4x32x16xf32>
  return %out : tensor<2x4x32x16xf32>
}

// -----

// Grouped-query decoding: 8 query heads over 2 key/value heads, each K/V
// head repeated 4 times in a row (PyTorch's repeat_kv: broadcast to
// [B, Hkv, 4, N, D], reshape to [B, Hkv * 4, N, D]). The op reads the
// [B, Hkv, N, D] tensors and pairs the heads itself.
#g5 = affine_map<(b, k, g, n, d) -> (b, k, n, d)>
#id5 = affine_map<(b, k, g, n, d) -> (b, k, g, n, d)>
#cq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#ck = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#cs = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#cp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#cv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#co = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
// CHECK-LABEL: func @gqa_repeat_kv
// CHECK-SAME: (%[[Q:.*]]: tensor<1x8x1x64xf16>, %[[K:.*]]: tensor<1x2x256x64xf16>, %[[V:.*]]: tensor<1x2x256x64xf16>)
// CHECK-NOT: linalg.
// CHECK: %[[O:.*]] = softmax.attention ins(%[[Q]], %[[K]], %[[V]] : tensor<1x8x1x64xf16>, tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>) outs(%{{.*}} : tensor<1x8x1x64xf16>) masked(nan) scale(1.250000e-01){{$}}
// CHECK-NOT: linalg.
// CHECK-NOT: tensor.collapse_shape
// CHECK: return %[[O]]
func.func @gqa_repeat_kv(%q: tensor<1x8x1x64xf16>, %k: tensor<1x2x256x64xf16>,
                         %v: tensor<1x2x256x64xf16>) -> tensor<1x8x1x64xf16> {
  %zero = arith.constant 0.0 : f16
  %e5 = tensor.empty() : tensor<1x2x4x256x64xf16>
  %k5 = linalg.generic {indexing_maps = [#g5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%k : tensor<1x2x256x64xf16>) outs(%e5 : tensor<1x2x4x256x64xf16>) {
  ^bb0(%a: f16, %out: f16):
    linalg.yield %a : f16
  } -> tensor<1x2x4x256x64xf16>
  %kr = tensor.collapse_shape %k5 [[0], [1, 2], [3], [4]] : tensor<1x2x4x256x64xf16> into tensor<1x8x256x64xf16>
  %ve = tensor.expand_shape %v [[0], [1, 2], [3], [4]] output_shape [1, 2, 1, 256, 64] : tensor<1x2x256x64xf16> into tensor<1x2x1x256x64xf16>
  %v5 = linalg.generic {indexing_maps = [affine_map<(b, k, g, n, d) -> (b, k, 0, n, d)>, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%ve : tensor<1x2x1x256x64xf16>) outs(%e5 : tensor<1x2x4x256x64xf16>) {
  ^bb0(%a: f16, %out: f16):
    linalg.yield %a : f16
  } -> tensor<1x2x4x256x64xf16>
  %vr = tensor.collapse_shape %v5 [[0], [1, 2], [3], [4]] : tensor<1x2x4x256x64xf16> into tensor<1x8x256x64xf16>
  %es = tensor.empty() : tensor<1x8x1x256xf16>
  %sinit = linalg.fill ins(%zero : f16) outs(%es : tensor<1x8x1x256xf16>) -> tensor<1x8x1x256xf16>
  %s = linalg.contract indexing_maps = [#cq, #ck, #cs]
      ins(%q, %kr : tensor<1x8x1x64xf16>, tensor<1x8x256x64xf16>) outs(%sinit : tensor<1x8x1x256xf16>) -> tensor<1x8x1x256xf16>
  %c = arith.constant 8.0 : f16
  %x = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<1x8x1x256xf16>) outs(%es : tensor<1x8x1x256xf16>) {
  ^bb0(%a: f16, %out: f16):
    %r = arith.divf %a, %c : f16
    linalg.yield %r : f16
  } -> tensor<1x8x1x256xf16>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<1x8x1x256xf16>) outs(%es : tensor<1x8x1x256xf16>) -> tensor<1x8x1x256xf16>
  %eo = tensor.empty() : tensor<1x8x1x64xf16>
  %oinit = linalg.fill ins(%zero : f16) outs(%eo : tensor<1x8x1x64xf16>) -> tensor<1x8x1x64xf16>
  %out = linalg.contract indexing_maps = [#cp, #cv, #co]
      ins(%pr, %vr : tensor<1x8x1x256xf16>, tensor<1x8x256x64xf16>) outs(%oinit : tensor<1x8x1x64xf16>) -> tensor<1x8x1x64xf16>
  return %out : tensor<1x8x1x64xf16>
}

// -----

// P V accumulated into a tensor that is not zero: the op writes a fresh
// tensor and the init is added afterwards, which is what the matmul
// computed (init + P V).
#bq = affine_map<(b, m, n, k) -> (b, m, k)>
#bk = affine_map<(b, m, n, k) -> (b, n, k)>
#bs = affine_map<(b, m, n, k) -> (b, m, n)>
// CHECK-LABEL: func @accumulate_into_init
// CHECK-SAME: (%[[Q:.*]]: tensor<4x32x16xf32>, %[[K:.*]]: tensor<4x32x16xf32>, %[[V:.*]]: tensor<4x32x16xf32>, %[[ACC:.*]]: tensor<4x32x16xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x32x16xf32>
// CHECK: %[[E4:.*]] = tensor.expand_shape %[[E]]
// CHECK: %[[A:.*]] = softmax.attention ins({{.*}}) outs(%[[E4]] : tensor<1x4x32x16xf32>) masked(nan) scale(2.500000e-01){{$}}
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[A]]
// CHECK: %[[O:.*]] = linalg.add ins(%[[C]], %[[ACC]] : tensor<4x32x16xf32>, tensor<4x32x16xf32>) outs(%[[ACC]] : tensor<4x32x16xf32>)
// CHECK: return %[[O]]
func.func @accumulate_into_init(%q: tensor<4x32x16xf32>, %k: tensor<4x32x16xf32>,
                                %v: tensor<4x32x16xf32>, %acc: tensor<4x32x16xf32>)
    -> tensor<4x32x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.25 : f32
  %es = tensor.empty() : tensor<4x32x32xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%es : tensor<4x32x32xf32>) -> tensor<4x32x32xf32>
  %s = linalg.batch_matmul indexing_maps = [#bq, #bk, #bs]
      ins(%q, %k : tensor<4x32x16xf32>, tensor<4x32x16xf32>) outs(%sinit : tensor<4x32x32xf32>) -> tensor<4x32x32xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<4x32x32xf32>) outs(%es : tensor<4x32x32xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4x32x32xf32>
  %pr = linalg.softmax dimension(2) ins(%x : tensor<4x32x32xf32>) outs(%es : tensor<4x32x32xf32>) -> tensor<4x32x32xf32>
  %out = linalg.batch_matmul ins(%pr, %v : tensor<4x32x32xf32>, tensor<4x32x16xf32>) outs(%acc : tensor<4x32x16xf32>) -> tensor<4x32x16xf32>
  return %out : tensor<4x32x16xf32>
}

// -----

// One head, plain 2-D linalg.matmul that transposes K through its indexing
// maps; the op sees [1, 1, N, D].
// CHECK-LABEL: func @matmul_2d
// CHECK-SAME: (%[[Q:.*]]: tensor<64x32xf32>, %[[K:.*]]: tensor<128x32xf32>, %[[V:.*]]: tensor<128x16xf32>)
// CHECK-NOT: linalg.
// CHECK-DAG: %[[Q4:.*]] = tensor.expand_shape %[[Q]] {{\[\[}}0, 1, 2], [3]] output_shape [1, 1, 64, 32]
// CHECK-DAG: %[[K4:.*]] = tensor.expand_shape %[[K]] {{\[\[}}0, 1, 2], [3]] output_shape [1, 1, 128, 32]
// CHECK-DAG: %[[V4:.*]] = tensor.expand_shape %[[V]] {{\[\[}}0, 1, 2], [3]] output_shape [1, 1, 128, 16]
// CHECK: %[[A:.*]] = softmax.attention ins(%[[Q4]], %[[K4]], %[[V4]] : tensor<1x1x64x32xf32>, tensor<1x1x128x32xf32>, tensor<1x1x128x16xf32>) outs(%{{.*}} : tensor<1x1x64x16xf32>) masked(nan) scale(1.250000e-01){{$}}
// CHECK: %[[O:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1, 2], [3]] : tensor<1x1x64x16xf32> into tensor<64x16xf32>
// CHECK: return %[[O]]
func.func @matmul_2d(%q: tensor<64x32xf32>, %k: tensor<128x32xf32>, %v: tensor<128x16xf32>) -> tensor<64x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.125 : f32
  %es = tensor.empty() : tensor<64x128xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%es : tensor<64x128xf32>) -> tensor<64x128xf32>
  %s = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%q, %k : tensor<64x32xf32>, tensor<128x32xf32>) outs(%sinit : tensor<64x128xf32>) -> tensor<64x128xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<64x128xf32>) outs(%es : tensor<64x128xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<64x128xf32>
  %pr = linalg.softmax dimension(1) ins(%x : tensor<64x128xf32>) outs(%es : tensor<64x128xf32>) -> tensor<64x128xf32>
  %eo = tensor.empty() : tensor<64x16xf32>
  %oinit = linalg.fill ins(%zero : f32) outs(%eo : tensor<64x16xf32>) -> tensor<64x16xf32>
  %out = linalg.matmul ins(%pr, %v : tensor<64x128xf32>, tensor<128x16xf32>) outs(%oinit : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %out : tensor<64x16xf32>
}

// -----

// K arrives already transposed ([B, H, D, Nk], no transpose op to look
// through) and V transposed through the second contraction's maps
// ([B, H, Dv, Nk]): both are transposed to the op's layout.
// CHECK-LABEL: func @stored_transposed
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x8x16xf32>, %[[KT:.*]]: tensor<1x2x16x8xf32>, %[[VT:.*]]: tensor<1x2x16x8xf32>)
// CHECK: %[[K:.*]] = linalg.transpose ins(%[[KT]] : tensor<1x2x16x8xf32>) outs(%{{.*}} : tensor<1x2x8x16xf32>) permutation = [0, 1, 3, 2]
// CHECK: %[[V:.*]] = linalg.transpose ins(%[[VT]] : tensor<1x2x16x8xf32>) outs(%{{.*}} : tensor<1x2x8x16xf32>) permutation = [0, 1, 3, 2]
// CHECK: softmax.attention ins(%[[Q]], %[[K]], %[[V]] : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%{{.*}} : tensor<1x2x8x16xf32>) masked(nan) scale(2.500000e-01){{$}}
func.func @stored_transposed(%q: tensor<1x2x8x16xf32>, %kt: tensor<1x2x16x8xf32>, %vt: tensor<1x2x16x8xf32>) -> tensor<1x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.25 : f32
  %es = tensor.empty() : tensor<1x2x8x8xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%es : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %s = linalg.contract indexing_maps = [
      affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, h, d, j)>,
      affine_map<(b, h, i, j, d) -> (b, h, i, j)>]
      ins(%q, %kt : tensor<1x2x8x16xf32>, tensor<1x2x16x8xf32>) outs(%sinit : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<1x2x8x8xf32>) outs(%es : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<1x2x8x8xf32>) outs(%es : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %eo = tensor.empty() : tensor<1x2x8x16xf32>
  %oinit = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %out = linalg.contract indexing_maps = [
      affine_map<(b, h, i, e, j) -> (b, h, i, j)>, affine_map<(b, h, i, e, j) -> (b, h, e, j)>,
      affine_map<(b, h, i, e, j) -> (b, h, i, e)>]
      ins(%pr, %vt : tensor<1x2x8x8xf32>, tensor<1x2x16x8xf32>) outs(%oinit : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %out : tensor<1x2x8x16xf32>
}

// -----

// K and V repeated with the group outer ([B, G, Hkv, N, D], tiling the
// heads: query head h reads head h mod Hkv) do not pair heads as the op
// does (h / G): the repeated [B, H, N, D] tensors stay the operands.
#t5 = affine_map<(b, g, k, n, d) -> (b, k, n, d)>
#id5 = affine_map<(b, g, k, n, d) -> (b, g, k, n, d)>
#cq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#ck = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#cs = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#cp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#cv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#co = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
// CHECK-LABEL: func @repeat_tiled_heads
// CHECK: %[[KR:.*]] = tensor.collapse_shape {{.*}} : tensor<1x4x2x16x32xf32> into tensor<1x8x16x32xf32>
// CHECK: %[[VR:.*]] = tensor.collapse_shape {{.*}} : tensor<1x4x2x16x32xf32> into tensor<1x8x16x32xf32>
// CHECK: softmax.attention ins(%{{.*}}, %[[KR]], %[[VR]] : tensor<1x8x4x32xf32>, tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32>) outs(%{{.*}} : tensor<1x8x4x32xf32>) masked(nan) scale(1.250000e-01){{$}}
func.func @repeat_tiled_heads(%q: tensor<1x8x4x32xf32>, %k: tensor<1x2x16x32xf32>,
                              %v: tensor<1x2x16x32xf32>) -> tensor<1x8x4x32xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.125 : f32
  %e5 = tensor.empty() : tensor<1x4x2x16x32xf32>
  %k5 = linalg.generic {indexing_maps = [#t5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%k : tensor<1x2x16x32xf32>) outs(%e5 : tensor<1x4x2x16x32xf32>) {
  ^bb0(%a: f32, %out: f32):
    linalg.yield %a : f32
  } -> tensor<1x4x2x16x32xf32>
  %kr = tensor.collapse_shape %k5 [[0], [1, 2], [3], [4]] : tensor<1x4x2x16x32xf32> into tensor<1x8x16x32xf32>
  %v5 = linalg.generic {indexing_maps = [#t5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%v : tensor<1x2x16x32xf32>) outs(%e5 : tensor<1x4x2x16x32xf32>) {
  ^bb0(%a: f32, %out: f32):
    linalg.yield %a : f32
  } -> tensor<1x4x2x16x32xf32>
  %vr = tensor.collapse_shape %v5 [[0], [1, 2], [3], [4]] : tensor<1x4x2x16x32xf32> into tensor<1x8x16x32xf32>
  %es = tensor.empty() : tensor<1x8x4x16xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%es : tensor<1x8x4x16xf32>) -> tensor<1x8x4x16xf32>
  %s = linalg.contract indexing_maps = [#cq, #ck, #cs]
      ins(%q, %kr : tensor<1x8x4x32xf32>, tensor<1x8x16x32xf32>) outs(%sinit : tensor<1x8x4x16xf32>) -> tensor<1x8x4x16xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<1x8x4x16xf32>) outs(%es : tensor<1x8x4x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x8x4x16xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<1x8x4x16xf32>) outs(%es : tensor<1x8x4x16xf32>) -> tensor<1x8x4x16xf32>
  %eo = tensor.empty() : tensor<1x8x4x32xf32>
  %oinit = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x8x4x32xf32>) -> tensor<1x8x4x32xf32>
  %out = linalg.contract indexing_maps = [#cp, #cv, #co]
      ins(%pr, %vr : tensor<1x8x4x16xf32>, tensor<1x8x16x32xf32>) outs(%oinit : tensor<1x8x4x32xf32>) -> tensor<1x8x4x32xf32>
  return %out : tensor<1x8x4x32xf32>
}

// -----

// torch-mlir's form of a 4-D matmul: batch and heads merged around
// linalg.batch_matmul (collapse_shape to [B*H, N, D] before, expand_shape
// after), K transposed in 4-D first; the scale and a [B, 1, Nq, Nk] mask
// applied in 4-D. The op runs on the 4-D tensors; its result is flattened
// for the expand_shape that follows, and the two reshapes fold away.
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>
#m = affine_map<(b, h, i, j) -> (b, 0, i, j)>
// CHECK-LABEL: func @torch_flattened_heads
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x64x32xf32>, %[[K:.*]]: tensor<2x4x64x32xf32>, %[[V:.*]]: tensor<2x4x64x32xf32>, %[[M:.*]]: tensor<2x1x64x64xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x4x64x32xf32>
// CHECK: %[[O:.*]] = softmax.attention ins(%[[Q]], %[[K]], %[[V]], %[[M]] : tensor<2x4x64x32xf32>, tensor<2x4x64x32xf32>, tensor<2x4x64x32xf32>, tensor<2x1x64x64xf32>) outs(%[[E]] : tensor<2x4x64x32xf32>) masked(nan) scale(0.176776692){{$}}
// CHECK-NOT: linalg.
// CHECK: return %[[O]]
func.func @torch_flattened_heads(%q: tensor<2x4x64x32xf32>, %k: tensor<2x4x64x32xf32>,
                                 %v: tensor<2x4x64x32xf32>, %mask: tensor<2x1x64x64xf32>)
    -> tensor<2x4x64x32xf32> {
  %zero = arith.constant 0.0 : f32
  %sqrt = arith.constant 5.65685415 : f32
  %ekt = tensor.empty() : tensor<2x4x32x64xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x64x32xf32>) outs(%ekt : tensor<2x4x32x64xf32>) permutation = [0, 1, 3, 2]
  %qf = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x64x32xf32> into tensor<8x64x32xf32>
  %ktf = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x32x64xf32> into tensor<8x32x64xf32>
  %es3 = tensor.empty() : tensor<8x64x64xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%es3 : tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
  %s3 = linalg.batch_matmul ins(%qf, %ktf : tensor<8x64x32xf32>, tensor<8x32x64xf32>) outs(%sinit : tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
  %s = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 64, 64] : tensor<8x64x64xf32> into tensor<2x4x64x64xf32>
  %es = tensor.empty() : tensor<2x4x64x64xf32>
  %sd = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x64x64xf32>) outs(%es : tensor<2x4x64x64xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.divf %a, %sqrt : f32
    linalg.yield %r : f32
  } -> tensor<2x4x64x64xf32>
  %x = linalg.generic {indexing_maps = [#id, #m, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%sd, %mask : tensor<2x4x64x64xf32>, tensor<2x1x64x64xf32>) outs(%es : tensor<2x4x64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x4x64x64xf32>
  %pr = linalg.softmax dimension(3) ins(%x : tensor<2x4x64x64xf32>) outs(%es : tensor<2x4x64x64xf32>) -> tensor<2x4x64x64xf32>
  %pf = tensor.collapse_shape %pr [[0, 1], [2], [3]] : tensor<2x4x64x64xf32> into tensor<8x64x64xf32>
  %vf = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x64x32xf32> into tensor<8x64x32xf32>
  %eo = tensor.empty() : tensor<8x64x32xf32>
  %oinit = linalg.fill ins(%zero : f32) outs(%eo : tensor<8x64x32xf32>) -> tensor<8x64x32xf32>
  %o3 = linalg.batch_matmul ins(%pf, %vf : tensor<8x64x64xf32>, tensor<8x64x32xf32>) outs(%oinit : tensor<8x64x32xf32>) -> tensor<8x64x32xf32>
  %out = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 64, 32] : tensor<8x64x32xf32> into tensor<2x4x64x32xf32>
  return %out : tensor<2x4x64x32xf32>
}
