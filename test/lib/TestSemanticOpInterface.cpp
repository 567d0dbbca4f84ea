//===- TestSemanticOpInterface.cpp - print SemanticOpInterface answers ---===//
//
// Test-only pass: a remark on every op with SemanticOpInterface saying what
// the interface answers, so that a lit test checks each method on each op
// class (attention included, which no pass asks everything of).
//
//===----------------------------------------------------------------------===//

#include "mlir/Pass/Pass.h"
#include "softmax-mlir/Dialect/Softmax/IR/Softmax.h"

using namespace mlir;
using namespace mlir::softmax;

namespace {
struct TestSemanticOpInterfacePass
    : public PassWrapper<TestSemanticOpInterfacePass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestSemanticOpInterfacePass)
  StringRef getArgument() const final {
    return "test-softmax-semantic-interface";
  }
  StringRef getDescription() const final {
    return "Emit a remark with SemanticOpInterface's answers on every "
           "semantic op";
  }
  void runOnOperation() override {
    getOperation()->walk([](SemanticOpInterface op) {
      // Operands by their position, so that the test need not name SSA
      // values.
      auto positions = [&](OperandRange range) {
        std::string s;
        llvm::raw_string_ostream os(s);
        llvm::interleaveComma(range, os, [&](Value v) {
          for (OpOperand &use : op->getOpOperands())
            if (use.get() == v) {
              os << use.getOperandNumber();
              return;
            }
        });
        return s;
      };
      unsigned reduced = 0;
      for (OpOperand &use : op->getOpOperands())
        if (use.get() == op.getReducedInput())
          reduced = use.getOperandNumber();
      std::optional<int64_t> length = op.getStaticRowLength();
      std::optional<StateKind> state = op.getStateKind();
      std::optional<NormalizeKind> normalize = op.getNormalizeKind();
      op->emitRemark() << "inputs (" << positions(op.getInputs())
                       << ") destinations ("
                       << positions(op.getDestinations()) << ") reduces #"
                       << reduced << " dimension "
                       << op.getReductionDimension() << " length "
                       << (length ? std::to_string(*length) : "?")
                       << " algorithm " << stringifyAlgorithm(op.getAlgorithm())
                       << (op.hasSelectableAlgorithm() ? " (selectable)"
                                                       : " (fixed)")
                       << " state "
                       << (state ? stringifyStateKind(*state) : "none")
                       << " normalize "
                       << (normalize ? stringifyNormalizeKind(*normalize)
                                     : "none")
                       << " masked " << stringifyMaskedRows(op.getMasked())
                       << " acc " << op.getAccumulatorType();
    });
  }
};
} // namespace

namespace mlir::softmax::test {
void registerTestSemanticOpInterfacePass() {
  PassRegistration<TestSemanticOpInterfacePass>();
}
} // namespace mlir::softmax::test
