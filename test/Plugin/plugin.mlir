// Debian's stock mlir-opt, with softmax-mlir loaded as a plugin.
// An ASan-built plugin cannot be dlopen'ed into the uninstrumented mlir-opt.
// UNSUPPORTED: asan

// Pass plugin: --softmax-raise is known to the stock tool.
// RUN: %mlir_opt --load-dialect-plugin=%plugin --load-pass-plugin=%plugin \
// RUN:   --softmax-raise %s | FileCheck %s --check-prefix=RAISE

// The raised output parses again with the dialect plugin alone.
// RUN: %mlir_opt --load-dialect-plugin=%plugin --load-pass-plugin=%plugin \
// RUN:   --softmax-raise %s \
// RUN: | %mlir_opt --load-dialect-plugin=%plugin | FileCheck %s --check-prefix=RAISE

// Without the plugin the stock tool knows neither.
// RUN: not %mlir_opt --softmax-raise %s 2>&1 | FileCheck %s --check-prefix=NOPASS
// NOPASS: Unknown command line argument '--softmax-raise'

// RAISE-LABEL: func.func @softmax
// RAISE-NOT: linalg.softmax
// RAISE: softmax.softmax ins(%{{.*}} : tensor<2x16xf32>) outs(%{{.*}} : tensor<2x16xf32>) dimension(1) masked(nan)
// RAISE-NOT: linalg.softmax
func.func @softmax(%x: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %e = tensor.empty() : tensor<2x16xf32>
  %y = linalg.softmax dimension(1)
         ins(%x : tensor<2x16xf32>) outs(%e : tensor<2x16xf32>) -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}
