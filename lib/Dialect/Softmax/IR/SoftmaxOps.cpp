//===- SoftmaxOps.cpp - softmax op verifiers, folders, decompositions ----===//

#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include "softmax-mlir/Dialect/Softmax/IR/AttentionShape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include <array>
#include <cmath>

using namespace mlir;
using namespace mlir::softmax;

//===----------------------------------------------------------------------===//
// Shared verification helpers
//===----------------------------------------------------------------------===//

static std::string shapeString(ShapedType type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(
      type.getShape(), os,
      [&](int64_t d) {
        if (ShapedType::isDynamic(d))
          os << "?";
        else
          os << d;
      },
      "x");
  if (type.getRank() == 0)
    os << "scalar";
  return s;
}

/// Checks `dimension` against the rank of `input`.
static LogicalResult verifyDimension(Operation *op, ShapedType input,
                                     uint64_t dimension) {
  if (dimension >= static_cast<uint64_t>(input.getRank()))
    return op->emitOpError() << "dimension " << static_cast<int64_t>(dimension)
                             << " is out of range for an input of rank "
                             << input.getRank();
  return success();
}

/// Checks that `reduced` has the shape of `full` without `dimension`.
static LogicalResult verifyReducedShape(Operation *op, ShapedType full,
                                        ShapedType reduced, uint64_t dimension,
                                        StringRef what) {
  SmallVector<int64_t> expected(full.getShape());
  expected.erase(expected.begin() + dimension);
  if (failed(verifyCompatibleShape(expected, reduced.getShape()))) {
    auto expectedType = RankedTensorType::get(expected, full.getElementType());
    return op->emitOpError()
           << what << " shape (" << shapeString(reduced)
           << ") must be the input shape without dimension " << dimension
           << " (" << shapeString(expectedType) << ")";
  }
  return success();
}

static LogicalResult verifySameShape(Operation *op, ShapedType input,
                                     ShapedType other, StringRef what) {
  if (failed(verifyCompatibleShape(input.getShape(), other.getShape())))
    return op->emitOpError() << what << " shape (" << shapeString(other)
                             << ") does not match the input shape ("
                             << shapeString(input) << ")";
  return success();
}

/// The state must be at least as wide as the input, or accumulating would
/// lose what the input carries.
static LogicalResult verifyAccumulatorWidth(Operation *op, Type input,
                                            Type acc) {
  if (acc.getIntOrFloatBitWidth() < input.getIntOrFloatBitWidth())
    return op->emitOpError() << "accumulation type " << acc
                             << " is narrower than the input element type "
                             << input;
  return success();
}

//===----------------------------------------------------------------------===//
// Semantic ops
//===----------------------------------------------------------------------===//

/// The result type is the init type on tensors and absent on memrefs.
static ParseResult parseDpsResult(OpAsmParser &, Type &result, Type init) {
  if (isa<RankedTensorType>(init))
    result = init;
  return success();
}

static void printDpsResult(OpAsmPrinter &, Operation *, Type, Type) {}

template <typename OpTy>
static FloatType accumulatorTypeOf(OpTy op) {
  if (std::optional<Type> acc = op.getAccType())
    if (auto f = dyn_cast<FloatType>(*acc))
      return f;
  Type elt = cast<ShapedType>(op.getInput().getType()).getElementType();
  if (elt.isF64())
    return Float64Type::get(op.getContext());
  return Float32Type::get(op.getContext());
}

template <typename OpTy>
static LogicalResult verifySemanticOp(OpTy op, bool reduces) {
  auto input = cast<ShapedType>(op.getInput().getType());
  auto init = cast<ShapedType>(op.getInit().getType());
  bool tensors = isa<RankedTensorType>(input);
  if (tensors != isa<RankedTensorType>(init))
    return op.emitOpError("expects input and init to be both tensors or both "
                          "memrefs");
  if (tensors != static_cast<bool>(op.getResult()) ||
      (tensors && op.getResult().getType() != init))
    return op.emitOpError("expects one result of the init type on tensors "
                          "and none on memrefs");
  if (failed(verifyDimension(op, input, op.getDimension())))
    return failure();
  if (reduces) {
    if (failed(verifyReducedShape(op, input, init, op.getDimension(), "init")))
      return failure();
  } else if (failed(verifySameShape(op, input, init, "init"))) {
    return failure();
  }
  if (std::optional<Type> acc = op.getAccType()) {
    if (!acc->isF32() && !acc->isF64())
      return op.emitOpError()
             << "accumulation type must be f32 or f64, got " << *acc;
    if (failed(verifyAccumulatorWidth(op, input.getElementType(), *acc)))
      return failure();
  }
  return success();
}

