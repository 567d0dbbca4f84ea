// RUN: softmax-opt %s --softmax-map-to-gpu=chip=sm_90 -split-input-file -verify-diagnostics

// Packing needs the query rows of one head per tile where a mask, a window
// or a threshold is given; a request for it is refused, never dropped.
func.func @pack_with_mask(%q: memref<1x8x1x64xbf16>, %k: memref<1x2x300x64xbf16>, %m: memref<1x8x1x300xf32>, %o: memref<1x8x1x64xbf16>) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping packs query heads (4 asked for) only without a mask operand (its rows belong to one head each)}}
  softmax.attention ins(%q, %k, %k, %m : memref<1x8x1x64xbf16>, memref<1x2x300x64xbf16>, memref<1x2x300x64xbf16>, memref<1x8x1x300xf32>) outs(%o : memref<1x8x1x64xbf16>) masked(zero) {softmax.strategy = #softmax.attention_gpu_strategy<packed_heads = 4>}
  return
}

// -----

// Two query rows in a tile of 16: the tile's rows would span heads.
func.func @pack_with_threshold(%q: memref<1x8x2x64xbf16>, %k: memref<1x2x300x64xbf16>, %o: memref<1x8x2x64xbf16>, %t: f32) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping packs query heads (2 asked for) only without a skip threshold whose query tiles hold several rows of one head (tile [1, 64], or one query row, packs)}}
  softmax.attention ins(%q, %k, %k : memref<1x8x2x64xbf16>, memref<1x2x300x64xbf16>, memref<1x2x300x64xbf16>) outs(%o : memref<1x8x2x64xbf16>) masked(zero) skip(lambda %t : f32, tile [16, 64]) {softmax.strategy = #softmax.attention_gpu_strategy<packed_heads = 2>}
  return
}

// -----

func.func @pack_dynamic_heads(%q: memref<1x?x1x64xbf16>, %k: memref<1x2x300x64xbf16>, %o: memref<1x?x1x64xbf16>) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping packs query heads (4 asked for) only without dynamic query or KV head counts}}
  softmax.attention ins(%q, %k, %k : memref<1x?x1x64xbf16>, memref<1x2x300x64xbf16>, memref<1x2x300x64xbf16>) outs(%o : memref<1x?x1x64xbf16>) masked(zero) {softmax.strategy = #softmax.attention_gpu_strategy<packed_heads = 4>}
  return
}

// -----

func.func @pack_not_dividing(%q: memref<1x8x1x64xbf16>, %k: memref<1x2x300x64xbf16>, %o: memref<1x8x1x64xbf16>) {
  // expected-error @+1 {{'softmax.attention' op packed heads (3) must divide the 4 query heads of each KV head}}
  softmax.attention ins(%q, %k, %k : memref<1x8x1x64xbf16>, memref<1x2x300x64xbf16>, memref<1x2x300x64xbf16>) outs(%o : memref<1x8x1x64xbf16>) masked(zero) {softmax.strategy = #softmax.attention_gpu_strategy<packed_heads = 3>}
  return
}

// -----

func.func @split_window(%q: memref<1x2x1x64xbf16>, %k: memref<1x2x300x64xbf16>, %o: memref<1x2x1x64xbf16>) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping does not split the keys of a windowed attention: a split's window would depend on its keys' global positions}}
  softmax.attention ins(%q, %k, %k : memref<1x2x1x64xbf16>, memref<1x2x300x64xbf16>, memref<1x2x300x64xbf16>) outs(%o : memref<1x2x1x64xbf16>) masked(zero) causal window(64) {softmax.strategy = #softmax.attention_gpu_strategy<key_splits = 2>}
  return
}

// -----

