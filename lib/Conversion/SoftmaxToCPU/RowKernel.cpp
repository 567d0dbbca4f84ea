//===- RowKernel.cpp - the vector loops over one softmax row --------------===//
//
// Every pass over a row has the same shape: a main loop over groups of
// `unroll` full vectors, each folded into its own accumulator so that the
// folds do not wait on each other, then a tail of masked vectors. Sums are
// blocked: a block of `block` iterations sums from zero and is then added,
// compensated, to the row's sum (docs/Passes/softmax-map-to-cpu.md).
//
//===----------------------------------------------------------------------===//

#include "RowKernel.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include <cmath>

using namespace mlir;
using namespace mlir::softmax;
using namespace mlir::softmax::detail;

//===----------------------------------------------------------------------===//
// RowKernel
//===----------------------------------------------------------------------===//

RowKernel::RowKernel(OpBuilder &b, Location loc, const Request &req,
                     Algorithm alg, const CPUStrategy &s, Value x, Value y,
                     const Lanes &lanes, Value n, Value nMain)
    : IndexArith(b, loc), req(req), alg(alg), s(s), x(x), y(y), lanes(lanes),
      n(n), nMain(nMain), vm(b, loc, s.vectorWidth),
      sm(b, loc, b.getF32Type()) {
  inElt = cast<MemRefType>(x.getType()).getElementType();
  outElt = cast<MemRefType>(y.getType()).getElementType();
}

SmallVector<Value> RowKernel::indices(Value i) {
  if (lanes.across)
    return {lanes.outer, i, lanes.col};
  return {lanes.row, i};
}

Value RowKernel::finishMax(Value v) {
  return lanes.across ? v : vm.reduceOffsetMax(v);
}
Value RowKernel::finishAdd(Value v) {
  return lanes.across ? v : vm.reduceAdd(v);
}
Value RowKernel::lanesOf(Value state) {
  return lanes.across ? state : vm.splat(state);
}

Value RowKernel::maskAt(Value i) {
  if (lanes.across)
    return Value();
  Value left = sub(n, i);
  return vector::CreateMaskOp::create(
      b, loc, VectorType::get({s.vectorWidth}, b.getI1Type()),
      ValueRange{left});
}

Value RowKernel::load(Value memref, Value i, Value mask, double pad) {
  Type elt = cast<MemRefType>(memref.getType()).getElementType();
  auto type = VectorType::get({s.vectorWidth}, elt);
  if (lanes.across)
    mask = lanes.colMask;
  Value v;
  if (!mask) {
    v = vector::LoadOp::create(b, loc, type, memref, indices(i));
  } else {
    Value passThru = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(type, b.getFloatAttr(elt, pad)));
    v = vector::MaskedLoadOp::create(b, loc, type, memref, indices(i), mask,
                                     passThru);
  }
  return vm.toAcc(v);
}

void RowKernel::store(Value i, Value v, Value mask) {
  Value out = vm.fromAcc(v, outElt);
  if (lanes.across)
    mask = lanes.colMask;
  if (!mask)
    vector::StoreOp::create(b, loc, out, y, indices(i));
  else
    vector::MaskedStoreOp::create(b, loc, y, indices(i), mask, out);
}

