//===- StateMath.h - the algebra of the online softmax state ----*- C++ -*-===//
//
// The arithmetic of the softmax state, written once for every lowering:
// the linalg lowering of the state ops (StateToLinalg.cpp), the CPU row and
// attention kernels (on vectors, through VectorMath) and the GPU row and
// attention kernels. A state is an offset m, a sum l of terms taken at that
// offset (with its Kahan compensation c where one is carried) and, for
// attention, output accumulators O (docs/Numerics.md). Max states (online,
// three_pass) take the largest element as offset; exponent states
// (exp_pair) the largest exponent, so that their rescales are exact powers
// of two. With o the offset of an element, t its term and s the rescale of
// an offset difference:
//
//   identity   m = lowest finite value, l = c = 0, O = 0
//   offset     o(x) = x (max), round(x log2 e) (exponent)
//   term       t(x, m) = exp(x - m) (max), exp(x - m ln 2) (exponent, with
//              ln 2 split so that x - m ln 2 is exact), or a 2^(k - m) from
//              the exponent pair k = o(x), a = exp(x - k ln 2)
//   rescale    s(d) = exp(d) (max), 2^d exactly (exponent)
//   fold       m' = max(m, o(x_1), ..., o(x_n)),
//              l' = l s(m - m') + sum_i t(x_i, m')
//   merge      M = max(m1, m2), s_i = s(m_i - M),
//              l = l1 s1 + l2 s2, O = O1 s1 + O2 s2
//   normalize  softmax t(x, m) / l, log_softmax x - m - log l (the log of
//              the term, less log l); the masked value where l = 0
//   lse        m + log l (max), m ln 2 + log l (exponent),
//              (m + log2 l) ln 2 (max in log2 units)
//   Kahan      y = t - c, l' = l + y, c' = (l' - l) - y; the sum is l - c
//
// The exp policy (ExpUnits), for max states: natural units, exp(x - m) by
// math.exp (which the CPU kernels' fast exp replaces on vectors); or log2
// units: exp2((x - m) log2 e) from natural values, exp2(x - m) from values
// already in log2 units (GPU attention), and exp2(fma(s, c, -m)) from raw
// scores s whose log2-unit value is s c (GPU attention's folded form).
// Log2-unit exps go through the fastExp2 hook, where an end may put a
// faster instruction (NVVM's ex2.approx.ftz); the exact powers of two of
// exponent states through the pow2 hook, the offset max through offsetMax
// (VectorMath's drops NaN). Works on scalars and on vectors of the
// accumulation type.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_DIALECT_SOFTMAX_UTILS_STATEMATH_H
#define SOFTMAX_MLIR_DIALECT_SOFTMAX_UTILS_STATEMATH_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include <functional>

namespace mlir::softmax {

/// The units in which the exps of a max state are taken (the exp policy).
/// Exponent states take exp(x - m ln 2) and exact powers of two whatever
/// the units.
enum class ExpUnits {
  /// exp(x - m) by math.exp.
  Natural,
  /// Natural values, exp2((x - m) log2 e): a subtraction, a multiply and
  /// one ex2 per element instead of a range-reduced exp. The difference is
  /// taken first, so the multiply's rounding is relative to x - m, which is
  /// small for the elements that matter; folding log2 e into an fma with x
  /// instead would err by m times the rounding of log2 e, which log_softmax
  /// and logsumexp would show for logits near 1e4. A -inf element gives
  /// 2^-inf = 0 (m is at least the identity, -FLT_MAX).
  Log2Scaled,
  /// Values already in log2 units (scores times log2 e): exp2(x - m).
  Log2,
};

/// The operand order of an offset max. Both give the same maximum (up to
/// which NaN survives); each kernel keeps the order its code has.
enum class MaxOrder {
  /// max(m, o): the state's offset first.
  StateFirst,
  /// max(o, m): the incoming offset first, whose NaN VectorMath drops.
  IncomingFirst,
};

/// What a -inf element (a masked score) does in a fold of exponent states,
/// where it has no exponent pair (k = -inf, a = exp(-inf + inf) = NaN).
/// Max states need nothing: max(m, -inf) = m and exp(-inf - m) = 0.
enum class MinusInf {
  /// Nothing: its offset loses every max and its direct term
  /// exp(-inf - m' ln 2) is 0 for the finite m' the identity guarantees.
  Ignore,
  /// Its pair is made the identity's, (lowest, 0), before the max.
  IdentityPair,
  /// The state stays as it was: StateFold::unlessMinusInf selects it.
  KeepState,
};

class StateMath;

/// How a fold (StateFold) reads its elements and takes its exps.
struct FoldRule {
  explicit FoldRule(StateKind kind = StateKind::Max,
                    ExpUnits units = ExpUnits::Natural)
      : kind(kind), units(units) {}

