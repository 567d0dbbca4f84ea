//===- CrossEntropyGradGPU.h - the gradient mappings' share ---*- C++ -*-===//
//
// Private to lib/Conversion/SoftmaxToGPU/Mapping: the fused linear
// cross-entropy's gradient has two GPU forms that share their logit tiles,
// token weights and rounding (docs/CrossEntropy.md, "GPU kernel
// (backward)"):
//
// - fused (CrossEntropyGradToGPU.cpp, its tile kernel in
//   CrossEntropyGradTile.cpp): a block per tile recomputes the
//   logits, turns them into du and multiplies du by chunks of W and h, the
//   gradients added to f32 accumulators with atomics;
// - chunked (CrossEntropyGradChunks.cpp, warpgroup targets): the classes in
//   chunks; per chunk the tiles write du and their votes to memory, then
//   two products read them back, skipping the filtered tiles, and own their
//   outputs (no atomics).
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_CROSSENTROPYGRADGPU_H
#define SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_CROSSENTROPYGRADGPU_H

#include "softmax-mlir/Conversion/SoftmaxToGPU/GPUTargetHooks.h"
#include "softmax-mlir/Conversion/SoftmaxToGPU/TileMma.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"

#include "StreamWorkspace.h"

namespace mlir::softmax::detail {

/// The buffers the tile kernel writes: the f32 accumulators of grad_hidden,
/// grad_classifier and grad_bias (null without a bias), the token weights
/// and the filter counts (null when not asked for). The chunked form sets
/// `du` ([planes * tokenPad, chunk classes] of the inputs' type: hi, and lo
/// in exact mode), `flags` ([token tiles, chunk tiles] i32: 1 where the
/// filter kept the tile), `chunk0` (the chunk's first class) and
/// `tokenPad` (the token tiles' rows), and the chunk's class tiles and how
/// many of them a block takes; the tiles then write du and their votes
/// there instead of multiplying.
/// The chunked tile kernel with class_max lists the tiles it recomputes in
/// shared memory: a mark per tile of its range, then the list, then their
/// count ([2 kGradListOffset + 1] i32); its range is at most this long.
constexpr int64_t kGradListOffset = 64;

struct GradBuffers {
  Value gh, gw, gb, weights, counts;
  Value du, flags, chunk0, tokenPad, chunkTiles, tilesPerBlock;
};

/// Builds the tile kernel into `launch`: a block per (token tile, class
/// tile) of `logits`' shape (chunked: per token tile and range of
/// `tilesPerBlock` class tiles). `smem`: the logits' TileMma::tileBuffers,
/// the du tile (fused form only: prodH's A buffer, with a lo plane in
/// exact mode), then the vote's i32 flag ([1]; chunked [2]).
void buildGradTiles(OpBuilder &b, Location loc, LinearCrossEntropyGradOp op,
                    TileMma &logits, TileMma *prodH, TileMma *prodW,
                    const GradBuffers &out, gpu::LaunchOp launch,
                    ArrayRef<Value> smem);

/// The gradients' f32 accumulators in stream order (`ws`): an f32 init is
/// its own, zeroed; a bf16 or f16 one gets a zeroed f32 workspace, rounded
/// into it by `launchRounds`.
class GradAccumulators {
public:
  GradAccumulators(OpBuilder &b, Location loc, StreamWorkspace &ws)
      : b(b), loc(loc), ws(ws) {}
  /// The accumulator of `init` (a [shape] workspace, `sizes` its dynamic
  /// sizes, where it is not f32).
  Value get(Value init, ArrayRef<int64_t> shape, ValueRange sizes);
  /// Step 3: each workspace rounded into its init, a grid-stride kernel
  /// each, after `ws.token`.
  void launchRounds(const GPUTarget &target);

private:
  OpBuilder &b;
  Location loc;
  StreamWorkspace &ws;
  SmallVector<std::pair<Value, Value>> rounds; // (accumulator, init)
};

/// Step 1 after `ws.token`: one block counts the kept tokens (for a mean)
/// and writes each token's weight into `out.weights`; thread 0 zeroes the
/// filter counts. Returns the launch.
gpu::LaunchOp launchGradWeights(OpBuilder &b, Location loc,
                                LinearCrossEntropyGradOp op,
                                const GPUTarget &target, StreamWorkspace &ws,
                                const GradBuffers &out);

/// Fails with a diagnostic at `op` where the filter's tile (or its counts)
/// would differ from the tile the op names.
LogicalResult checkGradTile(LinearCrossEntropyGradOp op, int64_t tileTokens,
                            int64_t tileClasses);

/// The chunked form on a warpgroup target (CrossEntropyGradChunks.cpp).
LogicalResult mapLinearCrossEntropyGradChunked(RewriterBase &rewriter,
                                               LinearCrossEntropyGradOp op,
                                               const GPUTarget &target,
                                               const GPUTargetHooks &hooks);

} // namespace mlir::softmax::detail

#endif // SOFTMAX_MLIR_LIB_CONVERSION_SOFTMAXTOGPU_CROSSENTROPYGRADGPU_H
