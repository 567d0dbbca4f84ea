//===- CrossEntropyOps.cpp - softmax.linear_cross_entropy -----------------===//
//
// The verifier of the fused linear cross-entropy; its decomposition is in
// Transforms/CrossEntropyDecompose.cpp.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::softmax;

MutableOperandRange LinearCrossEntropyOp::getDpsInitsMutable() {
  // loss_init, then lse_init and class_max_init when given: the operands
  // after the inputs.
  unsigned first = 3 + (getBias() ? 1 : 0);
  unsigned count = 1 + (getLseInit() ? 1 : 0) + (getClassMaxInit() ? 1 : 0);
  return MutableOperandRange(getOperation(), first, count);
}

/// Whether static sizes `a` and `b` disagree.
static bool conflict(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}

/// The checks the forward and the backward share: the inputs' shapes and
/// types, ignore_index, softcap, z_loss and vocab_tile.
template <typename OpTy> static LogicalResult verifyInputs(OpTy op) {
  auto h = cast<ShapedType>(op.getHidden().getType());
  auto w = cast<ShapedType>(op.getClassifier().getType());
  auto t = cast<ShapedType>(op.getTargets().getType());
  if (h.getRank() != 2 || w.getRank() != 2 || t.getRank() != 1)
    return op.emitOpError("needs hidden [N, D], classifier [V, D] and "
                          "targets [N], not ranks ")
           << h.getRank() << ", " << w.getRank() << " and " << t.getRank();
  if (conflict(h.getDimSize(1), w.getDimSize(1)))
    return op.emitOpError() << "hidden has " << h.getDimSize(1)
                            << " features and classifier " << w.getDimSize(1);
  if (conflict(h.getDimSize(0), t.getDimSize(0)))
    return op.emitOpError() << "hidden has " << h.getDimSize(0)
                            << " tokens and targets " << t.getDimSize(0);
  if (h.getElementType() != w.getElementType())
    return op.emitOpError()
           << "hidden (" << h.getElementType() << ") and classifier ("
           << w.getElementType() << ") need one element type";
  if (Value bias = op.getBias()) {
    auto b = cast<ShapedType>(bias.getType());
    if (b.getRank() != 1 || conflict(b.getDimSize(0), w.getDimSize(0)))
      return op.emitOpError() << "bias must be [V] with the classifier's "
                              << w.getDimSize(0) << " classes, not " << b;
    if (b.getElementType() != h.getElementType())
      return op.emitOpError()
             << "bias (" << b.getElementType()
             << ") needs the inputs' element type " << h.getElementType();
  }
  unsigned width = t.getElementType().getIntOrFloatBitWidth();
  int64_t ignore = op.getIgnoreIndex();
  if (width == 32 && (ignore < INT32_MIN || ignore > INT32_MAX))
    return op.emitOpError()
           << "ignore_index " << ignore << " does not fit the i32 targets";
  if (FloatAttr cap = op.getSoftcapAttr()) {
    double s = cap.getValueAsDouble();
    if (!(s > 0) || std::isinf(s))
      return op.emitOpError()
             << "softcap must be positive and finite, not " << s;
  }
  if (FloatAttr z = op.getZLossAttr()) {
    double c = z.getValueAsDouble();
    if (!(c >= 0) || std::isinf(c))
      return op.emitOpError()
             << "z_loss must be non-negative and finite, not " << c;
  }
  return success();
}

/// Emits at `op` unless `classMax` is [N, ceil(V / 256)], a token's row
/// per group of 256 classes.
static LogicalResult verifyClassMax(Operation *op, Value classMax, int64_t n,
                                    int64_t v) {
  auto type = cast<ShapedType>(classMax.getType());
  int64_t width = LinearCrossEntropyOp::getClassMaxWidth();
  int64_t groups =
      ShapedType::isDynamic(v) ? v : llvm::divideCeil(v, width);
  if (type.getRank() != 2 || conflict(type.getDimSize(0), n) ||
      conflict(type.getDimSize(1), groups))
    return op->emitOpError()
           << "class_max must be [N, ceil(V / " << width
           << ")], a token's largest logit per " << width
           << " classes, not " << type;
  return success();
}

/// Every operand a tensor or every operand a memref.
static LogicalResult verifyOneForm(Operation *op) {
  bool onTensors = isa<RankedTensorType>(op->getOperand(0).getType());
  for (Value v : op->getOperands())
    if (isa<RankedTensorType>(v.getType()) != onTensors)
      return op->emitOpError("operands must be all tensors or all memrefs");
  return success();
}

/// Whether `type` is [n] (rank 1, agreeing with n where both are static).
static bool isPerToken(Type type, int64_t n) {
  auto r = cast<ShapedType>(type);
  return r.getRank() == 1 && !conflict(r.getDimSize(0), n);
}

