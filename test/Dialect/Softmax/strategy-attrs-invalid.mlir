// RUN: softmax-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{vector_width must be a power of two in [1, 64], got 12}}
func.func @cpu_width() attributes {softmax.strategy = #softmax.cpu_strategy<vector_width = 12>}

// -----

// expected-error @+1 {{vector_width must be a power of two in [1, 64], got 128}}
func.func @cpu_width_large() attributes {softmax.strategy = #softmax.cpu_strategy<vector_width = 128>}

// -----

// expected-error @+1 {{unroll must be in [1, 16], got 17}}
func.func @cpu_unroll() attributes {softmax.strategy = #softmax.cpu_strategy<unroll = 17>}

// -----

// expected-error @+1 {{block must be at least 1, got 0}}
func.func @cpu_block() attributes {softmax.strategy = #softmax.cpu_strategy<block = 0>}

// -----

// expected-error @+1 {{algorithm must be three_pass, online or exp_pair, not auto (leave it out to keep the op's)}}
func.func @cpu_auto() attributes {softmax.strategy = #softmax.cpu_strategy<algorithm = auto>}

// -----

// expected-error @+1 {{three_pass must be recompute, reload or tiled, not auto (leave it out for the heuristic's)}}
func.func @cpu_variant_auto() attributes {softmax.strategy = #softmax.cpu_strategy<three_pass = auto>}

// -----

// expected-error @+1 {{three_pass applies to algorithm three_pass only, not online}}
func.func @cpu_variant_online() attributes {softmax.strategy = #softmax.cpu_strategy<algorithm = online, three_pass = tiled>}

// -----

// expected-error @+2 {{expected ::mlir::softmax::VectorExp to be one of: fast, polynomial}}
// expected-error @+1 {{failed to parse Softmax_CPUStrategyAttr parameter 'exp'}}
func.func @cpu_exp() attributes {softmax.strategy = #softmax.cpu_strategy<exp = libm>}

// -----

// expected-error @+1 {{threads_per_row must be a power of two, got 96}}
func.func @gpu_threads() attributes {softmax.strategy = #softmax.gpu_strategy<threads_per_row = 96>}

// -----

// expected-error @+1 {{rows_per_block must be at least 1, got 0}}
func.func @gpu_rows() attributes {softmax.strategy = #softmax.gpu_strategy<rows_per_block = 0>}

// -----

// expected-error @+1 {{vector_width must be at least 1, got 0}}
func.func @gpu_width() attributes {softmax.strategy = #softmax.gpu_strategy<vector_width = 0>}

// -----

// expected-error @+1 {{cached_vectors must be at least 0, got -1}}
func.func @gpu_cached() attributes {softmax.strategy = #softmax.gpu_strategy<cached_vectors = -1>}

// -----

// expected-error @+1 {{unroll must be in [1, 16], got 0}}
func.func @gpu_unroll() attributes {softmax.strategy = #softmax.gpu_strategy<unroll = 0>}

// -----

// expected-error @+1 {{unroll must be in [1, 16], got 32}}
func.func @gpu_unroll_large() attributes {softmax.strategy = #softmax.gpu_strategy<unroll = 32>}

// -----

// expected-error @+1 {{splits must be at least 1, got 0}}
func.func @gpu_splits() attributes {softmax.strategy = #softmax.gpu_strategy<splits = 0>}

// -----

// An unknown field is the parser's error.
// expected-error @+1 {{duplicate or unknown struct parameter name: warps}}
func.func @gpu_unknown_field() attributes {softmax.strategy = #softmax.gpu_strategy<warps = 4>}

// -----

// expected-error @+1 {{vector_width must be a power of two in [1, 64], got 3}}
func.func @attention_cpu_width() attributes {softmax.strategy = #softmax.attention_cpu_strategy<vector_width = 3>}

// -----

// expected-error @+1 {{keys_per_block (16) must equal vector_width (8): the CPU kernel scores one key per lane}}
func.func @attention_cpu_keys() attributes {softmax.strategy = #softmax.attention_cpu_strategy<vector_width = 8, keys_per_block = 16>}

// -----

// expected-error @+1 {{rows_per_warp must be 16 or 32, got 64}}
func.func @attention_gpu_rows() attributes {softmax.strategy = #softmax.attention_gpu_strategy<rows_per_warp = 64>}

// -----

// expected-error @+1 {{buffers must be in [1, 3], got 4}}
func.func @attention_gpu_buffers() attributes {softmax.strategy = #softmax.attention_gpu_strategy<buffers = 4>}

// -----

// expected-error @+1 {{rows_per_block (48) must be a multiple of rows_per_warp (32)}}
func.func @attention_gpu_block() attributes {softmax.strategy = #softmax.attention_gpu_strategy<rows_per_warp = 32, rows_per_block = 48>}

// -----

// expected-error @+1 {{keys_per_tile must be a power of two, got 48}}
func.func @attention_gpu_tile() attributes {softmax.strategy = #softmax.attention_gpu_strategy<keys_per_tile = 48>}

// -----

// expected-error @+1 {{mfma16x16x16 (CDNA) runs 16 rows per warp and one buffer}}
func.func @attention_gpu_mfma() attributes {softmax.strategy = #softmax.attention_gpu_strategy<mma = mfma16x16x16, rows_per_warp = 32>}

// -----

// expected-error @+1 {{tile_copy = tma (NVIDIA sm_90) runs two buffers per tile}}
func.func @attention_gpu_tma_buffers() attributes {softmax.strategy = #softmax.attention_gpu_strategy<buffers = 1, tile_copy = tma>}

// -----

// expected-error @+1 {{skip_values = with_keys runs on TMA tiles (NVIDIA sm_90, two buffers per tile)}}
func.func @attention_gpu_skip_values_cp_async() attributes {softmax.strategy = #softmax.attention_gpu_strategy<tile_copy = cp_async, skip_values = with_keys>}

// -----

// expected-error @+2 {{expected ::mlir::softmax::SkipValues to be one of: after_vote, with_keys}}
// expected-error @+1 {{failed to parse Softmax_AttentionGPUStrategyAttr parameter 'skip_values'}}
func.func @attention_gpu_skip_values_name() attributes {softmax.strategy = #softmax.attention_gpu_strategy<skip_values = early>}

// -----

// expected-error @+2 {{expected ::mlir::softmax::TileCopy to be one of: cp_async, tma}}
// expected-error @+1 {{failed to parse Softmax_AttentionGPUStrategyAttr parameter 'tile_copy'}}
func.func @attention_gpu_tile_copy() attributes {softmax.strategy = #softmax.attention_gpu_strategy<tile_copy = bulk>}

// -----

// expected-error @+2 {{expected ::mlir::softmax::MatrixInstruction to be one of: m16n8k16, m16n8k8.tf32x3, m16n8k8.tf32, mfma16x16x16}}
// expected-error @+1 {{failed to parse Softmax_AttentionGPUStrategyAttr parameter 'mma'}}
func.func @attention_gpu_mma() attributes {softmax.strategy = #softmax.attention_gpu_strategy<mma = m16n8k4>}

// -----

// The dialect's one discardable attribute holds a strategy...
// expected-error @+1 {{'softmax.strategy' must be a strategy attribute, not {threads_per_row = 512 : i64}}}
func.func @not_a_strategy() attributes {softmax.strategy = {threads_per_row = 512}} {
  return
}

// -----

// ... under that name only, so that a misspelt request is never ignored.
// expected-error @+1 {{'softmax.gpu_strategy' is not an attribute of the softmax dialect (a strategy is 'softmax.strategy')}}
func.func @other_name() attributes {softmax.gpu_strategy = #softmax.gpu_strategy<threads_per_row = 512>} {
  return
}

// -----

// A softmax op takes a CPU or GPU strategy, attention an attention one.
func.func @softmax_attention_strategy(%x: memref<4x64xf32>, %y: memref<4x64xf32>) {
  // expected-error @+1 {{'softmax.softmax' op takes a #softmax.cpu_strategy or #softmax.gpu_strategy as 'softmax.strategy', not #softmax.attention_gpu_strategy<rows_per_warp = 16>}}
  softmax.softmax ins(%x : memref<4x64xf32>) outs(%y : memref<4x64xf32>) dimension(1) masked(zero) {softmax.strategy = #softmax.attention_gpu_strategy<rows_per_warp = 16>}
  return
}

// -----

func.func @attention_softmax_strategy(%q: memref<1x1x4x16xbf16>, %k: memref<1x1x8x16xbf16>, %v: memref<1x1x8x16xbf16>, %o: memref<1x1x4x16xbf16>) {
  // expected-error @+1 {{'softmax.attention' op takes a #softmax.attention_cpu_strategy or #softmax.attention_gpu_strategy as 'softmax.strategy', not #softmax.cpu_strategy<vector_width = 8>}}
  softmax.attention ins(%q, %k, %v : memref<1x1x4x16xbf16>, memref<1x1x8x16xbf16>, memref<1x1x8x16xbf16>) outs(%o : memref<1x1x4x16xbf16>) masked(zero) {softmax.strategy = #softmax.cpu_strategy<vector_width = 8>}
  return
}

// -----

// expected-error @+2 {{expected ::mlir::softmax::SplitMerge to be one of: global, cluster}}
// expected-error @+1 {{failed to parse Softmax_GPUStrategyAttr parameter 'split_merge'}}
func.func @gpu_split_merge() attributes {softmax.strategy = #softmax.gpu_strategy<split_merge = dsmem>}

// -----

// expected-error @+2 {{expected ::mlir::softmax::RereadOrder to be one of: forward, reverse}}
// expected-error @+1 {{failed to parse Softmax_GPUStrategyAttr parameter 'reread'}}
func.func @gpu_reread() attributes {softmax.strategy = #softmax.gpu_strategy<reread = backward>}
