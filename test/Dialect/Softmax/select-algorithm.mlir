// RUN: softmax-opt %s --softmax-select-algorithm | FileCheck %s --check-prefix=CPU
// RUN: softmax-opt %s --softmax-select-algorithm="target=gpu" | FileCheck %s --check-prefix=GPU
// RUN: softmax-opt %s --softmax-select-algorithm="force=exp_pair" | FileCheck %s --check-prefix=FORCE
// RUN: softmax-opt %s --softmax-select-algorithm="l2-bytes=4096" | FileCheck %s --check-prefix=SMALL-L2
// RUN: not softmax-opt %s --softmax-select-algorithm="force=fast" 2>&1 | FileCheck %s --check-prefix=BAD-FORCE
// RUN: not softmax-opt %s --softmax-select-algorithm="target=tpu" 2>&1 | FileCheck %s --check-prefix=BAD-TARGET
// RUN: not softmax-opt %s --softmax-select-algorithm="l2-bytes=-1" 2>&1 | FileCheck %s --check-prefix=BAD-L2
// BAD-L2: error: softmax-select-algorithm: l2-bytes must be a size of 1 or more bytes, not -1

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

// The row is dimension `dimension` of the input: 4096 f32 along dimension
// 0 is 16 KiB, which fits a 1 MiB L2 but not a 4 KiB one.
// CPU-LABEL: func @outer_dimension
// SMALL-L2-LABEL: func @outer_dimension
// CPU: softmax.softmax {{.*}} dimension(0) masked(zero) algorithm(three_pass)
// SMALL-L2: softmax.softmax {{.*}} dimension(0) masked(zero) algorithm(exp_pair)
func.func @outer_dimension(%x: tensor<4096x2xf32>, %i: tensor<4096x2xf32>) -> tensor<4096x2xf32> {
  %0 = softmax.softmax ins(%x : tensor<4096x2xf32>) outs(%i : tensor<4096x2xf32>) dimension(0) masked(zero)
  return %0 : tensor<4096x2xf32>
}

// Attention has no algorithm to choose (always online): left as it is,
// even when forced.
// FORCE-LABEL: func @attention
// FORCE: softmax.attention ins({{.*}}) outs({{.*}}) masked(zero){{$}}
func.func @attention(%q: tensor<1x1x4x16xf16>, %k: tensor<1x1x8x16xf16>, %v: tensor<1x1x8x16xf16>, %o: tensor<1x1x4x16xf16>) -> tensor<1x1x4x16xf16> {
  %0 = softmax.attention ins(%q, %k, %v : tensor<1x1x4x16xf16>, tensor<1x1x8x16xf16>, tensor<1x1x8x16xf16>) outs(%o : tensor<1x1x4x16xf16>) masked(zero)
  return %0 : tensor<1x1x4x16xf16>
}
