//===- VectorMath.cpp - f32 vector arithmetic of the CPU kernels ----------===//

#include "softmax-mlir/Conversion/SoftmaxToCPU/VectorMath.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include <cmath>

using namespace mlir;
using namespace mlir::softmax;

VectorMath::VectorMath(OpBuilder &b, Location loc, int64_t lanes)
    : StateMath(b, loc, b.getF32Type(), lanes),
      i32Type(VectorType::get({lanes}, b.getI32Type())) {}

Value VectorMath::toBits(Value v) {
  return arith::BitcastOp::create(b, loc, i32Type, v);
}
Value VectorMath::fromBits(Value v) {
  return arith::BitcastOp::create(b, loc, type(), v);
}

Value VectorMath::poly(Value r) {
  // Fitted (iterated weighted least squares) for relative error on
  // [-ln2/2, ln2/2]: 9.2e-8 in exact arithmetic, 1.7e-7 with f32 Horner.
  static constexpr float c[] = {0x1.fffff6p-1f, 0x1.fffdc6p-2f,
                                0x1.555a6cp-3f, 0x1.573a6cp-5f,
                                0x1.0fa82p-7f};
  Value p = cst(c[4]);
  for (int k = 3; k >= 0; --k)
    p = fma(p, r, cst(c[k]));
  return fma(p, r, cst(1.0));
}

Value VectorMath::fastExp(Value z) {
  // Below -88, k would be -128 or less, which 2^k built from exponent bits
  // cannot represent: clamp there, where k = -127 gives exactly 0. The
  // compare is ordered, so NaN passes through.
  Value low = cst(-88.0);
  Value zc = select(arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                          z, low),
                    low, z);
  // n = z log2(e) + 1.5 * 2^23 + 127: the fma rounds z log2(e) to the
  // integer k in n's low mantissa bits, biased by 127, so 2^k is those
  // bits shifted into the exponent field.
  Value magic = cst(12583039.0);
  Value n = fma(zc, cst(M_LOG2E), magic);
  Value k = sub(n, magic);
  Value scale = fromBits(arith::ShLIOp::create(
      b, loc, toBits(n),
      arith::ConstantOp::create(b, loc,
                                DenseElementsAttr::get(
                                    i32Type, b.getI32IntegerAttr(23)))));
  return mul(poly(subScaledLn2(zc, k)), scale);
}

Value VectorMath::pow2(Value d) {
  Value low = cst(-127.0);
  Value dc = select(arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                          d, low),
                    low, d);
  // d + 2^23 + 127 is exact for integers in [-127, 0] and leaves d + 127 in
  // the low mantissa bits.
  Value biased = toBits(add(dc, cst(8388735.0)));
  return fromBits(arith::ShLIOp::create(
      b, loc, biased,
      arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(i32Type, b.getI32IntegerAttr(23)))));
}

Value VectorMath::offsetMax(Value a, Value bv) {
  return select(
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, a, bv), a, bv);
}

Value VectorMath::reduceOffsetMax(Value v) {
  return vector::ReductionOp::create(b, loc, vector::CombiningKind::MAXNUMF,
                                     v);
}

namespace {
struct FastExp : public OpRewritePattern<math::ExpOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::ExpOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<VectorType>(op.getType());
    if (!type || type.getRank() != 1 || type.isScalable() ||
        !type.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "not a 1-D f32 vector");
    VectorMath vm(rewriter, op.getLoc(), type.getNumElements());
    rewriter.replaceOp(op, vm.fastExp(op.getOperand()));
    return success();
  }
};
} // namespace

void mlir::softmax::populateSoftmaxFastExpPatterns(
    RewritePatternSet &patterns) {
  patterns.add<FastExp>(patterns.getContext());
}

void mlir::softmax::expandVectorExp(Operation *root, bool polynomial) {
  RewritePatternSet patterns(root->getContext());
  if (polynomial)
    populateMathPolynomialApproximationPatterns(
        patterns, [](StringRef name) {
          return name == math::ExpOp::getOperationName();
        });
  else
    populateSoftmaxFastExpPatterns(patterns);
  walkAndApplyPatterns(root, std::move(patterns));
}
