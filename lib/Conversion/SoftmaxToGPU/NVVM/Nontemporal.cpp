//===- Nontemporal.cpp - the softmax-nvvm-nontemporal pass ----------------===//
//
// Nontemporal llvm.load / llvm.store in NVVM kernels become the same
// accesses with PTX's .cs operator. Upstream has the attribute, and AMDGPU
// honours it, but LLVM 22's NVPTX backend drops !nontemporal (llc -mcpu=sm_90
// prints a plain ld.global.v4.b32 for a nontemporal <4 x i32> load), so
// the hint is spelled here as inline PTX.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "softmax-mlir/Conversion/Passes.h"
#include "softmax-mlir/Conversion/SoftmaxToGPU/GPUTargetHooks.h"

#include "llvm/ADT/StringExtras.h"

namespace mlir::softmax {
#define GEN_PASS_DEF_SOFTMAXNVVMNONTEMPORAL
#include "softmax-mlir/Conversion/Passes.h.inc"
} // namespace mlir::softmax

using namespace mlir;
using namespace mlir::softmax;

namespace {
/// The 32-bit lanes of an access of `type` that .cs can be given to, or a
/// reason why not.
FailureOr<int64_t> lanesOf(Type type, Value addr, std::string &why) {
  auto ptr = cast<LLVM::LLVMPointerType>(addr.getType());
  if (ptr.getAddressSpace() != 0 && ptr.getAddressSpace() != 1) {
    why = "address space " + std::to_string(ptr.getAddressSpace()) +
          " (.cs is for global memory)";
    return failure();
  }
  unsigned bits = 0;
  if (auto v = dyn_cast<VectorType>(type)) {
    if (v.isScalable() || !v.getElementType().isIntOrFloat())
      bits = 0;
    else
      bits = v.getNumElements() * v.getElementType().getIntOrFloatBitWidth();
  } else if (type.isIntOrFloat()) {
    bits = type.getIntOrFloatBitWidth();
  }
  if (bits != 32 && bits != 64 && bits != 128) {
    why = (bits ? "its " + std::to_string(bits) + " bits" : "its type") +
          " (PTX's .cs accesses here are 32, 64 or 128 bits)";
    return failure();
  }
  return static_cast<int64_t>(bits / 32);
}

/// The lanes of a nontemporal load or store (`what`) of `type`, or, where
/// .cs cannot be given, a warning and the attribute dropped (failure).
template <typename OpT>
FailureOr<int64_t> lanesOrKeep(OpT op, Type type, StringRef what,
                               PatternRewriter &rewriter) {
  std::string why;
  FailureOr<int64_t> lanes = lanesOf(type, op.getAddr(), why);
  if (op.getVolatile_() || op.getOrdering() != LLVM::AtomicOrdering::not_atomic)
    why = ("a volatile or atomic " + what).str();
  if (why.empty())
    return lanes;
  op->emitWarning() << "nontemporal access of " << type
                    << " keeps LLVM's default caching: " << why;
  rewriter.modifyOpInPlace(op, [&] { op.setNontemporal(false); });
  return failure();
}

/// The instruction, e.g. "ld.global.cs.v4.u32" (global address space) or
/// "st.cs.u32" (generic).
std::string access(StringRef kind, unsigned addressSpace, int64_t lanes) {
  std::string s = kind.str() + (addressSpace == 1 ? ".global" : "") + ".cs";
  if (lanes > 1)
    s += ".v" + std::to_string(lanes);
  return s + ".u32";
}
/// The operands of `lanes` lanes from `$first`: "{$0, $1, $2, $3}" or "$1".
std::string laneList(int64_t first, int64_t lanes) {
  SmallVector<std::string> names;
  for (int64_t i = 0; i < lanes; ++i)
    names.push_back("$" + std::to_string(first + i));
  std::string list = llvm::join(names, ", ");
  return lanes > 1 ? "{" + list + "}" : list;
}

Type laneType(OpBuilder &b, int64_t lanes) {
  return lanes > 1 ? Type(VectorType::get({lanes}, b.getI32Type()))
                   : Type(b.getI32Type());
}

struct NontemporalLoad : OpRewritePattern<LLVM::LoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LLVM::LoadOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getNontemporal())
      return failure();
    Type type = op.getType();
    FailureOr<int64_t> lanes = lanesOrKeep(op, type, "load", rewriter);
    if (failed(lanes))
      return success(); // the attribute is gone: the op changed
    Location loc = op.getLoc();
    auto ptr = cast<LLVM::LLVMPointerType>(op.getAddr().getType());
    SmallVector<Type> i32s(*lanes, rewriter.getI32Type());
    Type result = *lanes > 1
                      ? Type(LLVM::LLVMStructType::getLiteral(getContext(), i32s))
                      : Type(rewriter.getI32Type());
    std::string constraints;
    for (int64_t i = 0; i < *lanes; ++i)
      constraints += "=r,";
    constraints += "l";
    // Has side effects: without them LLVM may move the load across a store
    // to the same address (an in-place softmax reads x where it writes y).
    Value asmResult =
        LLVM::InlineAsmOp::create(
            rewriter, loc, result, ValueRange{op.getAddr()},
            access("ld", ptr.getAddressSpace(), *lanes) + " " +
                laneList(0, *lanes) + ", [$" + std::to_string(*lanes) + "];",
            constraints, /*has_side_effects=*/true, /*is_align_stack=*/false,
            LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr())
            .getResult(0);
    Value bits = asmResult;
    if (*lanes > 1) {
      bits = LLVM::PoisonOp::create(rewriter, loc, laneType(rewriter, *lanes));
      for (int64_t i = 0; i < *lanes; ++i) {
        Value lane = LLVM::ExtractValueOp::create(rewriter, loc, asmResult, i);
        Value at = LLVM::ConstantOp::create(rewriter, loc,
                                            rewriter.getI32IntegerAttr(i));
        bits = LLVM::InsertElementOp::create(rewriter, loc, bits, lane, at);
      }
    }
    if (bits.getType() != type)
      bits = LLVM::BitcastOp::create(rewriter, loc, type, bits);
    rewriter.replaceOp(op, bits);
    return success();
  }
};