func.func @bad_request(%q: memref<1x2x1x64xbf16>, %k: memref<1x2x300x64xbf16>, %o: memref<1x2x1x64xbf16>) {
  // expected-error @+1 {{key_splits must be in [1, 1024], got 0}}
  softmax.attention ins(%q, %k, %k : memref<1x2x1x64xbf16>, memref<1x2x300x64xbf16>, memref<1x2x300x64xbf16>) outs(%o : memref<1x2x1x64xbf16>) masked(zero) {softmax.strategy = #softmax.attention_gpu_strategy<key_splits = 0>}
  return
}

// -----

// Stream-K cuts key tiles into chunks without regard to where an entry's
// keys sit: what depends on a key's global position is refused, never
// computed another way.
func.func @stream_k_window(%q: memref<2x8x1x64xbf16>, %k: memref<2x2x300x64xbf16>, %len: memref<2xi32>, %o: memref<2x8x1x64xbf16>) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping runs stream-K only without a window (its limits follow the keys' global positions)}}
  softmax.attention ins(%q, %k, %k : memref<2x8x1x64xbf16>, memref<2x2x300x64xbf16>, memref<2x2x300x64xbf16>) outs(%o : memref<2x8x1x64xbf16>) masked(zero) window(128) key_lengths(%len : memref<2xi32>) {softmax.strategy = #softmax.attention_gpu_strategy<stream_k = 8>}
  return
}

// -----

func.func @stream_k_threshold(%q: memref<2x8x1x64xbf16>, %k: memref<2x2x300x64xbf16>, %len: memref<2xi32>, %o: memref<2x8x1x64xbf16>, %t: f32) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping runs stream-K only without a skip threshold}}
  softmax.attention ins(%q, %k, %k : memref<2x8x1x64xbf16>, memref<2x2x300x64xbf16>, memref<2x2x300x64xbf16>) outs(%o : memref<2x8x1x64xbf16>) masked(zero) key_lengths(%len : memref<2xi32>) skip(lambda %t : f32, tile [16, 64]) {softmax.strategy = #softmax.attention_gpu_strategy<stream_k = 8>}
  return
}

// -----

func.func @stream_k_causal_rows(%q: memref<2x8x4x64xbf16>, %k: memref<2x2x300x64xbf16>, %len: memref<2xi32>, %o: memref<2x8x4x64xbf16>) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping runs stream-K only without causal with more than one query row (a piece would need the diagonal of its entry's last keys)}}
  softmax.attention ins(%q, %k, %k : memref<2x8x4x64xbf16>, memref<2x2x300x64xbf16>, memref<2x2x300x64xbf16>) outs(%o : memref<2x8x4x64xbf16>) masked(zero) causal key_lengths(%len : memref<2xi32>) {softmax.strategy = #softmax.attention_gpu_strategy<stream_k = 8>}
  return
}

// -----

func.func @stream_k_prefill(%q: memref<2x8x200x64xbf16>, %k: memref<2x2x300x64xbf16>, %o: memref<2x8x200x64xbf16>) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping runs stream-K only without more query rows than one block holds (a chunk is a run of key tiles of one query tile)}}
  softmax.attention ins(%q, %k, %k : memref<2x8x200x64xbf16>, memref<2x2x300x64xbf16>, memref<2x2x300x64xbf16>) outs(%o : memref<2x8x200x64xbf16>) masked(zero) {softmax.strategy = #softmax.attention_gpu_strategy<stream_k = 8>}
  return
}

// -----

func.func @stream_k_and_split(%q: memref<2x8x1x64xbf16>, %k: memref<2x2x300x64xbf16>, %len: memref<2xi32>, %o: memref<2x8x1x64xbf16>) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping takes stream-K (4 blocks per head group) or a key split (2), not both}}
  softmax.attention ins(%q, %k, %k : memref<2x8x1x64xbf16>, memref<2x2x300x64xbf16>, memref<2x2x300x64xbf16>) outs(%o : memref<2x8x1x64xbf16>) masked(zero) key_lengths(%len : memref<2xi32>) {softmax.strategy = #softmax.attention_gpu_strategy<key_splits = 2, stream_k = 4>}
  return
}

// -----

