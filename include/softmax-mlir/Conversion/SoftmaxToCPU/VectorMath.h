//===- VectorMath.h - f32 vector arithmetic of the CPU kernels --*- C++ -*-===//
//
// The arithmetic softmax-map-to-cpu emits, exported so that tests (and a
// host compiler that wants the same exp) can build it too.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_CONVERSION_SOFTMAXTOCPU_VECTORMATH_H
#define SOFTMAX_MLIR_CONVERSION_SOFTMAXTOCPU_VECTORMATH_H

#include "softmax-mlir/Dialect/Softmax/Utils/StateMath.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::softmax {

/// f32 vector arithmetic of the CPU kernels: StateMath on vectors, its
/// hooks made the CPU's choices, plus an exp built from fma and integer
/// ops. The kernels emit math.exp (from every StateMath formula that takes
/// an exp); the fast exp replaces it by a rewrite pattern
/// (populateSoftmaxFastExpPatterns), so no helper can reach the libm exp by
/// the way it is called.
///
/// Upstream's math.exp expansion (math-polynomial-approximation) covers the
/// whole f32 domain with selects for overflow and infinities, which softmax
/// never needs (its arguments are x - max <= 0). This one is range-reduced
/// exp(z) = 2^k p(z - k ln 2) with a degree-5 polynomial fitted for relative
/// error on [-ln2/2, ln2/2] (docs/Numerics.md has its measured error), and
/// exp_pair's exact power-of-two rescaling is built from exponent bits.
class VectorMath : public StateMath {
public:
  VectorMath(OpBuilder &b, Location loc, int64_t lanes);

  /// exp(z) for z <= 88; exactly 0 for z < -88 (and -inf), NaN for NaN.
  Value fastExp(Value z);

  /// The larger of a and b; NaN in `a` is dropped (it reaches the output
  /// through the sums instead), which lets LLVM pick the plain max
  /// instruction instead of a NaN-propagating sequence.
  Value offsetMax(Value a, Value bv) override;
  /// vector.reduction <maxnumf>: NaN lanes are dropped, as in offsetMax.
  Value reduceOffsetMax(Value v) override;
  /// 2^d for integer-valued d <= 0; exactly 0 below -126 (and for -inf).
  Value pow2(Value d) override;

private:
  /// p(r) ~ exp(r) on [-ln2/2, ln2/2].
  Value poly(Value r);
  Value toBits(Value v);
  Value fromBits(Value v);

  VectorType i32Type;
};

/// math.exp on 1-D f32 vectors -> VectorMath::fastExp.
void populateSoftmaxFastExpPatterns(RewritePatternSet &patterns);

/// Expands the vector math.exp ops under `root` in place (a walk: no
/// folding, no constant hoisting, so each expansion lands where its
/// math.exp was): with populateSoftmaxFastExpPatterns, or with upstream's
/// polynomial approximation of exp when `polynomial`.
void expandVectorExp(Operation *root, bool polynomial);

} // namespace mlir::softmax

#endif // SOFTMAX_MLIR_CONVERSION_SOFTMAXTOCPU_VECTORMATH_H