  /// How the offsets of the group reach their state's.
  enum class Group {
    /// One by one, from the state's: m' = max(...max(m, o_1)..., o_n).
    Chain,
    /// Pairwise first (treeReduce), then m' = max(m, tree): no chain of
    /// dependent maxima longer than log2(n).
    Tree,
    /// One vector of elements into a scalar state: m' = max(m, the lane
    /// max). Terms and rescale are taken on the vector (in `lanes`, where
    /// the fast exp is); a scalar sum takes lane 0 of the rescale.
    Lanes,
  };

  StateKind kind;
  ExpUnits units;
  Group group = Group::Chain;
  MaxOrder order = MaxOrder::StateFirst;
  /// Exponent states: terms a 2^(k - m') from the exponent pairs, instead
  /// of exp(x - m' ln 2).
  bool pairs = false;
  MinusInf minusInf = MinusInf::Ignore;
  /// Log2 units, when set: the elements are raw scores s of log2-unit
  /// value s c for this c > 0. The group's max is taken on s (max(s) c =
  /// max(s c)) from -inf and scaled once, and each term is
  /// exp2(fma(s, c, -m')), one instruction where s c - m' takes two.
  Value log2Scale;
  /// Group::Lanes: the arithmetic of the vector of elements.
  StateMath *lanes = nullptr;
  /// Several states: element i folds into state slotOf(i); one if unset.
  std::function<int64_t(int64_t)> slotOf;
  /// The max of a new offset across the lanes that hold the same state
  /// (shuffles); unset when each state's elements are in one lane.
  std::function<Value(Value)> acrossLanes;
  /// Chain: reduce the group on its own, from -inf, and join it with m
  /// after it has crossed the lanes (StateFold::groupOffset), so that a
  /// threshold skip can test the group's max against m before any term.
  bool ownGroup = false;
};

/// Arithmetic in the accumulation type, on scalars or, when `lanes` is
/// given, on vectors of that many lanes (constants become splats).
class StateMath {
public:
  StateMath(OpBuilder &b, Location loc, FloatType acc, int64_t lanes = 0);
  virtual ~StateMath() = default;

  /// The type every value of this StateMath has.
  Type type() const { return vecType ? Type(vecType) : Type(acc); }

  //===--------------------------------------------------------------------===//
  // Constants, conversions, arithmetic
  //===--------------------------------------------------------------------===//

  Value constant(const APFloat &v);
  Value cst(double v);
  Value negInf();
  Value nan();
  /// `v` converted to the accumulation type (same shape).
  Value toAcc(Value v);
  /// `v` (accumulation type) converted to element type `to` (same shape).
  Value fromAcc(Value v, Type to);
  Value add(Value x, Value y);
  Value sub(Value x, Value y);
  Value mul(Value x, Value y);
  Value div(Value x, Value y);
  Value log(Value x);
  Value log2(Value x);
  Value fma(Value x, Value y, Value z);
  Value eq(Value x, Value y);
  Value select(Value c, Value t, Value f);
  /// Vectors: `scalar` in every lane, lane `i` of `v`, the sum of the lanes
  /// (a halving tree of vector adds, not an ordered reduction).
  Value splat(Value scalar);
  Value lane(Value v, int64_t i);
  Value reduceAdd(Value v);

  //===--------------------------------------------------------------------===//
  // Hooks: the instruction behind a step of the formulas
  //===--------------------------------------------------------------------===//

  /// The larger of two offsets: arith.maximumf (NaN propagates).
  virtual Value offsetMax(Value x, Value y);
  /// The largest lane of a vector of offsets: vector.reduction <maximumf>.
  virtual Value reduceOffsetMax(Value v);
  /// 2^d exactly, for integer-valued d (exponent rescales): math.exp2.
  virtual Value pow2(Value d);
  /// 2^x of a log2-unit difference (ExpUnits::Log2 and Log2Scaled):
  /// math.exp2.
  virtual Value fastExp2(Value x);

  //===--------------------------------------------------------------------===//
  // Identity, offsets, terms
  //===--------------------------------------------------------------------===//

  /// The identity state's offset: the most negative finite value, so that
  /// the difference of two identities is 0, never -inf - -inf.
  Value identityOffset();
  /// The identity's sum, compensation and accumulators: 0.
  Value identitySum();

