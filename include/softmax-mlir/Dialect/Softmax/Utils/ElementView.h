//===- ElementView.h - what one tensor element computes ---------*- C++ -*-===//
//
// Front ends spell one computation in many op shapes: fused or split
// elementwise generics, named ops, broadcasts written as maps with dropped or
// constant (keepdim) results, transposes, unit-dimension reshapes, reductions
// with unused extra results. Raising by semantics means looking through all
// of them at what one element stands for.
//
// An `Element` is a scalar expression seen from an index space (the loops of
// the op a match starts at, or that space extended by a reduced dimension):
// a constant, a scalar computed in some linalg body together with the map
// from the space to that body's loops, or an opaque tensor read at a map of
// the space. `ElementView` builds elements, compares two of them by what
// they compute (not by SSA identity), interprets reads of reductions, and
// materializes an element as a tensor again. Both the softmax and the
// attention matchers of softmax-raise are written over it.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_DIALECT_SOFTMAX_UTILS_ELEMENTVIEW_H
#define SOFTMAX_MLIR_DIALECT_SOFTMAX_UTILS_ELEMENTVIEW_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/APFloat.h"

#include <optional>

namespace mlir::softmax {

/// What one element stands for, seen from an index space of `map`'s
/// dimension count.
struct Element {
  enum class Kind {
    /// Not understood (a body that reads its accumulator, an unknown map).
    Unknown,
    /// A float constant.
    Constant,
    /// A scalar SSA value computed in a linalg body; `map` takes the space
    /// to that body's loops. A scalar defined outside any linalg body (a
    /// function argument, say) has an empty map.
    Scalar,
    /// `tensor` read at `map` (space -> tensor indices); the tensor's
    /// producer is not elementwise (a reduction, a matmul, an argument).
    Read,
    /// The value of loop `map.getResult(0)` (from linalg.index).
    Index,
  };
  Kind kind = Kind::Unknown;
  Value scalar;
  Value tensor;
  AffineMap map;
  std::optional<llvm::APFloat> constant;
  /// A tensor and map at which this element can be read without
  /// recomputing it (`tensor`, `map` of a Read; the result of the
  /// elementwise op that yields a Scalar, when the element was reached
  /// through that result).
  Value materialized;
  AffineMap materializedMap;

  bool isKnown() const { return kind != Kind::Unknown; }
  bool isRead() const { return kind == Kind::Read; }
  bool isConstant() const { return kind == Kind::Constant; }
  /// The op that computes a Scalar, if it is of type OpTy.
  template <typename OpTy>
  OpTy def() const {
    return kind == Kind::Scalar && scalar ? scalar.getDefiningOp<OpTy>()
                                          : OpTy();
  }
  /// The constant as a double, when this is one.
  std::optional<double> constantValue() const;
};

/// How a reduction combines its elements. MaxNum (arith.maxnumf) ignores
/// NaN operands, so a NaN seed is an identity for it.
enum class Combiner { Max, MaxNum, Sum, Other };

/// A read of a single-reduction linalg op, seen from the reader's space.
struct ReductionRead {
  Combiner combiner = Combiner::Other;
  /// The seed (init) of the reduction, when it is a splat float.
  std::optional<llvm::APFloat> seed;
  /// The element combined at each step, in the reduction's space: the
  /// reader's space, or that space plus one trailing dimension (`extended`)
  /// when the reader sees the reduced result itself rather than a broadcast
  /// of it.
  Element element;
  /// The dimension of the reduction's space that is reduced.
  unsigned dim = 0;
  bool extended = false;
};

/// Builds and compares elements over one index space with known extents
/// (ShapedType::kDynamic where unknown).
class ElementView {
public:
  ElementView(MLIRContext *ctx, ArrayRef<int64_t> extents,
              bool throughReshapes = true);

  MLIRContext *getContext() const { return ctx; }
  ArrayRef<int64_t> getExtents() const { return extents; }
  unsigned getRank() const { return extents.size(); }
  AffineMap identity() const;

  /// The element of `tensor` at `map` (space -> tensor indices), looking
  /// through elementwise linalg producers (any indexing maps: broadcasts,
  /// transposes, keepdim constants), splat constants and fills, and
  /// tensor.expand_shape / collapse_shape with static sizes.
  Element elementOf(Value tensor, AffineMap map) const;
  Element elementOf(Value tensor) const {
    return elementOf(tensor, identity());
  }

  /// A scalar of a linalg body seen through `map` (space -> body loops): a
  /// block argument becomes what its operand holds there; casts of
  /// constants fold.
  Element resolve(Value scalar, AffineMap map) const;

  /// Operand `i` of the op that computes the Scalar `e`.
  Element operand(const Element &e, unsigned i) const;

  /// Drops arith.extf / arith.truncf between f16, bf16 and f32 (the
  /// computations raised here run in f32 whatever the graph rounded to).
  Element skipNarrowCasts(Element e) const;

  /// Whether `a` and `b` compute the same value at every point of the space:
  /// same ops with equal attributes (fast-math flags aside) on equivalent
  /// operands (either order for commutative ops), equal constants, equal
  /// reads (same tensor, equal maps once simplified with the extents), or
  /// equivalent reductions.
  /// Expressions deeper than `kMaxDepth` ops compare unequal: a bound on
  /// the work (commutative operands are tried both ways).
  bool equivalent(const Element &a, const Element &b,
                  unsigned depth = 0) const;
  static constexpr unsigned kMaxDepth = 48;

  /// `read` as a reduction over one dimension, when it reads the result of
  /// a linalg op with one reduction loop (other results of that op, such as
  /// torch-mlir's argmax index next to a max, are ignored). The view of the
  /// reduction's space is `reductionSpace(r)`.
  std::optional<ReductionRead> reductionOf(const Element &read) const;
  ElementView reductionSpace(const ReductionRead &r) const;

  /// `e`, seen from this space extended by trailing dimensions.
  Element lift(const Element &e, unsigned extraDims) const;

  /// `map` simplified with the extents (floordiv/mod of an index that is
  /// known to be below the divisor).
  AffineMap simplify(AffineMap map) const;

  /// A tensor of shape `shape` (this space's extents, or the types' static
  /// sizes) holding `e` at each point: the materialized tensor when it is
  /// read at the identity, else a new linalg.generic that recomputes `e`
  /// from its reads. Fails (null) when `e` has dynamic extents or is not
  /// understood.
  Value materialize(OpBuilder &b, Location loc, const Element &e,
                    Type elementType) const;

private:
  Element readOf(Value tensor, AffineMap map) const;
  bool sameMap(AffineMap a, AffineMap b) const;

  MLIRContext *ctx;
  SmallVector<int64_t> extents;
  /// Whether elementOf looks through tensor.expand_shape/collapse_shape
  /// (the attention matcher handles its head-flattening reshapes itself).
  bool throughReshapes;
};

/// Whether `op` is elementwise: no reduction loop and every init indexed by
/// the identity.
bool isElementwiseLinalgOp(linalg::LinalgOp op);

/// The float that `value` holds in every element: a `linalg.fill` of a
/// constant, or a splat constant tensor.
std::optional<llvm::APFloat> splatFloatValue(Value value);

} // namespace mlir::softmax

#endif // SOFTMAX_MLIR_DIALECT_SOFTMAX_UTILS_ELEMENTVIEW_H