/// The identity state, (-FLT_MAX, 0) and a zero compensation, shaped as
/// `input` without `dimension`. The most negative finite value, not -inf, so
/// that `m - m'` of two identities is 0, never `-inf - -inf`.
static std::array<Value, 3> buildIdentityState(OpBuilder &b, Location loc,
                                               Value input, int64_t dimension,
                                               FloatType accType) {
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, input);
  sizes.erase(sizes.begin() + dimension);
  auto fill = [&](TypedAttr value) {
    Value empty = tensor::EmptyOp::create(b, loc, sizes, accType);
    Value cst = arith::ConstantOp::create(b, loc, value);
    return linalg::FillOp::create(b, loc, cst, empty).getResult(0);
  };
  APFloat lowest = APFloat::getLargest(accType.getFloatSemantics(), true);
  return {fill(b.getFloatAttr(accType, lowest)),
          fill(b.getFloatAttr(accType, 0.0)),
          fill(b.getFloatAttr(accType, 0.0))};
}

template <typename OpTy>
static void semanticEffects(
    OpTy op,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // On tensors the ops are pure; on memrefs they read the input and write
  // (all of) the init.
  if (isa<MemRefType>(op.getInput().getType()))
    effects.emplace_back(MemoryEffects::Read::get(), &op.getInputMutable(),
                         SideEffects::DefaultResource::get());
  if (isa<MemRefType>(op.getInit().getType()))
    effects.emplace_back(MemoryEffects::Write::get(), &op.getInitMutable(),
                         SideEffects::DefaultResource::get());
}

template <typename OpTy>
static FailureOr<PartialOp> buildPartial(OpTy op, OpBuilder &b) {
  if (!isa<RankedTensorType>(op.getInput().getType()))
    return op.emitOpError("decomposition expects tensors; run "
                          "softmax-decompose before bufferization");
  if (op.getAlgorithm() == Algorithm::Auto)
    return op.emitOpError("algorithm(auto) must be resolved before "
                          "decomposition (run softmax-select-algorithm)");
  Location loc = op.getLoc();
  FloatType acc = op.getAccumulatorType();
  auto [m0, l0, c0] =
      buildIdentityState(b, loc, op.getInput(), op.getDimension(), acc);
  Type t = m0.getType();
  return PartialOp::create(b, loc, t, t, t, op.getInput(), m0, l0, c0,
                           op.getDimension(), op.getAlgorithm());
}

template <typename OpTy>
static FailureOr<SmallVector<Value>> decomposeNormalizing(OpTy op, OpBuilder &b,
                                                          NormalizeKind kind) {
  FailureOr<PartialOp> partial = buildPartial(op, b);
  if (failed(partial))
    return failure();
  Value y = NormalizeOp::create(b, op.getLoc(), op.getInit().getType(),
                                op.getInput(), partial->getMax(),
                                partial->getSum(), op.getInit(),
                                op.getDimension(), kind,
                                partial->getStateKind(), op.getMasked());
  return SmallVector<Value>{y};
}

FloatType SoftmaxOp::getAccumulatorType() { return accumulatorTypeOf(*this); }
FloatType LogSoftmaxOp::getAccumulatorType() {
  return accumulatorTypeOf(*this);
}
FloatType LogSumExpOp::getAccumulatorType() {
  return accumulatorTypeOf(*this);
}

#define SEMANTIC_EFFECTS(OP)                                                   \
  void OP::getEffects(                                                         \
      SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>      \
          &effects) {                                                          \
    semanticEffects(*this, effects);                                           \
  }
SEMANTIC_EFFECTS(SoftmaxOp)
SEMANTIC_EFFECTS(LogSoftmaxOp)
SEMANTIC_EFFECTS(LogSumExpOp)
#undef SEMANTIC_EFFECTS

