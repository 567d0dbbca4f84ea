//===- StateFold.cpp - one fold of elements into softmax states ----------===//
//
// The fold of StateMath.h: element offsets and their maxima at
// construction, everything else when first asked for, in the order the
// caller asks (StateMath.cpp says why the order is fixed).
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Dialect/Softmax/Utils/StateMath.h"

using namespace mlir;
using namespace mlir::softmax;

StateFold::StateFold(StateMath &sm, FoldRule rule, ArrayRef<Value> xs)
    : sm(sm), em(rule.lanes ? *rule.lanes : sm), rule(std::move(rule)), xs(xs) {
  ks.resize(xs.size());
  as.resize(xs.size());
  ts.resize(xs.size());
}

StateFold::StateFold(StateMath &sm, FoldRule rule, ArrayRef<Value> m,
                     ArrayRef<Value> xs)
    : StateFold(sm, std::move(rule), xs) {
  this->m.assign(m.begin(), m.end());
  size_t slots = m.size();
  group.resize(slots);
  mNew.resize(slots);
  r.resize(slots);
  r0.resize(slots);
  negM.resize(slots);
  switch (this->rule.group) {
  case FoldRule::Group::Chain: {
    // Folded log2 units take the group's max on their own, from -inf.
    if (this->rule.log2Scale || this->rule.ownGroup)
      group.assign(slots, sm.negInf());
    else
      group.assign(m.begin(), m.end());
    for (int64_t i = 0, e = xs.size(); i < e; ++i) {
      int64_t s = slotOf(i);
      group[s] = join(group[s], elementOffset(i));
    }
    break;
  }
  case FoldRule::Group::Tree: {
    SmallVector<Value> offsets;
    for (int64_t i = 0, e = xs.size(); i < e; ++i)
      offsets.push_back(elementOffset(i));
    group[0] = treeReduce(offsets,
                          [&](Value x, Value y) { return sm.offsetMax(x, y); });
    break;
  }
  case FoldRule::Group::Lanes:
    group[0] = em.reduceOffsetMax(xs.front());
    break;
  }
}

StateFold StateFold::atOffset(StateMath &sm, FoldRule rule, Value m, Value mNew,
                              ArrayRef<Value> xs) {
  return atOffset(sm, std::move(rule), ArrayRef<Value>{m},
                  ArrayRef<Value>{mNew}, xs);
}

StateFold StateFold::atOffset(StateMath &sm, FoldRule rule, ArrayRef<Value> m,
                              ArrayRef<Value> mNew, ArrayRef<Value> xs) {
  assert(m.size() == mNew.size() && "one incoming offset per slot");
  StateFold f(sm, std::move(rule), xs);
  f.known = true;
  f.m.assign(m.begin(), m.end());
  f.mNew.assign(mNew.begin(), mNew.end());
  f.r.resize(m.size());
  f.r0.resize(m.size());
  f.negM.resize(m.size());
  if (f.rule.kind == StateKind::Exponent && f.rule.pairs)
    for (int64_t i = 0, e = xs.size(); i < e; ++i)
      f.elementOffset(i);
  return f;
}

Value StateFold::join(Value running, Value incoming) {
  return rule.order == MaxOrder::StateFirst ? sm.offsetMax(running, incoming)
                                            : sm.offsetMax(incoming, running);
}

Value StateFold::elementOffset(int64_t i) {
  Value x = xs[i];
  if (rule.kind == StateKind::Max || !rule.pairs)
    return em.elementOffset(rule.kind, x);
  auto [k, a] = em.expPair(x);
  if (rule.minusInf == MinusInf::IdentityPair) {
    Value minusInf = em.eq(x, em.negInf());
    k = em.select(minusInf, em.identityOffset(), k);
    a = em.select(minusInf, em.identitySum(), a);
  }
  ks[i] = k;
  as[i] = a;
  return k;
}

Value StateFold::offset(int64_t slot) {
  if (mNew[slot])
    return mNew[slot];
  if (rule.ownGroup)
    return mNew[slot] = join(m[slot], groupOffset(slot));
  Value v = group[slot];
  if (rule.group != FoldRule::Group::Chain || rule.log2Scale) {
    if (rule.log2Scale)
      v = sm.mul(v, rule.log2Scale);
    v = join(m[slot], v);
  }
  if (rule.acrossLanes)
    v = rule.acrossLanes(v);
  return mNew[slot] = v;
}

