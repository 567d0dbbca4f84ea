// The payload of the end-to-end tests (cpu-end-to-end.mlir,
// gpu-end-to-end-nvvm.mlir, gpu-end-to-end-rocdl.mlir): a front end's
// linalg.softmax (f32), semantic ops on tensors still marked auto (bf16
// softmax, f32 log_softmax, bf16 logsumexp) and a bf16 attention on
// tensors.
func.func @linalg_softmax(%x: tensor<64x1024xf32>) -> tensor<64x1024xf32> {
  %e = tensor.empty() : tensor<64x1024xf32>
  %y = linalg.softmax dimension(1) ins(%x : tensor<64x1024xf32>) outs(%e : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  return %y : tensor<64x1024xf32>
}

func.func @softmax_bf16(%x: tensor<?x512xbf16>, %i: tensor<?x512xbf16>) -> tensor<?x512xbf16> {
  %y = softmax.softmax ins(%x : tensor<?x512xbf16>) outs(%i : tensor<?x512xbf16>) dimension(1) masked(zero)
  return %y : tensor<?x512xbf16>
}

func.func @log_softmax_f32(%x: tensor<8x3000xf32>, %i: tensor<8x3000xf32>) -> tensor<8x3000xf32> {
  %y = softmax.log_softmax ins(%x : tensor<8x3000xf32>) outs(%i : tensor<8x3000xf32>) dimension(1) masked(nan)
  return %y : tensor<8x3000xf32>
}

func.func @logsumexp_bf16(%x: tensor<33x1031xbf16>, %i: tensor<33xf32>) -> tensor<33xf32> {
  %y = softmax.logsumexp ins(%x : tensor<33x1031xbf16>) outs(%i : tensor<33xf32>) dimension(1) masked(zero)
  return %y : tensor<33xf32>
}

func.func @attention_bf16(%q: tensor<2x4x128x64xbf16>, %k: tensor<2x4x256x64xbf16>, %v: tensor<2x4x256x64xbf16>, %o: tensor<2x4x128x64xbf16>) -> tensor<2x4x128x64xbf16> {
  %y = softmax.attention ins(%q, %k, %v : tensor<2x4x128x64xbf16>, tensor<2x4x256x64xbf16>, tensor<2x4x256x64xbf16>) outs(%o : tensor<2x4x128x64xbf16>) masked(zero) causal
  return %y : tensor<2x4x128x64xbf16>
}