LogicalResult SoftmaxOp::verify() { return verifySemanticOp(*this, false); }
LogicalResult LogSoftmaxOp::verify() { return verifySemanticOp(*this, false); }
LogicalResult LogSumExpOp::verify() { return verifySemanticOp(*this, true); }

FailureOr<SmallVector<Value>> SoftmaxOp::decomposeOperation(OpBuilder &b) {
  return decomposeNormalizing(*this, b, NormalizeKind::Softmax);
}

FailureOr<SmallVector<Value>> LogSoftmaxOp::decomposeOperation(OpBuilder &b) {
  return decomposeNormalizing(*this, b, NormalizeKind::LogSoftmax);
}

FailureOr<SmallVector<Value>> LogSumExpOp::decomposeOperation(OpBuilder &b) {
  FailureOr<PartialOp> partial = buildPartial(*this, b);
  if (failed(partial))
    return failure();
  Value lse = LseOp::create(b, getLoc(), getInit().getType(),
                            partial->getMax(), partial->getSum(), getInit(),
                            partial->getStateKind(), getMasked());
  return SmallVector<Value>{lse};
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

/// One result per tensor init, of its type. A memref init adds none, so a
/// mix of tensors and memrefs still parses and reaches the verifier's
/// message rather than a count mismatch.
static ParseResult parseDpsResults(OpAsmParser &,
                                   SmallVectorImpl<Type> &results, Type output,
                                   Type lse, Type counts) {
  for (Type init : {output, lse, counts})
    if (isa_and_nonnull<RankedTensorType>(init))
      results.push_back(init);
  return success();
}

static void printDpsResults(OpAsmPrinter &, Operation *, TypeRange, Type, Type,
                            Type) {}

/// softmax.linear_cross_entropy: a result per tensor init, of its type.
static ParseResult parseCrossEntropyResults(OpAsmParser &p,
                                            SmallVectorImpl<Type> &results,
                                            Type lossInit, Type lseInit,
                                            Type classMaxInit) {
  return parseDpsResults(p, results, lossInit, lseInit, classMaxInit);
}

static void printCrossEntropyResults(OpAsmPrinter &, Operation *, TypeRange,
                                     Type, Type, Type) {}

/// softmax.linear_cross_entropy_grad: a result per tensor init, of its
/// type.
static ParseResult parseCrossEntropyGradResults(
    OpAsmParser &, SmallVectorImpl<Type> &results, Type ghInit, Type gwInit,
    Type gbInit, Type countsInit) {
  for (Type init : {ghInit, gwInit, gbInit, countsInit})
    if (isa_and_nonnull<RankedTensorType>(init))
      results.push_back(init);
  return success();
}

static void printCrossEntropyGradResults(OpAsmPrinter &, Operation *,
                                         TypeRange, Type, Type, Type, Type) {}


namespace {
using AttnDim = AttentionDim;

/// Where a size first showed up statically, so that a later disagreement
/// can say what it disagrees with.
struct KnownDim {
  int64_t size = ShapedType::kDynamic;
  StringRef operand;
};
} // namespace

static StringRef attnDimName(AttnDim dim) {
  switch (dim) {
  case AttnDim::B:
    return "B";
  case AttnDim::H:
    return "H";
  case AttnDim::Hkv:
    return "Hkv";
  case AttnDim::Nq:
    return "Nq";
  case AttnDim::Nk:
    return "Nk";
  case AttnDim::D:
    return "D";
  case AttnDim::Dv:
    return "Dv";
  }
  llvm_unreachable("unknown attention dimension");
}

/// The message spells out the expected layout: with four same-looking
/// operands, a bare rank does not say which dimension went missing.
static LogicalResult verifyAttnRank(AttentionOp op, ShapedType type,
                                    StringRef operand, int64_t rank,
                                    StringRef layout) {
  if (type.getRank() == rank)
    return success();
  return op.emitOpError() << operand << " must have rank " << rank << " ("
                          << layout << "), got rank " << type.getRank();
}

/// 1/sqrt(D) rounded to f32, defined only for a static nonzero D.
static std::optional<float> defaultAttentionScale(int64_t headDim) {
  if (ShapedType::isDynamic(headDim) || headDim == 0)
    return std::nullopt;
  return static_cast<float>(1.0 / std::sqrt(static_cast<double>(headDim)));
}

std::optional<float> AttentionOp::getScaleOrDefault() {
  if (std::optional<APFloat> scale = getScale())
    return scale->convertToFloat();
  // D is the last dimension of both query and key; either may know it.
  for (Value v : {getQuery(), getKey()}) {
    auto type = cast<ShapedType>(v.getType());
    if (type.getRank() == 4 && !type.isDynamicDim(3))
      return defaultAttentionScale(type.getDimSize(3));
  }
  return std::nullopt;
}

LogicalResult AttentionOp::verifySkip(int64_t batch) {
  bool threshold = static_cast<bool>(getThreshold());
  if (threshold != getThresholdKind().has_value() ||
      threshold != getSkipTile().has_value())
    return emitOpError("expects the skip threshold operand, "
                       "'threshold_kind' and 'skip_tile' together");
  if (!threshold) {
    if (getSkipCounts())
      return emitOpError("has skip_counts but no skip threshold");
    return success();
  }
  ArrayRef<int64_t> tile = *getSkipTile();
  // 2^20 rows or keys per tile is far beyond any kernel's tile, and keeps
  // tile index arithmetic in range.
  constexpr int64_t kMaxTile = int64_t(1) << 20;
  if (tile.size() != 2 || tile[0] < 1 || tile[1] < 1 || tile[0] > kMaxTile ||
      tile[1] > kMaxTile) {
    InFlightDiagnostic diag = emitOpError()
                              << "skip tile must be [query rows, keys], each "
                                 "in [1, 2^20], got [";
    llvm::interleaveComma(tile, diag);
    return diag << "]";
  }
  if (auto shaped = dyn_cast<ShapedType>(getThreshold().getType())) {
    if (shaped.getRank() != 1)
      return emitOpError() << "skip threshold must be an f32 scalar or one "
                              "f32 per batch entry ([B]), got rank "
                           << shaped.getRank();
    if (!shaped.isDynamicDim(0) && !ShapedType::isDynamic(batch) &&
        shaped.getDimSize(0) != batch)
      return emitOpError() << "skip threshold has " << shaped.getDimSize(0)
                           << " entries, but the batch B is " << batch;
  }
  if (Value counts = getSkipCounts()) {
    auto type = cast<ShapedType>(counts.getType());
    if (type.getRank() != 1 || type.isDynamicDim(0) || type.getDimSize(0) != 2)
      return emitOpError() << "skip_counts must be [2] (live tiles, skipped "
                              "tiles), got "
                           << type;
  }
  return success();
}

/// How a diagnostic names a value that is not finite.
static StringRef nonFiniteName(const APFloat &v) {
  return v.isNaN() ? "nan" : v.isNegative() ? "-inf" : "inf";
}

/// The paged layout's part of the verifier: key and value agree on the
/// page count, the page size and Hkv, and a page holds at least one key.
static LogicalResult verifyPagedKeys(AttentionOp op, ShapedType key,
                                     ShapedType value) {
  for (int64_t i : {0, 1, 2}) {
    int64_t k = key.getDimSize(i), v = value.getDimSize(i);
    if (!ShapedType::isDynamic(k) && !ShapedType::isDynamic(v) && k != v)
      return op.emitOpError()
             << "value dimension " << i << " ("
             << (i == 0   ? "num_pages"
                 : i == 1 ? "page_size"
                          : "Hkv")
             << ") must be " << k << " to match the key, got " << v;
  }
  if (key.getDimSize(1) == 0)
    return op.emitOpError("page_size (key dimension 1) must be at least 1");
  if (key.getDimSize(0) == 0)
    return op.emitOpError("a paged cache needs at least one page (key "
                          "dimension 0, num_pages)");
  return success();
}

LogicalResult AttentionOp::verify() {
  auto query = cast<ShapedType>(getQuery().getType());
  auto key = cast<ShapedType>(getKey().getType());
  auto value = cast<ShapedType>(getValue().getType());
  auto output = cast<ShapedType>(getOutput().getType());
  auto lse = getLse() ? cast<ShapedType>(getLse().getType()) : ShapedType();
  auto mask = getMask() ? cast<ShapedType>(getMask().getType()) : ShapedType();

  // DestinationStyleOpInterface already ties results to tensor inits; a mix
  // of tensors and memrefs is what it lets through.
  bool tensors = isa<RankedTensorType>(query);
  for (Value v : getOperands())
    if (isa<ShapedType>(v.getType()) &&
        isa<RankedTensorType>(v.getType()) != tensors)
      return emitOpError("expects all operands to be tensors or all to be "
                         "memrefs");

  bool paged = isPaged();
  if (failed(verifyAttnRank(*this, query, "query", 4, "[B, H, Nq, D]")) ||
      failed(verifyAttnRank(*this, key, "key", 4,
                            paged ? "[num_pages, page_size, Hkv, D]"
                                  : "[B, Hkv, Nk, D]")) ||
      failed(verifyAttnRank(*this, value, "value", 4,
                            paged ? "[num_pages, page_size, Hkv, Dv]"
                                  : "[B, Hkv, Nk, Dv]")) ||
      failed(verifyAttnRank(*this, output, "output", 4, "[B, H, Nq, Dv]")) ||
      (lse && failed(verifyAttnRank(*this, lse, "lse", 3, "[B, H, Nq]"))) ||
      (mask && failed(verifyAttnRank(*this, mask, "mask", 4,
                                     "[B or 1, H or 1, Nq, Nk]"))))
    return failure();

  // Every static occurrence of a size must agree with the first one. A
  // static 1 in the mask's batch or head dimension broadcasts instead.
  std::array<KnownDim, 7> known;
  auto check = [&](ShapedType type, StringRef operand, unsigned index,
                   AttnDim dim, bool broadcasts = false) -> LogicalResult {
    int64_t size = type.getDimSize(index);
    if (ShapedType::isDynamic(size) || (broadcasts && size == 1))
      return success();
    KnownDim &k = known[static_cast<unsigned>(dim)];
    if (ShapedType::isDynamic(k.size)) {
      k = {size, operand};
      return success();
    }
    if (k.size == size)
      return success();
    InFlightDiagnostic diag = emitOpError()
                              << operand << " dimension " << index << " ("
                              << attnDimName(dim) << ") must be ";
    if (broadcasts)
      diag << "1 or ";
    return diag << k.size << " to match the " << k.operand << ", got " << size;
  };
  using D = AttnDim;
  if (failed(check(query, "query", 0, D::B)) ||
      failed(check(query, "query", 1, D::H)) ||
      failed(check(query, "query", 2, D::Nq)) ||
      failed(check(query, "query", 3, D::D)))
    return failure();
  if (paged) {
    auto table = cast<ShapedType>(getPageTable().getType());
    if (failed(verifyAttnRank(*this, table, "page_table", 2,
                              "[B, pages per sequence]")) ||
        failed(check(table, "page_table", 0, D::B)) ||
        failed(verifyPagedKeys(*this, key, value)) ||
        failed(check(key, "key", 2, D::Hkv)))
      return failure();
    // Nk is the pages per sequence times the page size.
    int64_t pages = table.getDimSize(1), pageSize = key.getDimSize(1);
    if (pages == 0)
      return emitOpError("page_table needs at least one page per sequence "
                         "(dimension 1); an empty sequence is a key length "
                         "of 0");
    if (!ShapedType::isDynamic(pages) && !ShapedType::isDynamic(pageSize))
      known[static_cast<unsigned>(D::Nk)] = {pages * pageSize, "page table"};
  } else if (failed(check(key, "key", 0, D::B)) ||
             failed(check(key, "key", 1, D::Hkv)) ||
             failed(check(key, "key", 2, D::Nk)) ||
             failed(check(value, "value", 0, D::B)) ||
             failed(check(value, "value", 1, D::Hkv)) ||
             failed(check(value, "value", 2, D::Nk)))
    return failure();
  if (failed(check(key, "key", 3, D::D)) ||
      failed(check(value, "value", 3, D::Dv)) ||
      failed(check(output, "output", 0, D::B)) ||
      failed(check(output, "output", 1, D::H)) ||
      failed(check(output, "output", 2, D::Nq)) ||
      failed(check(output, "output", 3, D::Dv)))
    return failure();
  if (lse && (failed(check(lse, "lse", 0, D::B)) ||
              failed(check(lse, "lse", 1, D::H)) ||
              failed(check(lse, "lse", 2, D::Nq))))
    return failure();
  if (Value lengths = getKeyLengths()) {
    auto type = cast<ShapedType>(lengths.getType());
    if (failed(verifyAttnRank(*this, type, "key_lengths", 1, "[B]")) ||
        failed(check(type, "key_lengths", 0, D::B)))
      return failure();
  }
  if (mask && (failed(check(mask, "mask", 0, D::B, /*broadcasts=*/true)) ||
               failed(check(mask, "mask", 1, D::H, /*broadcasts=*/true)) ||
               failed(check(mask, "mask", 2, D::Nq)) ||
               failed(check(mask, "mask", 3, D::Nk))))
    return failure();

  int64_t heads = known[static_cast<unsigned>(D::H)].size;
  int64_t kvHeads = known[static_cast<unsigned>(D::Hkv)].size;
  if (!ShapedType::isDynamic(heads) && !ShapedType::isDynamic(kvHeads) &&
      (kvHeads == 0 ? heads != 0 : heads % kvHeads != 0))
    return emitOpError() << "query heads (H = " << heads
                         << ") must be a multiple of key/value heads (Hkv = "
                         << kvHeads << ")";

  Type elt = query.getElementType();
  if (key.getElementType() != elt || value.getElementType() != elt) {
    bool keyDiffers = key.getElementType() != elt;
    return emitOpError() << (keyDiffers ? "key" : "value") << " element type "
                         << (keyDiffers ? key : value).getElementType()
                         << " must be the query element type " << elt;
  }
  Type outElt = output.getElementType();
  if (outElt != elt && !outElt.isF32())
    return emitOpError() << "output element type " << outElt
                         << " must be the query element type " << elt
                         << " or f32";
  if (mask) {
    Type maskElt = mask.getElementType();
    if (!maskElt.isInteger(1) && !maskElt.isF32() && maskElt != elt)
      return emitOpError() << "mask element type " << maskElt
                           << " must be i1, f32 or the query element type "
                           << elt;
  }

  if (std::optional<APFloat> scale = getScale()) {
    if (!scale->isFinite())
      return emitOpError() << "scale must be finite, got "
                           << nonFiniteName(*scale);
  } else {
    int64_t headDim = known[static_cast<unsigned>(D::D)].size;
    if (!defaultAttentionScale(headDim))
      return emitOpError() << "requires 'scale' when the head dimension D is "
                           << (headDim == 0 ? "0" : "dynamic")
                           << " (the default is 1/sqrt(D))";
  }
  if (std::optional<uint64_t> window = getWindow();
      window && static_cast<int64_t>(*window) < 1)
    return emitOpError() << "window must be at least 1, got "
                         << static_cast<int64_t>(*window);
  if (std::optional<APFloat> phi = getUnifiedMax()) {
    if (!phi->isFinite())
      return emitOpError() << "unified max phi must be finite, got "
                           << nonFiniteName(*phi);
    if (getThreshold())
      return emitOpError("cannot combine a unified max with a skip "
                         "threshold: the skip rule compares each tile with "
                         "the running max, which a unified max does not "
                         "keep");
  }
  return verifySkip(known[static_cast<unsigned>(D::B)].size);
}

/// On tensors a destination-style op of ours is pure; on memrefs it reads
/// its inputs and writes (all of) its inits without reading them.
static void dpsBufferEffects(
    DestinationStyleOpInterface op,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    if (op.isDpsInit(&operand))
      effects.emplace_back(MemoryEffects::Write::get(), &operand,
                           SideEffects::DefaultResource::get());
    else
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
  }
}

void AttentionOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  dpsBufferEffects(*this, effects);
}

void LinearCrossEntropyOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  dpsBufferEffects(*this, effects);
}

void LinearCrossEntropyGradOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  dpsBufferEffects(*this, effects);
}

void TopKOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  dpsBufferEffects(*this, effects);
}

//===----------------------------------------------------------------------===//
// State ops
//===----------------------------------------------------------------------===//

LogicalResult PartialOp::verify() {
  auto input = cast<ShapedType>(getInput().getType());
  auto state = cast<ShapedType>(getMaxInit().getType());
  if (getAlgorithm() == Algorithm::Auto)
    return emitOpError("algorithm must be three_pass, online or exp_pair, "
                       "not auto");
  if (failed(verifyDimension(*this, input, getDimension())) ||
      failed(verifyReducedShape(*this, input, state, getDimension(), "state")))
    return failure();
  return verifyAccumulatorWidth(*this, input.getElementType(),
                                state.getElementType());
}

LogicalResult PartialOp::fold(FoldAdaptor, SmallVectorImpl<OpFoldResult> &res) {
  // Folding an empty slice into a state leaves the state unchanged.
  auto input = cast<ShapedType>(getInput().getType());
  if (input.getDimSize(getDimension()) != 0)
    return failure();
  res.push_back(getMaxInit());
  res.push_back(getSumInit());
  res.push_back(getCompInit());
  return success();
}

