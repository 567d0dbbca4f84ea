//===- OptionRange.h - the accepted range of an integer option --*- C++ -*-===//
//
// Every integer option of our passes and pipelines is checked against one
// of these, so that each refusal names the option and the values it takes,
// and each option's range is written once (in the check; the option's help
// text repeats it for --help).
//
//===----------------------------------------------------------------------===//

#ifndef SOFTMAX_MLIR_DIALECT_SOFTMAX_UTILS_OPTIONRANGE_H
#define SOFTMAX_MLIR_DIALECT_SOFTMAX_UTILS_OPTIONRANGE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::softmax {

/// The values an integer option accepts: `zero` (when not empty, 0 is
/// accepted and means this), then [min, max], powers of two only when
/// `powerOfTwo`.
struct OptionRange {
  llvm::StringRef name;
  int64_t min, max;
  bool powerOfTwo = false;
  llvm::StringRef zero = {};

  /// The refusal of `value`, or nullopt when it is accepted.
  std::optional<std::string> check(int64_t value) const {
    if (value == 0 && !zero.empty())
      return std::nullopt;
    if (value >= min && value <= max &&
        (!powerOfTwo || llvm::isPowerOf2_64(static_cast<uint64_t>(value))))
      return std::nullopt;
    std::string message;
    llvm::raw_string_ostream os(message);
    os << name << " must be ";
    if (!zero.empty())
      os << "0 (" << zero << ") or ";
    os << (powerOfTwo ? "a power of two " : "") << "from " << min << " to "
       << max << ", not " << value;
    return message;
  }
};

} // namespace mlir::softmax

#endif // SOFTMAX_MLIR_DIALECT_SOFTMAX_UTILS_OPTIONRANGE_H
