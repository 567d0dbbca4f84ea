//===- StageBuffers.cpp - host buffers that kernels can reach ------------===//
//
// Upstream lowers memref.alloc in host code to malloc; a kernel given such a
// buffer faults. This pass moves the module's own allocations to
// gpu.alloc host_shared and copies globals that kernels read.
//
//===----------------------------------------------------------------------===//

#include "softmax-mlir/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::softmax {
#define GEN_PASS_DEF_SOFTMAXSTAGEGPUBUFFERS
#include "softmax-mlir/Conversion/Passes.h.inc"
} // namespace mlir::softmax

using namespace mlir;

namespace {
bool insideKernel(Operation *op) {
  return op->getParentOfType<gpu::LaunchOp>() ||
         op->getParentOfType<gpu::GPUModuleOp>();
}

struct SoftmaxStageGPUBuffersPass
    : public softmax::impl::SoftmaxStageGPUBuffersBase<
          SoftmaxStageGPUBuffersPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<memref::AllocOp> allocs;
    SmallVector<memref::DeallocOp> deallocs;
    SmallVector<gpu::LaunchOp> launches;
    getOperation()->walk([&](Operation *op) {
      if (insideKernel(op) && !isa<gpu::LaunchOp>(op))
        return;
      if (auto a = dyn_cast<memref::AllocOp>(op))
        allocs.push_back(a);
      else if (auto d = dyn_cast<memref::DeallocOp>(op))
        deallocs.push_back(d);
      else if (auto l = dyn_cast<gpu::LaunchOp>(op))
        launches.push_back(l);
    });
    for (memref::AllocOp alloc : allocs) {
      if (!alloc.getType().getLayout().isIdentity() ||
          alloc.getType().getMemorySpace()) {
        alloc.emitOpError("cannot be staged for the GPU: only identity-layout "
                          "buffers in the default memory space are");
        return signalPassFailure();
      }
      rewriter.setInsertionPoint(alloc);
      rewriter.replaceOpWithNewOp<gpu::AllocOp>(
          alloc, alloc.getType(), /*asyncToken=*/Type(), ValueRange{},
          alloc.getDynamicSizes(), alloc.getSymbolOperands(),
          /*hostShared=*/true);
    }
    // Upstream lowers only the async form of gpu.dealloc: a short chain.
    Type token = gpu::AsyncTokenType::get(&getContext());
    for (memref::DeallocOp dealloc : deallocs) {
      rewriter.setInsertionPoint(dealloc);
      Location loc = dealloc.getLoc();
      Value t = gpu::WaitOp::create(rewriter, loc, token, ValueRange{})
                    .getAsyncToken();
      t = gpu::DeallocOp::create(rewriter, loc, token, ValueRange{t},
                                 dealloc.getMemref())
              .getAsyncToken();
      gpu::WaitOp::create(rewriter, loc, Type(), ValueRange{t});
      rewriter.eraseOp(dealloc);
    }
    // Globals that kernels read get a host_shared copy before the launch.
    for (gpu::LaunchOp launch : launches) {
      llvm::SetVector<Value> captured;
      launch.getBody().walk([&](Operation *op) {
        for (Value v : op->getOperands())
          if (auto g = v.getDefiningOp<memref::GetGlobalOp>())
            captured.insert(g);
      });
      for (Value global : captured) {
        auto type = cast<MemRefType>(global.getType());
        rewriter.setInsertionPoint(launch);
        Location loc = launch.getLoc();
        Value copy = gpu::AllocOp::create(
                         rewriter, loc, type, Type(), ValueRange{},
                         ValueRange{}, ValueRange{}, /*hostShared=*/true)
                         .getMemref();
        memref::CopyOp::create(rewriter, loc, global, copy);
        rewriter.replaceUsesWithIf(global, copy, [&](OpOperand &use) {
          return launch->isProperAncestor(use.getOwner());
        });
        // Freed once the launch is done: after it, or after its token.
        rewriter.setInsertionPointAfter(launch);
        Value t = launch.getAsyncToken();
        if (!t)
          t = gpu::WaitOp::create(rewriter, loc, token, ValueRange{})
                  .getAsyncToken();
        t = gpu::DeallocOp::create(rewriter, loc, token, ValueRange{t}, copy)
                .getAsyncToken();
        gpu::WaitOp::create(rewriter, loc, Type(), ValueRange{t});
      }
    }
  }
};
} // namespace
