// Kernels of every strategy and dtype, in the two front-end forms the GPU
// pipelines take: functions on tensors (raised from linalg or written in the
// dialect) and functions on device buffers.

func.func @linalg_softmax(%x: tensor<64x1024xf32>) -> tensor<64x1024xf32> {
  %e = tensor.empty() : tensor<64x1024xf32>
  %y = linalg.softmax dimension(1) ins(%x : tensor<64x1024xf32>) outs(%e : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  return %y : tensor<64x1024xf32>
}

func.func @warp_rows_bf16(%x: tensor<?x512xbf16>, %i: tensor<?x512xbf16>) -> tensor<?x512xbf16> {
  %y = softmax.log_softmax ins(%x : tensor<?x512xbf16>) outs(%i : tensor<?x512xbf16>) dimension(1) masked(nan)
  return %y : tensor<?x512xbf16>
}

func.func @block_rows_f16(%x: tensor<8x8192xf16>, %i: tensor<8x8192xf16>) -> tensor<8x8192xf16> {
  %y = softmax.softmax ins(%x : tensor<8x8192xf16>) outs(%i : tensor<8x8192xf16>) dimension(1) masked(zero) algorithm(three_pass)
  return %y : tensor<8x8192xf16>
}

func.func @split_rows(%x: memref<512x262144xf32>, %y: memref<512x262144xf32>) attributes {llvm.emit_c_interface} {
  softmax.softmax ins(%x : memref<512x262144xf32>) outs(%y : memref<512x262144xf32>) dimension(1) masked(zero) algorithm(online)
  return
}

func.func @exp_pair_lse(%x: memref<333x1031xbf16>, %y: memref<333xf32>) {
  softmax.logsumexp ins(%x : memref<333x1031xbf16>) outs(%y : memref<333xf32>) dimension(1) masked(zero) algorithm(exp_pair)
  return
}

func.func @streamed(%x: memref<2x?xf32>, %y: memref<2x?xf32>) {
  softmax.softmax ins(%x : memref<2x?xf32>) outs(%y : memref<2x?xf32>) dimension(1) masked(nan) algorithm(three_pass)
  return
}

func.func @streamed_unrolled(%x: memref<64x50257xbf16>, %y: memref<64xbf16>) {
  softmax.logsumexp ins(%x : memref<64x50257xbf16>) outs(%y : memref<64xbf16>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 256, cached_vectors = 0, unroll = 4>}
  return
}
