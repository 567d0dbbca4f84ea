//===- CrossEntropyMath.h - the cross-entropy gradient's formulas -*- C++ -*-===//
//
// The scalar formulas of softmax.linear_cross_entropy_grad, written
// once: the decomposition builds them inside linalg bodies, the GPU kernel
// per accumulator element.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_DIALECT_SOFTMAX_UTILS_CROSSENTROPYMATH_H
#define SOFTMAX_MLIR_DIALECT_SOFTMAX_UTILS_CROSSENTROPYMATH_H

#include "mlir/IR/Builders.h"
#include "softmax-mlir/Dialect/Softmax/Utils/StateMath.h"

#include <optional>

namespace mlir::softmax {

/// A token's weight w_n in the gradient: `gradLoss` (f32; already divided
/// by the kept tokens for a mean), 0 when the integer `target` is
/// `ignoreIndex`, NaN when it is outside [0, `classes`) (an index).
Value crossEntropyTokenWeight(OpBuilder &b, Location loc, Value target,
                              Value gradLoss, Value classes,
                              int64_t ignoreIndex);

/// du = w (exp(z - lse) (1 + 2 c lse) - [target]) (1 - (z / s)^2): the
/// gradient at the raw logit of the f32 logit `z` (after the softcap `s`,
/// whose derivative is the last factor), with `isTarget` an i1 and `zLoss`
/// c (0: none). The exp is StateMath's scale of z - lse in `units`: the
/// GPU takes it log2-scaled, a multiply and an ex2.approx on NVIDIA where
/// math.exp is libdevice's range-reduced expf (11 instructions an element
/// of the logit tile).
Value crossEntropyLogitGradient(OpBuilder &b, Location loc, Value z, Value lse,
                                Value weight, Value isTarget, double zLoss,
                                std::optional<double> softcap,
                                ExpUnits units = ExpUnits::Natural);

/// Whether the filter keeps the entry du of a token of weight `weight`:
/// |du| > filter |weight| (NaN kept). The filter judges the token's
/// softmax gradient, du / w: a mean over N tokens scales every du by 1 / N,
/// which would put whole vocabularies under a filter on du itself.
Value crossEntropyKeepsEntry(OpBuilder &b, Location loc, Value du,
                             Value weight, double filter);

/// Whether the filter drops every entry of a token in a tile before the
/// tile's logits are recomputed: `groupMax` (f32) is at least each of the
/// token's logits there (the forward's class_max), `targetInTile` (i1)
/// whether its target class is among them. Then each |du / w| is at most
/// exp(groupMax - lse) |1 + 2 c lse| (the softcap's derivative is at most
/// 1), and the token is bounded when that is at most `filter` (1 - 2^-10)
/// and its target is elsewhere or its weight 0 (ignored). The 2^-10 to
/// spare is more than the forward's logits and the recomputed ones differ
/// by (rounding in other orders: about 2^-20 relative), so that a tile
/// this bounds is one crossEntropyKeepsEntry drops everywhere too. NaN
/// anywhere bounds nothing.
Value crossEntropyBoundsToken(OpBuilder &b, Location loc, Value groupMax,
                              Value lse, Value weight, Value targetInTile,
                              double zLoss, double filter);

} // namespace mlir::softmax

#endif // SOFTMAX_MLIR_DIALECT_SOFTMAX_UTILS_CROSSENTROPYMATH_H