SmallVector<Value> RowKernel::foldRow(ValueRange rowInit, const Fold &f) {
  int64_t groupElems = posStep() * s.unroll;
  Value zero = idx(0);
  Value group = idx(groupElems);
  Value vw = idx(posStep());

  // The inner loop over groups [lo, hi), from fresh accumulators.
  auto foldGroups = [&](Value lo, Value hi) -> SmallVector<Value> {
    SmallVector<Value> init = f.prologue ? f.prologue(lo, hi) : f.blockInit();
    const auto &fold = f.mainFold ? f.mainFold : f.fold;
    auto loop = scf::ForOp::create(
        b, loc, lo, hi, group, init,
        [&](OpBuilder &, Location, Value i, ValueRange acc) {
          SmallVector<Value> vs;
          for (int64_t u = 0; u < s.unroll; ++u) {
            Value at = add(i, idx(u * posStep()));
            vs.push_back(load(x, at, Value(), f.pad));
          }
          scf::YieldOp::create(b, loc, fold(acc, vs, i, Value()));
        });
    return f.close(loop.getResults());
  };

  SmallVector<Value> state(rowInit.begin(), rowInit.end());
  if (f.blocked) {
    Value blockElems = idx(groupElems * s.block);
    auto blocks = scf::ForOp::create(
        b, loc, zero, nMain, blockElems, state,
        [&](OpBuilder &, Location, Value lo, ValueRange rowState) {
          Value hi = minI(add(lo, blockElems), nMain);
          scf::YieldOp::create(b, loc, f.merge(rowState, foldGroups(lo, hi)));
        });
    state.assign(blocks.getResults().begin(), blocks.getResults().end());
  } else {
    state = f.merge(state, foldGroups(zero, nMain));
  }

  // The tail: fewer than `unroll` vectors, the last one partial; each is a
  // block of its own.
  auto tail = scf::ForOp::create(
      b, loc, nMain, n, vw, state,
      [&](OpBuilder &, Location, Value i, ValueRange rowState) {
        Value mask = maskAt(i);
        Value v = load(x, i, mask, f.pad);
        SmallVector<Value> acc = f.fold(f.blockInit(), {v}, i, mask);
        scf::YieldOp::create(b, loc, f.merge(rowState, f.close(acc)));
      });
  return SmallVector<Value>(tail.getResults());
}

void RowKernel::writeRow(function_ref<Value(Value, Value)> body,
                         bool readsOutput) {
  Value vw = idx(posStep());
  auto one = [&](Value i, Value mask) {
    Value in = readsOutput ? Value() : load(x, i, mask, 0.0);
    Value old = readsOutput ? load(y, i, mask, 0.0) : Value();
    store(i, body(in, old), mask);
  };
  scf::ForOp::create(b, loc, idx(0), nMain, idx(posStep() * s.unroll),
                     ValueRange{},
                     [&](OpBuilder &, Location, Value i, ValueRange) {
                       for (int64_t u = 0; u < s.unroll; ++u)
                         one(add(i, idx(u * posStep())), Value());
                       scf::YieldOp::create(b, loc);
                     });
  scf::ForOp::create(b, loc, nMain, n, vw, ValueRange{},
                     [&](OpBuilder &, Location, Value i, ValueRange) {
                       one(i, maskAt(i));
                       scf::YieldOp::create(b, loc);
                     });
}


Value RowKernel::rowMax() {
  // three_pass's max pass: offsets alone, each vector joining its
  // accumulator first (the operand whose NaN VectorMath's max drops).
  Fold f;
  f.pad = -INFINITY;
  f.blocked = false;
  f.blockInit = [&] {
    return SmallVector<Value>(s.unroll, vm.identityOffset());
  };
  f.fold = [&](ValueRange acc, ArrayRef<Value> vs, Value, Value) {
    SmallVector<Value> out(acc.begin(), acc.end());
    for (auto [u, v] : llvm::enumerate(vs))
      out[u] = vm.offsetMax(v, out[u]);
    return out;
  };
  f.close = [&](ValueRange acc) {
    return SmallVector<Value>{
        treeReduce(SmallVector<Value>(acc),
                   [&](Value a, Value c) { return vm.offsetMax(a, c); })};
  };
  f.merge = [&](ValueRange rowState, ValueRange block) {
    return SmallVector<Value>{vm.offsetMax(block[0], rowState[0])};
  };
  return finishMax(foldRow(ValueRange{vm.identityOffset()}, f)[0]);
}

Value RowKernel::rowSumExp(Value m, bool storeExps) {
  Value mv = lanesOf(m);
  Fold f;
  f.pad = -INFINITY;
  f.blocked = true;
  f.blockInit = [&] { return SmallVector<Value>(s.unroll, vm.identitySum()); };
  f.fold = [&](ValueRange acc, ArrayRef<Value> vs, Value i, Value mask) {
    // The terms against the row's max, from the max pass.
    StateFold fold =
        StateFold::atOffset(vm, FoldRule(StateKind::Max), Value(), mv, vs);
    SmallVector<Value> out(acc.begin(), acc.end());
    for (int64_t u = 0, e = vs.size(); u < e; ++u) {
      Value t = fold.term(u);
      if (storeExps)
        store(add(i, idx(u * posStep())), t, mask);
      out[u] = fold.addTerm(out[u], u);
    }
    return out;
  };
  f.close = [&](ValueRange acc) {
    return SmallVector<Value>{treeReduce(SmallVector<Value>(acc), [&](Value a,
                                                                 Value c) {
      return vm.add(a, c);
    })};
  };
  f.merge = [&](ValueRange rowState, ValueRange block) {
    auto [sum, comp] = vm.kahanAdd(rowState[0], rowState[1], block[0]);
    return SmallVector<Value>{sum, comp};
  };
  SmallVector<Value> st =
      foldRow(ValueRange{vm.identitySum(), vm.identitySum()}, f);
  return finishAdd(vm.kahanTotal(st[0], st[1]));
}

