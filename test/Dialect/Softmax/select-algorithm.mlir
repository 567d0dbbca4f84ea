// RUN: softmax-opt %s --softmax-select-algorithm | FileCheck %s --check-prefix=CPU
// RUN: softmax-opt %s --softmax-select-algorithm="target=gpu" | FileCheck %s --check-prefix=GPU
// RUN: softmax-opt %s --softmax-select-algorithm="force=exp_pair" | FileCheck %s --check-prefix=FORCE
// RUN: softmax-opt %s --softmax-select-algorithm="l2-bytes=4096" | FileCheck %s --check-prefix=SMALL-L2
// RUN: not softmax-opt %s --softmax-select-algorithm="force=fast" 2>&1 | FileCheck %s --check-prefix=BAD-FORCE
// RUN: not softmax-opt %s --softmax-select-algorithm="target=tpu" 2>&1 | FileCheck %s --check-prefix=BAD-TARGET

// BAD-FORCE: error: softmax-select-algorithm: unknown algorithm 'fast' (expected three_pass, online or exp_pair)
// BAD-TARGET: error: softmax-select-algorithm: unknown target 'tpu' (expected cpu or gpu)

// CPU-LABEL: func @choose
// GPU-LABEL: func @choose
// FORCE-LABEL: func @choose
// SMALL-L2-LABEL: func @choose
func.func @choose(%a: tensor<4096x1024xf32>, %b: tensor<64x1048576xf32>,
                  %c: tensor<8x?xbf16>, %d: tensor<4x128xf32>,
                  %ia: tensor<4096x1024xf32>, %ib: tensor<64x1048576xf32>,
                  %ic: tensor<8x?xbf16>, %id: tensor<4xf32>)
    -> (tensor<4096x1024xf32>, tensor<64x1048576xf32>, tensor<8x?xbf16>, tensor<4xf32>) {
  // A 4 KiB row stays in L2: three_pass. With a 4 KiB L2 it does not.
  // CPU: softmax.softmax {{.*}} masked(zero) algorithm(three_pass)
  // GPU: softmax.softmax {{.*}} masked(zero) algorithm(online)
  // FORCE: softmax.softmax {{.*}} masked(zero) algorithm(exp_pair)
  // SMALL-L2: softmax.softmax {{.*}} masked(zero) algorithm(exp_pair)
  %0 = softmax.softmax ins(%a : tensor<4096x1024xf32>) outs(%ia : tensor<4096x1024xf32>) dimension(1) masked(zero)
  // A 4 MiB row does not: exp_pair.
  // CPU: softmax.log_softmax {{.*}} masked(nan) algorithm(exp_pair)
  // GPU: softmax.log_softmax {{.*}} masked(nan) algorithm(online)
  %1 = softmax.log_softmax ins(%b : tensor<64x1048576xf32>) outs(%ib : tensor<64x1048576xf32>) dimension(1) masked(nan)
  // A row of unknown length counts as long.
  // CPU: softmax.softmax {{.*}} masked(zero) algorithm(exp_pair)
  %2 = softmax.softmax ins(%c : tensor<8x?xbf16>) outs(%ic : tensor<8x?xbf16>) dimension(1) masked(zero)
  // An explicit choice is kept unless forced.
  // CPU: softmax.logsumexp {{.*}} masked(zero) algorithm(online)
  // GPU: softmax.logsumexp {{.*}} masked(zero) algorithm(online)
  // FORCE: softmax.logsumexp {{.*}} masked(zero) algorithm(exp_pair)
  %3 = softmax.logsumexp ins(%d : tensor<4x128xf32>) outs(%id : tensor<4xf32>) dimension(1) masked(zero) algorithm(online)
  return %0, %1, %2, %3 : tensor<4096x1024xf32>, tensor<64x1048576xf32>, tensor<8x?xbf16>, tensor<4xf32>
}