  /// log2 e and ln 2, the constants of the exponent state and of log2
  /// units.
  Value log2e();
  Value ln2();
  /// o(x): x for max states, k = round(x log2 e) for exponent states.
  Value elementOffset(StateKind kind, Value x);
  /// ln 2 split into a head and a tail; the head's product with an integer
  /// is folded into an fma, so `x - k ln 2` stays exact to the last bit even
  /// for |x| ~ 1e4, where a single rounded product would lose ~10 bits.
  std::pair<Value, Value> ln2Split();
  /// x - k * ln 2, accurately.
  Value subScaledLn2(Value x, Value k);
  /// log t(x, m): x - m (max), x - m ln 2 (exponent).
  Value logTerm(StateKind kind, Value x, Value m);
  /// t(x, m) = exp(log t(x, m)): by math.exp, or for max states in
  /// `units` (scale).
  Value term(StateKind kind, Value x, Value m,
             ExpUnits units = ExpUnits::Natural);
  /// The exponent pair of x: k = o(x) and a = t(x, k) = exp(x - k ln 2),
  /// so exp(x) = a * 2^k with a in [2^-0.5, 2^0.5].
  std::pair<Value, Value> expPair(Value x);
  /// The term of the pair (k, a) against exponent offset m: a 2^(k - m).
  Value pairTerm(Value k, Value a, Value m);
  /// x in log2 units: x log2 e.
  Value log2Units(Value x);
  /// The log2-unit factor of a natural-unit scale: scale log2 e in f32.
  static float log2UnitsFactor(float scale);

  //===--------------------------------------------------------------------===//
  // Rescale and merge
  //===--------------------------------------------------------------------===//

  /// s(d): exp(d) for max states (in `units`), 2^d exactly (pow2) for
  /// exponent states.
  Value scale(StateKind kind, Value diff, ExpUnits units = ExpUnits::Natural);
  /// s(m - mNew): moves a sum at offset m to offset mNew.
  Value rescale(StateKind kind, Value m, Value mNew,
                ExpUnits units = ExpUnits::Natural);

  /// The scales of a merge: M = max(m1, m2), s_i = s(m_i - M).
  struct MergeScales {
    Value offset, lhs, rhs;
  };
  MergeScales mergeScales(StateKind kind, Value m1, Value m2,
                          MaxOrder order = MaxOrder::StateFirst,
                          ExpUnits units = ExpUnits::Natural);
  /// mergeScales, but s_i = 1 where m_i is M itself: the same value for a
  /// finite m_i, and no exp(-inf - -inf) = NaN when both offsets are -inf
  /// (an identity that softmax.merge accepts besides -FLT_MAX). The kernels
  /// start from -FLT_MAX and need no select.
  MergeScales infSafeMergeScales(StateKind kind, Value m1, Value m2,
                                 ExpUnits units = ExpUnits::Natural);
  /// x1 s1 + x2 s2: a merged sum or accumulator.
  Value mergeSums(const MergeScales &s, Value x1, Value x2);
  /// (M, l1 s1 + l2 s2), the scales in `units`.
  std::pair<Value, Value> merge(StateKind kind, Value m1, Value l1, Value m2,
                                Value l2, ExpUnits units = ExpUnits::Natural);
  /// (M, l, c): the state (m2, l2) added, compensated, to (m1, l1, c1).
  std::tuple<Value, Value, Value>
  mergeCompensated(StateKind kind, Value m1, Value l1, Value c1, Value m2,
                   Value l2, MaxOrder order = MaxOrder::StateFirst);
  /// The lanes of a vector state merged into one scalar state:
  /// M = max of the lanes, l = sum of l_i s(m_i - M).
  std::pair<Value, Value> mergeLanes(StateKind kind, Value m, Value l);

  /// One step of compensated (Kahan) summation: returns the new sum and
  /// compensation for `sum + term`. Recursive f32 summation of n terms
  /// drifts by up to n ulps (1031 equal terms: ~1e-5 relative), which the
  /// f32 bound of 1e-6 does not allow; the compensation keeps the error at
  /// a few ulps whatever n is.
  std::pair<Value, Value> kahanAdd(Value sum, Value comp, Value term);
  /// The value of a compensated sum: sum - comp.
  Value kahanTotal(Value sum, Value comp);

  //===--------------------------------------------------------------------===//
  // Outputs
  //===--------------------------------------------------------------------===//

