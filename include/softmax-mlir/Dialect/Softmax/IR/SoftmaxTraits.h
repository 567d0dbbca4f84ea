//===- SoftmaxTraits.h - op traits of the softmax dialect -------*- C++ -*-===//

#ifndef SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_SOFTMAXTRAITS_H
#define SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_SOFTMAXTRAITS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"

namespace mlir::softmax::OpTrait {

/// An op whose operand groups are all single or optional, and whose groups
/// at `Required...` are single. Upstream's AttrSizedOperandSegments checks
/// only that the segment sizes add up, and the generated verifier only that
/// optional groups hold at most one value: a generic-form op with a
/// required segment of 0 or 2 reached the op's accessors and crashed. A
/// structural trait, so it runs before the generated verifier.
template <unsigned... Required>
struct RequiredOperandSegments {
  template <typename ConcreteType>
  class Impl : public mlir::OpTrait::TraitBase<ConcreteType, Impl> {
  public:
    static LogicalResult verifyTrait(Operation *op) {
      auto sizes = dyn_cast_or_null<DenseI32ArrayAttr>(
          op->getInherentAttr("operandSegmentSizes").value_or(Attribute()));
      if (!sizes)
        return op->emitOpError("needs an operandSegmentSizes array");
      ArrayRef<int32_t> v = sizes.asArrayRef();
      for (auto [i, size] : llvm::enumerate(v)) {
        bool required = ((i == Required) || ...);
        if (required ? size != 1 : (size != 0 && size != 1))
          return op->emitOpError()
                 << "operand group " << i << " needs "
                 << (required ? "exactly one" : "at most one")
                 << " value, not " << size << " (operandSegmentSizes)";
      }
      return success();
    }
  };
};

} // namespace mlir::softmax::OpTrait

#endif // SOFTMAX_MLIR_DIALECT_SOFTMAX_IR_SOFTMAXTRAITS_H