LogicalResult MergeOp::verify() {
  if (static_cast<bool>(getLhsAcc()) != static_cast<bool>(getRhsAcc()))
    return emitOpError("expects both accumulators or neither");
  if (!getLhsAcc())
    return success();
  auto state = cast<ShapedType>(getLhsMax().getType());
  for (Value acc : {getLhsAcc(), getRhsAcc(), getAcc()}) {
    auto accType = cast<ShapedType>(acc.getType());
    if (accType.getRank() < state.getRank() ||
        failed(verifyCompatibleShape(
            accType.getShape().take_front(state.getRank()),
            state.getShape())))
      return emitOpError() << "accumulator shape (" << shapeString(accType)
                           << ") must start with the state shape ("
                           << shapeString(state) << ")";
  }
  if (getLhsAcc().getType() != getRhsAcc().getType() ||
      getLhsAcc().getType() != getAcc().getType())
    return emitOpError("expects accumulators and result of one type");
  return success();
}

/// True if `v` is a constant splat of -FLT_MAX or -inf (a max identity), or
/// of zero when `zero` is set.
static bool isIdentitySplat(Value v, bool zero) {
  Attribute attr;
  if (!v || !matchPattern(v, m_Constant(&attr)))
    return false;
  auto splat = dyn_cast<SplatElementsAttr>(attr);
  if (!splat || !isa<FloatType>(splat.getElementType()))
    return false;
  APFloat value = splat.getSplatValue<APFloat>();
  if (zero)
    return value.isZero();
  return value.isNegative() && (value.isInfinity() || value.isLargest());
}

