//===- TensorMapTiles.cpp - tiles by the tensor-memory accelerator --------===//

#include "TensorMapTiles.h"

#include "softmax-mlir/Dialect/Softmax/Utils/IndexArith.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::softmax;
using namespace mlir::softmax::detail;

Value softmax::detail::createBoxTensorMap(OpBuilder &b, Location loc,
                                          Value src) {
  auto type = cast<MemRefType>(src.getType());
  IndexArith ix(b, loc);
  SmallVector<int64_t> box(type.getRank(), 1);
  box[type.getRank() - 2] = kBoxRows;
  box.back() = kBoxCols;
  SmallVector<Value> boxValues;
  for (int64_t n : box)
    boxValues.push_back(ix.idx(n));
  Attribute workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  // nvgpu's descriptor type names the box as a shared-memory memref; its
  // lowering (convert-nvgpu-to-nvvm on the host function) calls the
  // runtime's mgpuTensorMapEncodeTiledMemref.
  auto descType = nvgpu::TensorMapDescriptorType::get(
      b.getContext(),
      MemRefType::get(box, type.getElementType(), MemRefLayoutAttrInterface(),
                      workgroup),
      nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
      nvgpu::TensorMapL2PromoKind::L2PROMO_NONE,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
  Value unranked = memref::CastOp::create(
      b, loc, UnrankedMemRefType::get(type.getElementType(), Attribute()),
      src);
  Value desc =
      nvgpu::TmaCreateDescriptorOp::create(b, loc, descType, unranked,
                                           boxValues);
  // The kernel takes the device pointer itself: a launch operand of
  // nvgpu's descriptor type has no lowering on the kernel's side.
  return UnrealizedConversionCastOp::create(
             b, loc, LLVM::LLVMPointerType::get(b.getContext()), desc)
      .getResult(0);
}

Value softmax::detail::sharedAddress(OpBuilder &b, Location loc, Value buffer,
                                     Value bytes) {
  IndexArith ix(b, loc);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  Value address = arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                             ix.add(base, bytes));
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), /*shared=*/3),
      address);
}

void softmax::detail::initTileBarriers(OpBuilder &b, Location loc, Value bars,
                                       Value tid) {
  IndexArith ix(b, loc);
  int64_t count = cast<MemRefType>(bars.getType()).getDimSize(0);
  auto first = scf::IfOp::create(
      b, loc, ix.cmp(arith::CmpIPredicate::eq, tid, ix.idx(0)),
      /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&first.getThenRegion().front());
    Value one = arith::ConstantIntOp::create(b, loc, 1, 32);
    for (int64_t i = 0; i < count; ++i)
      NVVM::MBarrierInitOp::create(
          b, loc, sharedAddress(b, loc, bars, ix.idx(8 * i)), one,
          /*predicate=*/Value());
    // The initialization, visible to the copy engine's arrivals.
    NVVM::FenceMbarrierInitOp::create(b, loc);
  }
  gpu::BarrierOp::create(b, loc);
}

void softmax::detail::expectTileBytes(OpBuilder &b, Location loc, Value bar,
                                      int64_t bytes) {
  NVVM::MBarrierArriveExpectTxOp::create(
      b, loc, /*res=*/Type(), bar,
      arith::ConstantIntOp::create(b, loc, bytes, 32),
      NVVM::MemScopeKindAttr::get(b.getContext(), NVVM::MemScopeKind::CTA),
      b.getBoolAttr(false), /*predicate=*/Value());
}

void softmax::detail::copyBox(OpBuilder &b, Location loc, Value dst, Value map,
                              ValueRange coords, Value bar) {
  // The shared::cluster form (PTX 8.0): a block's own shared address is
  // one of its cluster's.
  Value cluster = LLVM::AddrSpaceCastOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), /*sharedCluster=*/7),
      dst);
  NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
      b, loc, cluster, map, coords, bar, /*im2colOffsets=*/ValueRange{},
      /*multicastMask=*/Value(), /*l2CacheHint=*/Value(),
      NVVM::TMALoadMode::TILE, /*isCTAOnly=*/false, /*group=*/nullptr,
      /*predicate=*/Value());
}

void softmax::detail::waitBarrierParity(OpBuilder &b, Location loc, Value bar,
                                        Value parity) {
  // The suspend-time hint of CUTLASS's pipelines (0x989680 ns).
  NVVM::MBarrierTryWaitParityOp::create(
      b, loc, bar, parity, arith::ConstantIntOp::create(b, loc, 0x989680, 32));
}

SmallVector<Value> softmax::detail::swizzledTileIndices(OpBuilder &b,
                                                        Location loc, Value buf,
                                                        Value row, Value col) {
  IndexArith ix(b, loc);
  Value box = ix.div(col, kBoxCols);
  Value chunk = ix.div(ix.rem(col, kBoxCols), 8);
  Value swizzled = arith::XOrIOp::create(b, loc, chunk, ix.rem(row, 8));
  return {buf, box, row,
          ix.add(ix.mul(swizzled, ix.idx(8)), ix.rem(col, 8))};
}