Value StateFold::groupOffset(int64_t slot) {
  assert(rule.ownGroup && "groupOffset needs FoldRule::ownGroup");
  if (ownOffset.empty())
    ownOffset.resize(group.size());
  if (ownOffset[slot])
    return ownOffset[slot];
  Value v = laneOffset(slot);
  if (rule.acrossLanes)
    v = rule.acrossLanes(v);
  return ownOffset[slot] = v;
}

Value StateFold::laneOffset(int64_t slot) {
  assert(rule.ownGroup && "laneOffset needs FoldRule::ownGroup");
  if (ownLaneOffset.empty())
    ownLaneOffset.resize(group.size());
  if (ownLaneOffset[slot])
    return ownLaneOffset[slot];
  Value v = group[slot];
  if (rule.log2Scale)
    v = sm.mul(v, rule.log2Scale);
  return ownLaneOffset[slot] = v;
}

Value StateFold::rescale(int64_t slot) {
  if (r[slot] || !m[slot])
    return r[slot];
  Value target = offset(slot);
  if (rule.group == FoldRule::Group::Lanes) {
    Value diff = sm.sub(m[slot], target);
    r[slot] = em.scale(rule.kind, em.splat(diff), rule.units);
  } else {
    r[slot] = sm.rescale(rule.kind, m[slot], target, rule.units);
  }
  return r[slot];
}

Value StateFold::rescaled(Value sum, int64_t slot) {
  Value factor = rescale(slot);
  if (!factor)
    return sum;
  if (rule.group == FoldRule::Group::Lanes) {
    if (isa<VectorType>(sum.getType()))
      return em.mul(sum, factor);
    if (!r0[slot])
      r0[slot] = em.lane(factor, 0);
    factor = r0[slot];
  }
  return sm.mul(sum, factor);
}

Value StateFold::term(int64_t i) {
  if (ts[i])
    return ts[i];
  if (!termsBegun) {
    termsBegun = true;
    if (rule.kind == StateKind::Max && rule.units == ExpUnits::Log2Scaled)
      log2e = em.log2e();
    if (rule.log2Scale)
      for (int64_t s = 0, e = negM.size(); s < e; ++s) {
        Value zero = sm.cst(0.0);
        negM[s] = sm.sub(zero, offset(s));
      }
  }
  int64_t s = slotOf(i);
  Value x = xs[i];
  Value target = offset(s);
  if (rule.group == FoldRule::Group::Lanes)
    target = em.splat(target);
  Value t;
  if (rule.kind == StateKind::Exponent) {
    t = rule.pairs ? em.pairTerm(ks[i], as[i], target)
                   : em.term(rule.kind, x, target);
  } else if (rule.units == ExpUnits::Natural) {
    t = em.term(rule.kind, x, target);
  } else if (rule.units == ExpUnits::Log2Scaled) {
    t = em.fastExp2(em.mul(em.sub(x, target), log2e));
  } else {
    t = em.fastExp2(rule.log2Scale ? em.fma(x, rule.log2Scale, negM[s])
                                   : em.sub(x, target));
  }
  return ts[i] = t;
}

ArrayRef<Value> StateFold::terms() {
  for (int64_t i = 0, e = xs.size(); i < e; ++i)
    term(i);
  return ts;
}

Value StateFold::termSum() {
  if (termTotal)
    return termTotal;
  if (rule.group == FoldRule::Group::Lanes)
    return termTotal = em.reduceAdd(term(0));
  return termTotal = treeReduce(terms(),
                                [&](Value x, Value y) { return sm.add(x, y); });
}

Value StateFold::newSum(Value l) {
  Value rescaledSum = rescaled(l);
  return sm.add(rescaledSum, termSum());
}

std::pair<Value, Value> StateFold::newSumCompensated(Value l, Value c) {
  Value rescaledSum = rescaled(l);
  Value rescaledComp = rescaled(c);
  return sm.kahanAdd(rescaledSum, rescaledComp, termSum());
}

Value StateFold::addTerm(Value sum, int64_t i) { return sm.add(sum, term(i)); }

Value StateFold::unlessMinusInf(Value old, Value updated) {
  if (rule.kind != StateKind::Exponent || rule.minusInf != MinusInf::KeepState)
    return updated;
  if (!minusInfMask)
    minusInfMask = sm.eq(xs.front(), sm.negInf());
  return sm.select(minusInfMask, old, updated);
}