LogicalResult LinearCrossEntropyOp::verify() {
  if (failed(verifyOneForm(*this)) || failed(verifyInputs(*this)))
    return failure();
  if (getVocabTile() < 1)
    return emitOpError() << "vocab_tile must be positive, not "
                         << getVocabTile();
  int64_t n = cast<ShapedType>(getHidden().getType()).getDimSize(0);
  auto loss = cast<ShapedType>(getLossInit().getType());
  bool perToken = getReduction() == LossReduction::None;
  if (perToken ? !isPerToken(loss, n) : loss.getRank() != 0)
    return emitOpError() << "reduction("
                         << stringifyLossReduction(getReduction())
                         << ") writes "
                         << (perToken ? "one loss per token, [N]"
                                      : "one loss, a rank-0 tensor")
                         << ", not " << loss;
  if (Value lse = getLseInit())
    if (!isPerToken(lse.getType(), n))
      return emitOpError() << "lse must be [N], one per token, not "
                           << lse.getType();
  if (Value classMax = getClassMaxInit()) {
    // The decomposition's tiles hold whole groups.
    int64_t width = getClassMaxWidth();
    if (getVocabTile() % width != 0)
      return emitOpError() << "class_max needs vocab_tile to be a multiple of "
                           << width << ", not " << getVocabTile();
    return verifyClassMax(
        *this, classMax, n,
        cast<ShapedType>(getClassifier().getType()).getDimSize(0));
  }
  return success();
}

MutableOperandRange LinearCrossEntropyGradOp::getDpsInitsMutable() {
  unsigned first = 5 + (getBias() ? 1 : 0) + (getClassMax() ? 1 : 0);
  unsigned count =
      2 + (getGradBiasInit() ? 1 : 0) + (getFilterCountsInit() ? 1 : 0);
  return MutableOperandRange(getOperation(), first, count);
}

double LinearCrossEntropyGradOp::getFilterOrDefault() {
  if (FloatAttr f = getFilterAttr())
    return f.getValueAsDouble();
  // The gradient's resolution in the inputs' type (Cut Cross-Entropy
  // filters bf16 at 2^-12); f32 is exact.
  Type elt = cast<ShapedType>(getHidden().getType()).getElementType();
  if (elt.isBF16())
    return std::ldexp(1.0, -12);
  if (elt.isF16())
    return std::ldexp(1.0, -15);
  return 0.0;
}

LogicalResult LinearCrossEntropyGradOp::verify() {
  if (failed(verifyOneForm(*this)) || failed(verifyInputs(*this)))
    return failure();
  auto h = cast<ShapedType>(getHidden().getType());
  auto w = cast<ShapedType>(getClassifier().getType());
  int64_t n = h.getDimSize(0);
  if (!isPerToken(getLse().getType(), n))
    return emitOpError() << "lse must be [N], one per token, not "
                         << getLse().getType();
  auto dl = cast<ShapedType>(getGradLoss().getType());
  bool perToken = getReduction() == LossReduction::None;
  if (perToken ? !isPerToken(dl, n) : dl.getRank() != 0)
    return emitOpError() << "reduction("
                         << stringifyLossReduction(getReduction()) << ") takes "
                         << (perToken ? "one loss gradient per token, [N]"
                                      : "one loss gradient, a rank-0 tensor")
                         << ", not " << dl;
  auto sameShape = [](ShapedType a, ShapedType b) {
    if (a.getRank() != b.getRank())
      return false;
    for (int64_t i = 0; i < a.getRank(); ++i)
      if (conflict(a.getDimSize(i), b.getDimSize(i)))
        return false;
    return true;
  };
  auto gh = cast<ShapedType>(getGradHiddenInit().getType());
  auto gw = cast<ShapedType>(getGradClassifierInit().getType());
  if (!sameShape(gh, h))
    return emitOpError() << "grad_hidden must have hidden's shape " << h
                         << ", not " << gh;
  if (!sameShape(gw, w))
    return emitOpError() << "grad_classifier must have classifier's shape " << w
                         << ", not " << gw;
  if (Value gb = getGradBiasInit()) {
    if (!getBias())
      return emitOpError("has a grad_bias init without a bias");
    if (!sameShape(cast<ShapedType>(gb.getType()),
                   cast<ShapedType>(getBias().getType())))
      return emitOpError() << "grad_bias must have bias's shape, not "
                           << gb.getType();
  }
  if (Value c = getFilterCountsInit()) {
    auto ct = cast<ShapedType>(c.getType());
    if (ct.getRank() != 1 || (ct.getDimSize(0) != 2 && ct.getDimSize(0) != 3))
      return emitOpError()
             << "filter_counts must be tensor<2xi64> or tensor<3xi64>, not "
             << ct;
  }
  if (Value classMax = getClassMax())
    if (failed(verifyClassMax(*this, classMax, n, w.getDimSize(0))))
      return failure();
  if (FloatAttr f = getFilterAttr()) {
    double eps = f.getValueAsDouble();
    if (!(eps >= 0) || std::isinf(eps))
      return emitOpError() << "filter must be non-negative and finite, not "
                           << eps;
  }
  if (getTokenTile() && *getTokenTile() < 1)
    return emitOpError() << "token_tile must be positive, not "
                         << *getTokenTile();
  if (getVocabTile() && *getVocabTile() < 1)
    return emitOpError() << "vocab_tile must be positive, not "
                         << *getVocabTile();
  return success();
}