  /// The max state (m, l) that a normalized result with log-sum-exp `lse`
  /// stands for, its output being the accumulator: (lse, 1), or the
  /// identity (-FLT_MAX, 0) where the result saw no key (lse = -inf). A NaN
  /// lse stays NaN.
  std::pair<Value, Value> stateOfLse(Value lse);
  /// Whether a row is fully masked: l = 0.
  Value emptyRow(Value l);
  /// 1 / l, to multiply by instead of dividing.
  Value reciprocal(Value l);
  /// The value a fully masked row gets.
  Value maskedValue(MaskedRows masked, bool probability);
  /// `y`, or the masked value where the row is empty (l = 0).
  Value maskRow(MaskedRows masked, bool probability, Value l, Value y);
  /// One output element of softmax or log_softmax given the row's final
  /// state, the masked-row rule aside: softmax t(x, m) * rowValue
  /// (rowValue = 1 / l) or t(x, m) / l when rowValue is null; log_softmax
  /// log t(x, m) - rowValue (rowValue = log l, taken here when null). With
  /// `pairs`, an exponent state's term is the pair's, 0 for a -inf x. A max
  /// state's term is taken in `units`.
  Value normalized(NormalizeKind kind, StateKind state, Value x, Value m,
                   Value l, Value rowValue, bool pairs,
                   ExpUnits units = ExpUnits::Natural);
  /// normalized, with the exponent pairs, masked by the row rule;
  /// `invSum`, when given, is 1 / l, to multiply instead of divide.
  Value normalize(NormalizeKind kind, StateKind state, MaskedRows masked,
                  Value x, Value m, Value l, Value invSum = Value(),
                  ExpUnits units = ExpUnits::Natural);
  /// The log-sum-exp of a final state, the masked-row rule aside.
  Value lseOf(StateKind state, Value m, Value l,
              ExpUnits units = ExpUnits::Natural);
  /// lseOf, masked by the row rule.
  Value lse(StateKind state, MaskedRows masked, Value m, Value l);

  //===--------------------------------------------------------------------===//
  // Skipping key tiles (softmax.attention skip)
  //===--------------------------------------------------------------------===//

  /// ln(lambda) where 0 < lambda < 1, else -inf: lambda's values that turn
  /// skipping off (>= 1, <= 0, NaN) become a threshold no row passes. With
  /// `keys` (the key count, in the accumulation type), `t` is the
  /// `scale_factor` a and lambda = a / keys (0 keys gives inf or NaN, which
  /// turn skipping off); without, `t` is lambda.
  Value logSkipThreshold(Value t, Value keys = Value());
  /// lambda itself: `t` / `keys` for the `scale_factor` form (`keys` set),
  /// `t` for the `lambda` form.
  Value skipLambda(Value t, Value keys = Value());
  /// Whether a row lets its query tile skip a key tile, from the tile's
  /// max score `tileMax` and the running max `m` of the earlier tiles (a max
  /// state): the row sees no key of the tile (`tileMax` at most the identity
  /// offset, -inf included), or `tileMax - m < logLambda`. From the identity
  /// `m`, `tileMax - m` is at least 0, so a row's first tile with a key is
  /// never skipped.
  Value rowAllowsSkip(Value tileMax, Value m, Value logLambda);
  /// Whether the row sees a key of the tile: `tileMax` above the identity.
  Value rowSeesTile(Value tileMax);

  //===--------------------------------------------------------------------===//
  // Unified max (softmax.attention algorithm(unified_max))
  //===--------------------------------------------------------------------===//

  /// log2 of the bound on a unified-max sum: a row's (or split's) sum l
  /// at phi is kept when 2^-64 <= l <= 2^64. Then its largest term is at
  /// least 2^-64 / Nk, above 2^-95 for any Nk below 2^31 and far from
  /// f32's subnormals (2^-126), so the terms that matter keep f32's full
  /// precision; and no accumulator can overflow: |O| <= l max|v| <=
  /// 2^64 * 65504 (the f16 limit) < 2^81, against f32's 2^128.
  static constexpr int kUnifiedSumLog2Bound = 64;
  /// Whether a sum `l` taken at a unified max may be kept: l in [2^-64,
  /// 2^64]. False for l = 0 (a row that saw no key, or whose terms all
  /// underflowed), inf and NaN: those rows take the online path.
  Value unifiedSumInRange(Value l);

protected:
  /// math.exp: reached through term and scale only, which decide the units.
  Value exp(Value x);
  static Type withShapeOf(Value v, Type element);

