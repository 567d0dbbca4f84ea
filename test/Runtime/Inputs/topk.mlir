// softmax.topk lowered by softmax-to-nvvm for topk-gpu.test (the driver is
// Inputs/topk-main.cpp): 6 rows each.
//   vocab_k50     bf16 rows of 32768 (16-byte loads), k 50, i64 indices
//   vocab_k1000   bf16 rows of 32768, k 1000: the buffer of 4096 slots is
//                 sorted whenever a step could overflow it
//   prime_lp      f32 rows of 1031 (one element per load), k 20, with
//                 log-probabilities
//   short_lp      f32 rows of 5, k 7: positions past the row
func.func @vocab_k50(%x: memref<6x32768xbf16>, %p: memref<6x50xf32>, %i: memref<6x50xi64>) attributes {llvm.emit_c_interface} {
  softmax.topk ins(%x : memref<6x32768xbf16>) outs(%p, %i : memref<6x50xf32>, memref<6x50xi64>) k(50)
  return
}
func.func @vocab_k1000(%x: memref<6x32768xbf16>, %p: memref<6x1000xf32>, %i: memref<6x1000xi64>) attributes {llvm.emit_c_interface} {
  softmax.topk ins(%x : memref<6x32768xbf16>) outs(%p, %i : memref<6x1000xf32>, memref<6x1000xi64>) k(1000)
  return
}
func.func @prime_lp(%x: memref<6x1031xf32>, %p: memref<6x20xf32>, %i: memref<6x20xi64>, %l: memref<6x20xf32>) attributes {llvm.emit_c_interface} {
  softmax.topk ins(%x : memref<6x1031xf32>) outs(%p, %i : memref<6x20xf32>, memref<6x20xi64>) log_probs(%l : memref<6x20xf32>) k(20)
  return
}
func.func @short_lp(%x: memref<6x5xf32>, %p: memref<6x7xf32>, %i: memref<6x7xi64>, %l: memref<6x7xf32>) attributes {llvm.emit_c_interface} {
  softmax.topk ins(%x : memref<6x5xf32>) outs(%p, %i : memref<6x7xf32>, memref<6x7xi64>) log_probs(%l : memref<6x7xf32>) k(7)
  return
}
