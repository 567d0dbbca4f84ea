//===- CrossEntropyTiles.h - builders of the cross-entropy tiles -*- C++
//-*-===//
//
// What the decompositions of softmax.linear_cross_entropy and its gradient
// share: f32 fills, the logit of a raw dot (bias, softcap) and a tile of
// logits as a linalg contraction. Private to the Transforms library.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_LIB_DIALECT_SOFTMAX_TRANSFORMS_CROSSENTROPYTILES_H
#define SOFTMAX_MLIR_LIB_DIALECT_SOFTMAX_TRANSFORMS_CROSSENTROPYTILES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlir::softmax::detail {

struct CrossEntropyTiles {
  /// `softcap`: the op's attribute (null without one).
  CrossEntropyTiles(OpBuilder &b, Location loc, FloatAttr softcap)
      : b(b), loc(loc),
        softcap(softcap ? std::optional(softcap.getValueAsDouble())
                        : std::nullopt),
        f32(b.getF32Type()) {}

  Value idx(int64_t v);
  Value f32Const(OpBuilder &nb, double v);
  /// A [sizes] f32 tensor filled with `v`.
  Value fill(ArrayRef<OpFoldResult> sizes, double v);
  /// x as f32 (extended from f16 or bf16).
  Value toF32(OpBuilder &nb, Value x);
  /// The logit from the raw dot `x` (+ `bias`): s tanh(x / s) with a
  /// softcap.
  Value logit(OpBuilder &nb, Value x, Value bias);
  /// z [rows, size] f32: hidden rows `h` against classifier rows `w` (a
  /// contraction over D, products in f32), with the bias rows `bias` (or
  /// null) and the softcap applied.
  Value logitsTile(Value h, OpFoldResult rows, Value w, Value size, Value bias);
  /// The largest element of each row of `x` [rows, ?] f32 (-inf for an
  /// empty row; NaN propagates): class_max's groups, and the largest group
  /// a tile meets.
  Value rowMaxima(Value x, OpFoldResult rows);
  /// `x` [sizes] f32 as `init`'s element type, written into `init`.
  Value convertInto(Value x, Value init);

  OpBuilder &b;
  Location loc;
  std::optional<double> softcap;
  Type f32;
};

/// softmax.linear_cross_entropy_grad -> its reference form
/// (CrossEntropyGradDecompose.cpp);
/// populateSoftmaxCrossEntropyDecomposePatterns adds it.
void populateCrossEntropyGradDecomposePatterns(RewritePatternSet &patterns);

} // namespace mlir::softmax::detail

#endif // SOFTMAX_MLIR_LIB_DIALECT_SOFTMAX_TRANSFORMS_CROSSENTROPYTILES_H
