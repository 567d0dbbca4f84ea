//===- RowView.h - a semantic op seen as rows of a matrix -------*- C++ -*-===//
//
// What the CPU and GPU mappings need from a bufferized softmax, log_softmax
// or logsumexp op, whatever its class: its buffers, what it normalizes to,
// and its rows as a [rows, n] memref.
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_DIALECT_SOFTMAX_TRANSFORMS_ROWVIEW_H
#define SOFTMAX_MLIR_DIALECT_SOFTMAX_TRANSFORMS_ROWVIEW_H

#include "mlir/IR/Builders.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"
#include <optional>
#include <string>

namespace mlir::softmax {

/// The operands and attributes every semantic op has.
struct Request {
  Value input, output;
  /// softmax / log_softmax, or nullopt for logsumexp.
  std::optional<NormalizeKind> normalize;
  Algorithm algorithm;
  MaskedRows masked;
};

/// The request of a softmax, log_softmax or logsumexp op; nullopt for any
/// other op.
std::optional<Request> requestOf(Operation *op);

/// Why a mapping (named `mapping` in the message, e.g. "CPU mapping") cannot
/// index `buffers` as contiguous memrefs, or nullopt when it can. Tensors
/// pass when `requireBuffers` is false (the question asked before
/// bufferization).
std::optional<std::string> whyNotContiguousBuffers(ValueRange buffers,
                                                   StringRef mapping,
                                                   bool requireBuffers = true);

/// Why the semantic op of `req` is not f16/bf16/f32 data accumulated in
/// f32, which the CPU and GPU mappings compute, or nullopt when it is.
std::optional<std::string> whyNotF32Accumulated(Operation *op,
                                                const Request &req,
                                                StringRef mapping);

/// `memref` (identity layout) reshaped to rank `rank`: leading dimensions
/// collapsed into one, or a unit leading dimension added to a single row.
Value collapseToRank(OpBuilder &b, Location loc, Value memref, int64_t rank);

} // namespace mlir::softmax

#endif // SOFTMAX_MLIR_DIALECT_SOFTMAX_TRANSFORMS_ROWVIEW_H