func.func @stream_k_unified(%q: memref<2x8x1x64xbf16>, %k: memref<2x2x300x64xbf16>, %len: memref<2xi32>, %o: memref<2x8x1x64xbf16>) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping runs stream-K only without a unified max}}
  softmax.attention ins(%q, %k, %k : memref<2x8x1x64xbf16>, memref<2x2x300x64xbf16>, memref<2x2x300x64xbf16>) outs(%o : memref<2x8x1x64xbf16>) masked(zero) key_lengths(%len : memref<2xi32>) algorithm(unified_max, phi = 4.0) {softmax.strategy = #softmax.attention_gpu_strategy<stream_k = 4>}
  return
}

// -----

func.func @stream_k_range(%q: memref<2x8x1x64xbf16>, %k: memref<2x2x300x64xbf16>, %o: memref<2x8x1x64xbf16>) {
  // expected-error @+1 {{stream_k must be in [1, 4096], got 5000}}
  softmax.attention ins(%q, %k, %k : memref<2x8x1x64xbf16>, memref<2x2x300x64xbf16>, memref<2x2x300x64xbf16>) outs(%o : memref<2x8x1x64xbf16>) masked(zero) {softmax.strategy = #softmax.attention_gpu_strategy<stream_k = 5000>}
  return
}

// -----

// K/V tiles by TMA are a request to honour or refuse: a paged cache's
// tiles gather pages, and ragged rows past a length are clamped by
// cp.async only.
func.func @tma_paged(%q: memref<8x32x1x128xbf16>, %k: memref<600x64x8x128xbf16>, %o: memref<8x32x1x128xbf16>, %len: memref<8xi32>, %pt: memref<8x64xi32>) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping copies K/V tiles by TMA only without a page table}}
  softmax.attention ins(%q, %k, %k : memref<8x32x1x128xbf16>, memref<600x64x8x128xbf16>, memref<600x64x8x128xbf16>) outs(%o : memref<8x32x1x128xbf16>) masked(zero) causal key_lengths(%len : memref<8xi32>) page_table(%pt : memref<8x64xi32>) {softmax.strategy = #softmax.attention_gpu_strategy<tile_copy = tma>}
  return
}

// -----

func.func @tma_ragged(%q: memref<8x32x1x128xbf16>, %k: memref<8x8x4096x128xbf16>, %o: memref<8x32x1x128xbf16>, %len: memref<8xi32>) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping copies K/V tiles by TMA only without key_lengths (rows past an entry's length are masked only after they are read)}}
  softmax.attention ins(%q, %k, %k : memref<8x32x1x128xbf16>, memref<8x8x4096x128xbf16>, memref<8x8x4096x128xbf16>) outs(%o : memref<8x32x1x128xbf16>) masked(zero) causal key_lengths(%len : memref<8xi32>) {softmax.strategy = #softmax.attention_gpu_strategy<tile_copy = tma>}
  return
}

// -----

func.func @tma_head_dim(%q: memref<1x4x1x96xbf16>, %k: memref<1x2x500x96xbf16>, %o: memref<1x4x1x96xbf16>) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping copies K/V tiles by TMA only for K and V with the identity layout and head dimensions that are multiples of 64}}
  softmax.attention ins(%q, %k, %k : memref<1x4x1x96xbf16>, memref<1x2x500x96xbf16>, memref<1x2x500x96xbf16>) outs(%o : memref<1x4x1x96xbf16>) masked(zero) {softmax.strategy = #softmax.attention_gpu_strategy<tile_copy = tma>}
  return
}

// -----

func.func @tma_f32(%q: memref<1x4x1x64xf32>, %k: memref<1x2x500x64xf32>, %o: memref<1x4x1x64xf32>) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping copies K/V tiles by TMA only for f16 and bf16 (its boxes are 128-byte rows of 64 elements)}}
  softmax.attention ins(%q, %k, %k : memref<1x4x1x64xf32>, memref<1x2x500x64xf32>, memref<1x2x500x64xf32>) outs(%o : memref<1x4x1x64xf32>) masked(zero) {softmax.strategy = #softmax.attention_gpu_strategy<tile_copy = tma>}
  return
}
