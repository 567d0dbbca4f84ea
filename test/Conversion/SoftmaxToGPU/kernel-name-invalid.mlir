// The kernel gpu-kernel-outlining makes is named after the function; a name
// PTX cannot spell is refused at the op (NVPTX's printer died with a fatal
// "Symbol name with unsupported characters"; found by softmax-fuzz).
// RUN: softmax-opt %s -verify-diagnostics --softmax-map-to-gpu="chip=sm_90"
func.func @"a b=c"(%x: memref<4x64xf32>, %y: memref<4x64xf32>) {
  // expected-error @+1 {{'softmax.softmax' op is in function 'a b=c', whose outlined kernel PTX cannot name (letters, digits, '_' and '$' only, not starting with a digit)}}
  softmax.softmax ins(%x : memref<4x64xf32>) outs(%y : memref<4x64xf32>) dimension(1) masked(zero) algorithm(online)
  return
}