  OpBuilder &b;
  Location loc;
  FloatType acc;
  VectorType vecType;
};

/// One fold of a group of elements into states, its pieces emitted when
/// first asked for, so that each kernel keeps its order of operations
/// (the constructor emits the element offsets and, for Group::Chain, their
/// maxima). Per slot (state): offset m', rescale r = s(m - m') and the
/// rescaled sums l r; per element: the term t(x, m'); and the new sum
/// l r + sum t, whole (newSum, newSumCompensated) or a term at a time
/// (addTerm: a chain, or one accumulator per element).
///
/// Where variants of the algorithm join: `offset` decides m' (a unified
/// max fixes it at phi, as atOffset does; a threshold skip computes its
/// predicate, (G - m) scale < ln lambda, from the group's own offset G,
/// which Tree, Lanes and log2Scale take), `rescale` the old sum's factor
/// (none at a fixed offset).
class StateFold {
public:
  /// Folds `xs` into the states at offsets `m`, one per slot.
  StateFold(StateMath &sm, FoldRule rule, ArrayRef<Value> m,
            ArrayRef<Value> xs);
  /// A fold at a known new offset `mNew` (three_pass's second pass, against
  /// the row's max): terms against `mNew`, and the rescale from `m`, or none
  /// when `m` is null (a state from the identity, whose sum is 0).
  static StateFold atOffset(StateMath &sm, FoldRule rule, Value m, Value mNew,
                            ArrayRef<Value> xs);
  /// The same for one state per slot; a null `m` of a slot takes no
  /// rescale (a unified max: every slot at offset phi, sums added as they
  /// are).
  static StateFold atOffset(StateMath &sm, FoldRule rule, ArrayRef<Value> m,
                            ArrayRef<Value> mNew, ArrayRef<Value> xs);

  /// m' of a slot: the offsets' max, scaled (log2Scale) and joined with m
  /// where the group was reduced on its own, then across lanes.
  Value offset(int64_t slot = 0);
  /// The group's own offset G of a slot (rule.ownGroup): its max, scaled,
  /// across lanes, not joined with m; offset is then max(m, G).
  Value groupOffset(int64_t slot = 0);
  /// This lane's share of groupOffset (its own elements' max, scaled),
  /// before the lanes combine it: groupOffset is its max over the lanes.
  Value laneOffset(int64_t slot = 0);
  /// r = s(m - m'); null at a known offset from the identity.
  Value rescale(int64_t slot = 0);
  /// sum r (sum itself when there is no rescale).
  Value rescaled(Value sum, int64_t slot = 0);
  /// t(x_i, m') of element i, in the rule's units.
  Value term(int64_t i);
  /// Every term, in element order.
  ArrayRef<Value> terms();
  /// The sum of the terms of a one-state fold: a tree, or for Group::Lanes
  /// the sum of the vector's lanes.
  Value termSum();
  /// The new sum of a one-state fold: l r + termSum.
  Value newSum(Value l);
  /// The same with the compensation c of l: (l r, c r) + termSum, by Kahan.
  std::pair<Value, Value> newSumCompensated(Value l, Value c);
  /// sum + t(x_i, m'): a term added to a sum of its slot.
  Value addTerm(Value sum, int64_t i);
  /// MinusInf::KeepState (a fold of one element): `old` where the element
  /// is -inf, else `updated`; `updated` for any other rule.
  Value unlessMinusInf(Value old, Value updated);

private:
  StateFold(StateMath &sm, FoldRule rule, ArrayRef<Value> xs);
  int64_t slotOf(int64_t i) const { return rule.slotOf ? rule.slotOf(i) : 0; }
  /// o(x_i), and the pair of x_i for rule.pairs.
  Value elementOffset(int64_t i);
  /// max of `running` and `incoming` in the rule's operand order.
  Value join(Value running, Value incoming);

  StateMath &sm;
  /// The arithmetic of the elements: sm, or rule.lanes.
  StateMath &em;
  FoldRule rule;
  SmallVector<Value> xs;
  /// Per slot: incoming offset, the group's offset (Chain: already joined
  /// with m, unless log2Scale), new offset, rescale, its lane 0 (Lanes),
  /// and -m' (log2Scale).
  SmallVector<Value> m, group, mNew, r, r0, negM;
  /// Per slot, rule.ownGroup: the group's offset across lanes.
  SmallVector<Value> ownOffset, ownLaneOffset;
  /// Per element: the exponent pair, the term.
  SmallVector<Value> ks, as, ts;
  Value log2e, termTotal, minusInfMask;
  bool known = false, termsBegun = false;
};

/// Combines `values` pairwise, level by level (an odd one out moves up
/// unchanged): no chain is longer than log2(n) combinations, so sums keep
/// short rounding chains and the dependent operations in flight stay few.
Value treeReduce(ArrayRef<Value> values,
                 llvm::function_ref<Value(Value, Value)> combine);

} // namespace mlir::softmax

#endif // SOFTMAX_MLIR_DIALECT_SOFTMAX_UTILS_STATEMATH_H