struct NontemporalStore : OpRewritePattern<LLVM::StoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LLVM::StoreOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getNontemporal())
      return failure();
    Type type = op.getValue().getType();
    FailureOr<int64_t> lanes = lanesOrKeep(op, type, "store", rewriter);
    if (failed(lanes))
      return success(); // the attribute is gone: the op changed
    Location loc = op.getLoc();
    auto ptr = cast<LLVM::LLVMPointerType>(op.getAddr().getType());
    Value bits = op.getValue();
    if (type != laneType(rewriter, *lanes))
      bits = LLVM::BitcastOp::create(rewriter, loc, laneType(rewriter, *lanes),
                                     bits);
    SmallVector<Value> operands{op.getAddr()};
    if (*lanes > 1) {
      for (int64_t i = 0; i < *lanes; ++i) {
        Value at = LLVM::ConstantOp::create(rewriter, loc,
                                            rewriter.getI32IntegerAttr(i));
        operands.push_back(
            LLVM::ExtractElementOp::create(rewriter, loc, bits, at));
      }
    } else {
      operands.push_back(bits);
    }
    std::string constraints = "l";
    for (int64_t i = 0; i < *lanes; ++i)
      constraints += ",r";
    constraints += ",~{memory}";
    LLVM::InlineAsmOp::create(
        rewriter, loc, TypeRange{}, operands,
        access("st", ptr.getAddressSpace(), *lanes) + " [$0], " +
            laneList(1, *lanes) + ";",
        constraints, /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

struct SoftmaxNVVMNontemporalPass
    : public softmax::impl::SoftmaxNVVMNontemporalBase<
          SoftmaxNVVMNontemporalPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateNVVMNontemporalPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void mlir::softmax::populateNVVMNontemporalPatterns(
    RewritePatternSet &patterns) {
  patterns.add<NontemporalLoad, NontemporalStore>(patterns.getContext());
}
