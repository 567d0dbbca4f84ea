//===- BufferizableOpInterfaceImpl.h - softmax bufferization ----*- C++ -*-===//

#ifndef SOFTMAX_MLIR_DIALECT_SOFTMAX_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
#define SOFTMAX_MLIR_DIALECT_SOFTMAX_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H

namespace mlir {
class DialectRegistry;

namespace softmax {
/// Lets one-shot bufferization turn the semantic ops on tensors into the
/// same ops on memrefs.
void registerBufferizableOpInterfaceExternalModels(DialectRegistry &registry);
} // namespace softmax
} // namespace mlir

#endif // SOFTMAX_MLIR_DIALECT_SOFTMAX_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
