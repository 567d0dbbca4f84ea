//===- RowView.h - a semantic op seen as rows of a matrix -------*- C++ -*-===//
//
// What the CPU and GPU mappings share about a bufferized softmax,
// log_softmax or logsumexp op (read through SemanticOpInterface): the
// checks on its buffers and types, the request their row kernels take, and
// its rows as a [rows, n] memref.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_DIALECT_SOFTMAX_TRANSFORMS_ROWVIEW_H
#define SOFTMAX_MLIR_DIALECT_SOFTMAX_TRANSFORMS_ROWVIEW_H

#include "mlir/IR/Builders.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include <optional>
#include <string>

namespace mlir::softmax {

/// What a CPU or GPU row kernel is built from: SemanticOpInterface's view
/// of one softmax, log_softmax or logsumexp op, copied with its algorithm
/// already resolved (never `auto`), since the mapping erases the op once the
/// kernel is built. The passes ask the interface; only the kernel builders
/// (RowKernel, KernelBuilder) take this.
struct Request {
  Value input, output;
  /// softmax / log_softmax, or nullopt for logsumexp.
  std::optional<NormalizeKind> normalize;
  Algorithm algorithm;
  MaskedRows masked;
};

/// The kernel request of `op` (not attention, whose kernels read the op),
/// with `algorithm` as its resolved algorithm.
Request rowKernelRequest(SemanticOpInterface op, Algorithm algorithm);

/// The layouts a mapping indexes besides the identity.
enum class StridedBuffers {
  /// None: the mapping collapses or linearizes the buffers.
  Refused,
  /// Strided memrefs whose last dimension has unit stride: a mapping that
  /// indexes every dimension and loads vectors along the last reads a
  /// slice of a larger buffer (a split's keys of a KV cache, rows of
  /// logits) in place.
  UnitStrideRows,
  /// Any strided memref: a buffer read or written one element at a time
  /// (a logsumexp's output).
  AnyStrides,
};

/// Why a mapping (named `mapping` in the message, e.g. "CPU mapping") cannot
/// index `buffers` with the layouts `strided` allows, or nullopt when it
/// can. Tensors pass when `requireBuffers` is false (the question asked
/// before bufferization).
std::optional<std::string>
whyNotContiguousBuffers(ValueRange buffers, StringRef mapping,
                        bool requireBuffers = true,
                        StridedBuffers strided = StridedBuffers::Refused);

/// Why `op` does not read and write f16/bf16/f32 data accumulated in f32,
/// which the CPU and GPU mappings compute, or nullopt when it does.
std::optional<std::string> whyNotF32Accumulated(SemanticOpInterface op,
                                                StringRef mapping);

/// `memref` (identity layout) reshaped to rank `rank`: leading dimensions
/// collapsed into one, or a unit leading dimension added to a single row.
Value collapseToRank(OpBuilder &b, Location loc, Value memref, int64_t rank);

/// `memref` (identity layout) with each group of `groups` collapsed into one
/// dimension, dynamic when any dimension of its group is.
Value collapseGroups(OpBuilder &b, Location loc, Value memref,
                     ArrayRef<ReassociationIndices> groups);

} // namespace mlir::softmax

#endif // SOFTMAX_MLIR_DIALECT_SOFTMAX_TRANSFORMS_ROWVIEW_H
