// Streamed rows (cached_vectors = 0) lowered by softmax-to-nvvm for
// softmax-streamed-gpu.test (the driver is Inputs/softmax-streamed-main.cpp):
// 6 rows each, the second pass forward and backward (reread = reverse).
//   fwd_bf16       bf16 softmax rows of 128257 (odd: peeled), 4 vectors in
//                  flight, second pass forward
//   rev_bf16       the same, second pass backward
//   rev_log_bf16   bf16 log_softmax rows of 50257, backward
//   rev_split_f32  f32 softmax rows of 100003 over 8 blocks a row, each
//                  block's chunk read backward
//   rev_three_f32  f32 three_pass rows of 4099: max forward, sum backward,
//                  stores forward
// and, beside them, odd rows kept in registers (cached vectors: each
// vector's masked lanes from two bounds, loaded and stored with one mask):
//   cached_cluster_bf16  bf16 softmax rows of 50257 over 7 blocks merged in
//                        a cluster (the default for few such rows)
//   cached_global_bf16   the same merged through global memory
//   cached_log_f32       f32 log_softmax rows of 4097, one block a row
func.func @fwd_bf16(%x: memref<6x128257xbf16>, %y: memref<6x128257xbf16>) attributes {llvm.emit_c_interface} {
  softmax.softmax ins(%x : memref<6x128257xbf16>) outs(%y : memref<6x128257xbf16>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 1024, cached_vectors = 0, unroll = 4, splits = 1, reread = forward>}
  return
}
func.func @rev_bf16(%x: memref<6x128257xbf16>, %y: memref<6x128257xbf16>) attributes {llvm.emit_c_interface} {
  softmax.softmax ins(%x : memref<6x128257xbf16>) outs(%y : memref<6x128257xbf16>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 1024, cached_vectors = 0, unroll = 4, splits = 1, reread = reverse>}
  return
}
func.func @rev_log_bf16(%x: memref<6x50257xbf16>, %y: memref<6x50257xbf16>) attributes {llvm.emit_c_interface} {
  softmax.log_softmax ins(%x : memref<6x50257xbf16>) outs(%y : memref<6x50257xbf16>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 512, cached_vectors = 0, unroll = 2, splits = 1, reread = reverse>}
  return
}
func.func @rev_split_f32(%x: memref<6x100003xf32>, %y: memref<6x100003xf32>) attributes {llvm.emit_c_interface} {
  softmax.softmax ins(%x : memref<6x100003xf32>) outs(%y : memref<6x100003xf32>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 256, cached_vectors = 0, unroll = 2, splits = 8, reread = reverse>}
  return
}
func.func @rev_three_f32(%x: memref<6x4099xf32>, %y: memref<6x4099xf32>) attributes {llvm.emit_c_interface} {
  softmax.softmax ins(%x : memref<6x4099xf32>) outs(%y : memref<6x4099xf32>) dimension(1) masked(zero) algorithm(three_pass) {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 128, cached_vectors = 0, splits = 1, reread = reverse>}
  return
}
func.func @cached_cluster_bf16(%x: memref<6x50257xbf16>, %y: memref<6x50257xbf16>) attributes {llvm.emit_c_interface} {
  softmax.softmax ins(%x : memref<6x50257xbf16>) outs(%y : memref<6x50257xbf16>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 128, cached_vectors = 8, splits = 7, split_merge = cluster>}
  return
}
func.func @cached_global_bf16(%x: memref<6x50257xbf16>, %y: memref<6x50257xbf16>) attributes {llvm.emit_c_interface} {
  softmax.softmax ins(%x : memref<6x50257xbf16>) outs(%y : memref<6x50257xbf16>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 128, cached_vectors = 8, splits = 7, split_merge = global>}
  return
}
func.func @cached_log_f32(%x: memref<6x4097xf32>, %y: memref<6x4097xf32>) attributes {llvm.emit_c_interface} {
  softmax.log_softmax ins(%x : memref<6x4097xf32>) outs(%y : memref<6x4097xf32>) dimension(1) masked(zero) algorithm(online) {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 256, cached_vectors = 5, splits = 1>}
  return
}
