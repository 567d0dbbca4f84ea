//===- WarpgroupMma.cpp - sm_90a warpgroup products, shared ---------------===//

#include "WarpgroupMma.h"
#include "TensorMapTiles.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::softmax;
using namespace mlir::softmax::detail;

Value softmax::detail::swizzledOperandDescriptor(OpBuilder &b, Location loc,
                                                 Value address,
                                                 int64_t leadingBytes) {
  Type i64 = b.getI64Type();
  auto c = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i64, v).getResult();
  };
  Value start = arith::ShRUIOp::create(
      b, loc, arith::AndIOp::create(b, loc, address, c(0x3FFFF)), c(4));
  int64_t fields = (int64_t(leadingBytes >> 4) << 16) |
                   (int64_t(1024 >> 4) << 32) | (int64_t(1) << 62);
  return arith::OrIOp::create(b, loc, start, c(fields));
}

Type softmax::detail::warpgroupAccumulatorType(OpBuilder &b, int64_t n) {
  return LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(n / 2, b.getF32Type()));
}

Value softmax::detail::sharedAddressI64(OpBuilder &b, Location loc,
                                        Value buffer, Value bytes) {
  return LLVM::PtrToIntOp::create(b, loc, b.getI64Type(),
                                  sharedAddress(b, loc, buffer, bytes));
}

Value softmax::detail::warpgroupMmaColumns(OpBuilder &b, Location loc,
                                           Value acc, Value aAt,
                                           int64_t aBoxBytes, Value bAt,
                                           int64_t bBoxBytes, int64_t columns,
                                           int64_t n, Type elt, bool aByInner,
                                           bool bByInner) {
  NVVM::WGMMATypes type =
      elt.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
  int64_t stepBytes = 16 * elt.getIntOrFloatBitWidth() / 8;
  // 16 inner rows of 128 bytes: two swizzle atoms.
  constexpr int64_t kInnerStepBytes = 16 * 128;
  auto at = [&](Value base, int64_t k, int64_t boxBytes, bool byInner) {
    int64_t bytes = byInner ? k * kInnerStepBytes
                            : (k / 4) * boxBytes + (k % 4) * stepBytes;
    return swizzledOperandDescriptor(
        b, loc,
        arith::AddIOp::create(
            b, loc, base,
            arith::ConstantIntOp::create(b, loc, b.getI64Type(), bytes)),
        byInner ? boxBytes : 16);
  };
  assert((!(aByInner || bByInner) || columns <= 64) &&
         "an operand by inner rows is one box deep");
  for (int64_t k = 0; k < columns / 16; ++k)
    acc = NVVM::WgmmaMmaAsyncOp::create(
        b, loc, acc.getType(), acc, at(aAt, k, aBoxBytes, aByInner),
        at(bAt, k, bBoxBytes, bByInner),
        NVVM::MMAShapeAttr::get(b.getContext(), 64, n, 16), type, type,
        NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
        NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
        // K-major: A row, B col; by inner rows the transposed forms.
        aByInner ? NVVM::MMALayout::col : NVVM::MMALayout::row,
        bByInner ? NVVM::MMALayout::row : NVVM::MMALayout::col,
        /*satfinite=*/nullptr);
  return acc;
}

SmallVector<Value> softmax::detail::warpgroupAccumulatorElements(OpBuilder &b,
                                                                 Location loc,
                                                                 Value acc) {
  SmallVector<Value> xs;
  int64_t count = cast<LLVM::LLVMStructType>(acc.getType()).getBody().size();
  for (int64_t i = 0; i < count; ++i)
    xs.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i));
  return xs;
}

Value softmax::detail::settleWarpgroupAccumulators(OpBuilder &b, Location loc,
                                                   Value acc) {
  auto type = cast<LLVM::LLVMStructType>(acc.getType());
  int64_t count = type.getBody().size();
  SmallVector<Value> xs = warpgroupAccumulatorElements(b, loc, acc);
  std::string constraints;
  for (int64_t i = 0; i < count; ++i)
    constraints += "=f,";
  for (int64_t i = 0; i < count; ++i)
    constraints += std::to_string(i) + (i + 1 < count ? "," : "");
  return LLVM::InlineAsmOp::create(
             b, loc, type, xs, "wgmma.wait_group.sync.aligned 0;", constraints,
             /*has_side_effects=*/true, /*is_align_stack=*/false,
             LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr())
      .getResult(0);
}
