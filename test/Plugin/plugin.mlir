// Debian's stock mlir-opt, with softmax-mlir loaded as a plugin.
// An ASan-built plugin cannot be dlopen'ed into the uninstrumented mlir-opt.
// UNSUPPORTED: asan

// Pass plugin, pass given as a flag (added by the plugin while mlir-opt
// parses its command line).
// RUN: %mlir_opt --load-dialect-plugin=%plugin --load-pass-plugin=%plugin \
// RUN:   --softmax-raise %s | FileCheck %s --check-prefix=RAISE

// ... and as a textual pipeline (upstream's plugin interface).
// RUN: %mlir_opt --load-dialect-plugin=%plugin --load-pass-plugin=%plugin \
// RUN:   --pass-pipeline='builtin.module(softmax-raise)' %s \
// RUN: | FileCheck %s --check-prefix=RAISE

// The raised output parses again with the dialect plugin alone.
// RUN: %mlir_opt --load-dialect-plugin=%plugin --load-pass-plugin=%plugin \
// RUN:   --softmax-raise %s \
// RUN: | %mlir_opt --load-dialect-plugin=%plugin | FileCheck %s --check-prefix=RAISE

// Flags keep their order and take pass options; pipelines are flags too.
// RUN: %mlir_opt --load-dialect-plugin=%plugin --load-pass-plugin=%plugin \
// RUN:   --softmax-raise --softmax-select-algorithm=force=online \
// RUN:   --softmax-decompose=to-state=true --dump-pass-pipeline %s 2>&1 \
// RUN: | FileCheck %s --check-prefix=FLAGS
// FLAGS:      builtin.module(
// FLAGS-NEXT:   softmax-raise{{({[^}]*})?}},
// FLAGS-NEXT:   softmax-select-algorithm{{{.*}}force=online
// FLAGS-NEXT:   softmax-decompose{{{.*}}to-state=true}
// FLAGS:      softmax.partial
// FLAGS-SAME: algorithm(online)
// RUN: %mlir_opt --load-dialect-plugin=%plugin --load-pass-plugin=%plugin \
// RUN:   --softmax-to-cpu %s | FileCheck %s --check-prefix=CPU
// CPU: llvm.func @softmax

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
