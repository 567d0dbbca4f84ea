// Decode attention on ragged and paged caches, lowered by softmax-to-nvvm
// for attention-decode-gpu.test: B 5, H 8, Hkv 2 (GQA), one query row,
// d 64, a cache of 300 keys per entry; the driver passes key counts 0, 1,
// 65, 300 and 131. Every buffer is device-accessible (managed memory).
//   stream_auto   the mapping's plan (stream-K for a ragged op)
//   stream_3      stream-K with 3 chunks per head group: chunks cross
//                 entries, entries cross chunks
//   split_4       plain split-KV, 4 splits
//   paged_stream  pages of 16 keys through a [5, 19] page table, stream-K
//   mask_stream   an additive f32 mask [5, 8, 1, 300] (no packing), stream-K
//   dense_tma     every key of the cache (no key_lengths): the plan, with
//                 K/V tiles by TMA (the last tile's rows past 300 arrive
//                 as zeros)
//   dense_tma_s7  the same in 7 splits (splits end mid-tile: their last
//                 tiles read the next split's rows, masked)
//   dense_tma_empty  K and V of no keys at all (a dynamic Nk of 0) by TMA:
//                 the tensor maps of empty tensors, every output row 0
!q = memref<5x8x1x64xbf16>
!kv = memref<5x2x300x64xbf16>
!pages = memref<95x16x2x64xbf16>
func.func @stream_auto(%q: !q, %k: !kv, %v: !kv, %len: memref<5xi32>, %o: !q) attributes {llvm.emit_c_interface} {
  softmax.attention ins(%q, %k, %v : !q, !kv, !kv) outs(%o : !q) masked(zero) causal key_lengths(%len : memref<5xi32>)
  return
}
func.func @stream_3(%q: !q, %k: !kv, %v: !kv, %len: memref<5xi32>, %o: !q) attributes {llvm.emit_c_interface} {
  softmax.attention ins(%q, %k, %v : !q, !kv, !kv) outs(%o : !q) masked(zero) key_lengths(%len : memref<5xi32>) {softmax.strategy = #softmax.attention_gpu_strategy<stream_k = 3>}
  return
}
func.func @split_4(%q: !q, %k: !kv, %v: !kv, %len: memref<5xi32>, %o: !q) attributes {llvm.emit_c_interface} {
  softmax.attention ins(%q, %k, %v : !q, !kv, !kv) outs(%o : !q) masked(zero) key_lengths(%len : memref<5xi32>) {softmax.strategy = #softmax.attention_gpu_strategy<key_splits = 4>}
  return
}
func.func @paged_stream(%q: !q, %k: !pages, %v: !pages, %len: memref<5xi32>, %pt: memref<5x19xi32>, %o: !q) attributes {llvm.emit_c_interface} {
  softmax.attention ins(%q, %k, %v : !q, !pages, !pages) outs(%o : !q) masked(zero) key_lengths(%len : memref<5xi32>) page_table(%pt : memref<5x19xi32>)
  return
}
func.func @mask_stream(%q: !q, %k: !kv, %v: !kv, %m: memref<5x8x1x300xf32>, %len: memref<5xi32>, %o: !q) attributes {llvm.emit_c_interface} {
  softmax.attention ins(%q, %k, %v, %m : !q, !kv, !kv, memref<5x8x1x300xf32>) outs(%o : !q) masked(zero) key_lengths(%len : memref<5xi32>) {softmax.strategy = #softmax.attention_gpu_strategy<stream_k = 3>}
  return
}
func.func @dense_tma(%q: !q, %k: !kv, %v: !kv, %o: !q) attributes {llvm.emit_c_interface} {
  softmax.attention ins(%q, %k, %v : !q, !kv, !kv) outs(%o : !q) masked(zero) {softmax.strategy = #softmax.attention_gpu_strategy<tile_copy = tma>}
  return
}
func.func @dense_tma_empty(%q: !q, %k: memref<5x2x?x64xbf16>, %v: memref<5x2x?x64xbf16>, %o: !q) attributes {llvm.emit_c_interface} {
  softmax.attention ins(%q, %k, %v : !q, memref<5x2x?x64xbf16>, memref<5x2x?x64xbf16>) outs(%o : !q) masked(zero) {softmax.strategy = #softmax.attention_gpu_strategy<tile_copy = tma>}
  return
}
func.func @dense_tma_s7(%q: !q, %k: !kv, %v: !kv, %o: !q) attributes {llvm.emit_c_interface} {
  softmax.attention ins(%q, %k, %v : !q, !kv, !kv) outs(%o : !q) masked(zero) {softmax.strategy = #softmax.attention_gpu_strategy<key_splits = 7, tile_copy = tma>}
  return
}
