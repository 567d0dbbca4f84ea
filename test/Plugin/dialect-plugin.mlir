// The softmax dialect in Debian's stock mlir-opt through the dialect plugin
// alone: custom form -> generic form -> custom form.
// An ASan-built plugin cannot be dlopen'ed into the uninstrumented mlir-opt.
// UNSUPPORTED: asan

// RUN: %mlir_opt --load-dialect-plugin=%plugin %s \
// RUN: | %mlir_opt --load-dialect-plugin=%plugin --mlir-print-op-generic \
// RUN: | %mlir_opt --load-dialect-plugin=%plugin | FileCheck %s

// Without the plugin the op is unknown.
// RUN: not %mlir_opt %s 2>&1 | FileCheck %s --check-prefix=NODIALECT
// NODIALECT: Dialect `softmax' not found

// CHECK-LABEL: func.func @roundtrip
// CHECK-SAME: (%[[X:.*]]: tensor<2x16xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x16xf32>
// CHECK: softmax.softmax ins(%[[X]] : tensor<2x16xf32>) outs(%[[E]] : tensor<2x16xf32>) dimension(1) masked(nan)
// CHECK: softmax.log_softmax ins(%[[X]] : tensor<2x16xf32>) outs(%[[E]] : tensor<2x16xf32>) dimension(1) masked(zero) algorithm(online)
func.func @roundtrip(%x: tensor<2x16xf32>) -> (tensor<2x16xf32>, tensor<2x16xf32>) {
  %e = tensor.empty() : tensor<2x16xf32>
  %y = softmax.softmax ins(%x : tensor<2x16xf32>) outs(%e : tensor<2x16xf32>)
                       dimension(1) masked(nan)
  %z = softmax.log_softmax ins(%x : tensor<2x16xf32>) outs(%e : tensor<2x16xf32>)
                           dimension(1) masked(zero) algorithm(online)
  return %y, %z : tensor<2x16xf32>, tensor<2x16xf32>
}