Value RowKernel::maxOfGroups(Value lo, Value hi) {
  SmallVector<Value> init(s.unroll, vm.identityOffset());
  auto loop = scf::ForOp::create(
      b, loc, lo, hi, idx(posStep() * s.unroll), init,
      [&](OpBuilder &, Location, Value i, ValueRange acc) {
        SmallVector<Value> out;
        for (int64_t u = 0; u < s.unroll; ++u) {
          Value at = add(i, idx(u * posStep()));
          out.push_back(vm.offsetMax(load(x, at, Value(), -INFINITY), acc[u]));
        }
        scf::YieldOp::create(b, loc, out);
      });
  return treeReduce(SmallVector<Value>(loop.getResults()),
                    [&](Value a, Value c) { return vm.offsetMax(a, c); });
}

RowKernel::Fold RowKernel::runningFold(StateKind kind) {
  // online (max states) and exp_pair (exponent states) share the fold: per
  // lane, an offset shared by `unroll` sums, so a group costs one rescale,
  // not one per vector. online's offset is the max, its rescale an exp;
  // exp_pair's offset is the largest exponent round(x log2 e), its rescale
  // an exact power of two (no max pass, no exp spent on rescaling), and
  // each term exp(x - K ln 2) (at most ~0.35, or ~11 where x log2 e rounds
  // coarsely near |x| = 3e8; -inf gives exactly 0).
  FoldRule rule(kind);
  rule.order = MaxOrder::IncomingFirst;
  Fold f;
  f.pad = -INFINITY;
  f.blocked = true;
  f.blockInit = [this] {
    SmallVector<Value> init = {vm.identityOffset()};
    init.append(s.unroll, vm.identitySum());
    return init;
  };
  f.fold = [=](ValueRange acc, ArrayRef<Value> vs, Value, Value) {
    StateFold fold(vm, rule, {acc[0]}, vs);
    SmallVector<Value> out = {fold.offset()};
    for (int64_t u = 0; u < s.unroll; ++u) {
      Value l = fold.rescaled(acc[1 + u]);
      if (u < static_cast<int64_t>(vs.size()))
        l = fold.addTerm(l, u);
      out.push_back(l);
    }
    return out;
  };
  f.close = [this](ValueRange acc) {
    SmallVector<Value> sums(acc.drop_front());
    return SmallVector<Value>{acc[0], treeReduce(sums, [&](Value a, Value c) {
                                return vm.add(a, c);
                              })};
  };
  f.merge = [=](ValueRange rowState, ValueRange block) {
    auto [m, sum, comp] =
        vm.mergeCompensated(kind, rowState[0], rowState[1], rowState[2],
                            block[0], block[1], MaxOrder::IncomingFirst);
    return SmallVector<Value>{m, sum, comp};
  };
  return f;
}

std::pair<Value, Value> RowKernel::finishRunning(StateKind kind,
                                                 ArrayRef<Value> st) {
  Value sum = vm.kahanTotal(st[1], st[2]);
  if (lanes.across)
    return {st[0], sum};
  return vm.mergeLanes(kind, st[0], sum);
}

std::pair<Value, Value> RowKernel::rowRunning(StateKind kind) {
  return finishRunning(kind,
                       foldRow(ValueRange{vm.identityOffset(), vm.identitySum(),
                                          vm.identitySum()},
                               runningFold(kind)));
}

std::pair<Value, Value> RowKernel::rowRunningVisiting(
    function_ref<void(Value v, Value i, Value mask)> visit) {
  Fold f = runningFold(StateKind::Max);
  auto fold = f.fold;
  f.fold = [&, fold](ValueRange acc, ArrayRef<Value> vs, Value i,
                     Value mask) {
    SmallVector<Value> out = fold(acc, vs, i, mask);
    for (auto [u, v] : llvm::enumerate(vs))
      visit(v, add(i, idx(u * posStep())), mask);
    return out;
  };
  return finishRunning(StateKind::Max,
                       foldRow(ValueRange{vm.identityOffset(), vm.identitySum(),
                                          vm.identitySum()},
                               f));
}

