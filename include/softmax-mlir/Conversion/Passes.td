//===- Passes.td - softmax conversion passes -----------------*- tablegen -*-===//

#ifndef SOFTMAX_MLIR_CONVERSION_PASSES_TD
#define SOFTMAX_MLIR_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def SoftmaxMapToGPU : Pass<"softmax-map-to-gpu"> {
  let summary = "Map softmax ops on buffers onto GPU kernels (gpu.launch)";
  let description = [{
    Rewrites every `softmax.softmax`, `softmax.log_softmax` and
    `softmax.logsumexp` on memrefs (after `one-shot-bufferize`) into a
    `gpu.launch` whose body uses only target-neutral dialects: `gpu`
    (thread ids, xor shuffles, barriers, workgroup memory), `vector`
    (16-byte loads and stores), `memref`, `scf`, `arith` and `math`. The
    NVVM and ROCDL pipelines lower the same kernels.

    The strategy (threads per row, rows per block, vector width, vectors
    kept in registers, blocks per row) comes from a heuristic over the
    target and the shape (docs/Passes/softmax-map-to-gpu.md) and is
    recorded on the launch as `softmax.strategy`. Every option that is not
    0 overrides the heuristic; a choice the shape cannot honour is an
    error, never silently replaced.

    Requirements, each with its own diagnostic: memrefs with identity
    layout, reduction along the innermost dimension, f16/bf16/f32 data,
    f32 accumulation.

    Example:

    ```mlir
    softmax.softmax ins(%x : memref<16384x1024xf32>) outs(%y : memref<16384x1024xf32>)
                    dimension(1) masked(zero) algorithm(online)
    ```

    becomes a `gpu.launch` of 2048 blocks of 256 threads, a warp per row,
    each lane holding 8 vectors of 4 floats, with
    `softmax.strategy = {cached_vectors = 8, rows_per_block = 8,
    splits = 1, threads_per_row = 32, vector_width = 4}`.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "Target chip: sm_80, sm_90, gfx90a or gfx942">,
    Option<"threadsPerRow", "threads-per-row", "int64_t", "0",
           "Threads that cooperate on a row (power of two)">,
    Option<"rowsPerBlock", "rows-per-block", "int64_t", "0",
           "Rows per block (threads-per-row at most the warp size)">,
    Option<"vectorWidth", "vector-width", "int64_t", "0",
           "Elements per load and store">,
    Option<"cachedVectors", "cached-vectors", "int64_t", "0",
           "Vectors per thread kept in registers">,
    Option<"splits", "splits", "int64_t", "0",
           "Blocks per row">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def SoftmaxStageGPUBuffers : Pass<"softmax-stage-gpu-buffers", "::mlir::ModuleOp"> {
  let summary = "Make the buffers a module allocates itself reachable from kernels";
  let description = [{
    After `softmax-map-to-gpu`, host code still allocates its buffers with
    `memref.alloc` and reads constants through `memref.get_global`: host
    memory that a kernel cannot touch. This pass turns every `memref.alloc`
    outside kernels into `gpu.alloc host_shared` (memory both the host and
    the device reach, such as CUDA managed memory), frees it with
    `gpu.dealloc` in stream order, and gives every `gpu.launch` that reads a
    global a `host_shared` copy of it. Function arguments are left as they
    are: a caller passes device-accessible buffers.

    Example:

    ```mlir
    %g = memref.get_global @input : memref<4x8xf32>
    %y = memref.alloc() : memref<4x8xf32>
    gpu.launch ... { ... %g ... %y ... }
    ```

    becomes

    ```mlir
    %g = memref.get_global @input : memref<4x8xf32>
    %y = gpu.alloc host_shared () : memref<4x8xf32>
    %c = gpu.alloc host_shared () : memref<4x8xf32>
    memref.copy %g, %c : memref<4x8xf32> to memref<4x8xf32>
    gpu.launch ... { ... %c ... %y ... }
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect"];
}

#endif // SOFTMAX_MLIR_CONVERSION_PASSES_TD