LogicalResult MergeOp::fold(FoldAdaptor, SmallVectorImpl<OpFoldResult> &res) {
  // Merging with the identity state returns the other state. The identity
  // accumulator is zero, and exp(m_identity - M) is 0 or 1 with no NaN since
  // -FLT_MAX - M stays finite.
  auto isIdentity = [&](Value m, Value l, Value acc) {
    return isIdentitySplat(m, false) && isIdentitySplat(l, true) &&
           (!acc || isIdentitySplat(acc, true));
  };
  auto forward = [&](Value m, Value l, Value acc) {
    res.push_back(m);
    res.push_back(l);
    if (acc)
      res.push_back(acc);
    return success();
  };
  if (isIdentity(getRhsMax(), getRhsSum(), getRhsAcc()))
    return forward(getLhsMax(), getLhsSum(), getLhsAcc());
  if (isIdentity(getLhsMax(), getLhsSum(), getLhsAcc()))
    return forward(getRhsMax(), getRhsSum(), getRhsAcc());
  return failure();
}

LogicalResult NormalizeOp::verify() {
  auto input = cast<ShapedType>(getInput().getType());
  auto state = cast<ShapedType>(getMax().getType());
  if (failed(verifyDimension(*this, input, getDimension())) ||
      failed(verifyReducedShape(*this, input, state, getDimension(),
                                "state")) ||
      failed(verifySameShape(*this, input,
                             cast<ShapedType>(getInit().getType()), "init")))
    return failure();
  return verifyAccumulatorWidth(*this, input.getElementType(),
                                state.getElementType());
}

LogicalResult LseOp::verify() {
  auto state = cast<ShapedType>(getMax().getType());
  auto init = cast<ShapedType>(getInit().getType());
  if (failed(verifyCompatibleShape(state.getShape(), init.getShape())))
    return emitOpError() << "init shape (" << shapeString(init)
                         << ") does not match the state shape ("
                         << shapeString(state) << ")";
  return success();
}

#define GET_OP_CLASSES
#include "softmax-mlir/Dialect/Softmax/IR/SoftmaxOps.cpp.inc"