std::pair<Value, Value> RowKernel::rowTiledThreePass() {
  // The online state, but each block's max is found first, by a max pass
  // over the block that brings it into L1: the sums then need no
  // rescaling inside a block, and the row is read from memory once.
  Fold f = runningFold(StateKind::Max);
  f.prologue = [&](Value lo, Value hi) {
    SmallVector<Value> init = {maxOfGroups(lo, hi)};
    init.append(s.unroll, vm.identitySum());
    return init;
  };
  f.mainFold = [&](ValueRange acc, ArrayRef<Value> vs, Value, Value) {
    StateFold fold =
        StateFold::atOffset(vm, FoldRule(StateKind::Max), Value(), acc[0], vs);
    SmallVector<Value> out = {acc[0]};
    for (int64_t u = 0, e = vs.size(); u < e; ++u)
      out.push_back(fold.addTerm(acc[1 + u], u));
    return out;
  };
  return finishRunning(StateKind::Max,
                       foldRow(ValueRange{vm.identityOffset(), vm.identitySum(),
                                          vm.identitySum()},
                               f));
}

void RowKernel::build() {
  bool exponent = alg == Algorithm::ExpPair;
  bool reload = alg == Algorithm::ThreePass &&
                s.threePass == ThreePassVariant::Reload &&
                req.normalize == NormalizeKind::Softmax;
  Value m, l;
  if (alg == Algorithm::ThreePass && s.threePass == ThreePassVariant::Tiled) {
    std::tie(m, l) = rowTiledThreePass();
  } else if (alg == Algorithm::ThreePass) {
    m = rowMax();
    l = rowSumExp(m, reload);
  } else {
    std::tie(m, l) = rowRunning(alg == Algorithm::ExpPair ? StateKind::Exponent
                                                          : StateKind::Max);
  }
  StateKind state = exponent ? StateKind::Exponent : StateKind::Max;
  // Scalar formulas along a row, lane-wise ones across rows.
  StateMath &st = lanes.across ? static_cast<StateMath &>(vm) : sm;

  if (!req.normalize) {
    Value lse = st.fromAcc(st.lse(state, req.masked, m, l), outElt);
    if (lanes.across)
      vector::MaskedStoreOp::create(b, loc, y,
                                    ValueRange{lanes.outer, lanes.col},
                                    lanes.colMask, lse);
    else
      memref::StoreOp::create(b, loc, lse, y, ValueRange{lanes.row});
    return;
  }

  bool probability = *req.normalize == NormalizeKind::Softmax;
  Value mv = lanesOf(m);
  // The output pass; `select` masks what it computes per lane (across
  // rows, where fully masked and ordinary reductions share a vector). The
  // row's 1 / l or log l is taken once, outside the loop.
  auto normalize = [&](function_ref<Value(Value)> select) {
    NormalizeKind kind = *req.normalize;
    Value rowValue = lanesOf(probability ? st.reciprocal(l) : st.log(l));
    if (reload) {
      writeRow([&](Value, Value e) { return select(vm.mul(e, rowValue)); },
               /*readsOutput=*/true);
      return;
    }
    writeRow(
        [&](Value v, Value) {
          return select(vm.normalized(kind, state, v, mv, Value(), rowValue,
                                      /*pairs=*/false));
        },
        /*readsOutput=*/false);
  };

  if (lanes.across) {
    Value isMasked = vm.emptyRow(l);
    Value fill = vm.maskedValue(req.masked, probability);
    normalize([&](Value v) { return vm.select(isMasked, fill, v); });
    return;
  }
  // A fully masked row (l = 0) is filled with its masked value; the other
  // rows are normalized. The branch is per row, not per element.
  scf::IfOp::create(
      b, loc, sm.emptyRow(l),
      [&](OpBuilder &, Location) {
        Value fill = vm.splat(sm.maskedValue(req.masked, probability));
        writeRow([&](Value, Value) { return fill; }, /*readsOutput=*/false);
        scf::YieldOp::create(b, loc);
      },
      [&](OpBuilder &, Location) {
        normalize([](Value v) { return v; });
        scf::YieldOp::create(b, loc);
      });
}
