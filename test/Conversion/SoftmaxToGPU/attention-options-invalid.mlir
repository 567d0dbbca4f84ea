// RUN: not softmax-opt %s --softmax-map-to-gpu="chip=sm_90 attention-rows-per-warp=24" 2>&1 | FileCheck %s --check-prefix=ROWS
// RUN: not softmax-opt %s --softmax-map-to-gpu="chip=gfx942 attention-rows-per-warp=32" 2>&1 | FileCheck %s --check-prefix=ROWS-CDNA
// RUN: not softmax-opt %s --softmax-map-to-gpu="chip=sm_90 attention-buffers=4" 2>&1 | FileCheck %s --check-prefix=BUFS
// RUN: not softmax-opt %s --softmax-map-to-gpu="chip=gfx90a attention-buffers=2" 2>&1 | FileCheck %s --check-prefix=BUFS-CDNA
// RUN: not softmax-opt %s --softmax-map-to-gpu="chip=sm_90 attention-key-splits=2000" 2>&1 | FileCheck %s --check-prefix=SPLITS
// RUN: not softmax-opt %s --softmax-map-to-gpu="chip=sm_90 attention-packed-heads=-1" 2>&1 | FileCheck %s --check-prefix=PACKED
// RUN: not softmax-opt %s --softmax-to-nvvm="attention-key-splits=5000" 2>&1 | FileCheck %s --check-prefix=PIPE
// RUN: not softmax-opt %s --softmax-map-to-gpu="chip=sm_90 attention-stream-k=5000" 2>&1 | FileCheck %s --check-prefix=STREAM
// RUN: not softmax-opt %s --softmax-to-nvvm="attention-stream-k=-2" 2>&1 | FileCheck %s --check-prefix=STREAM-PIPE
// RUN: not softmax-opt %s --softmax-to-nvvm-after-mapping="attention-stream-k=4" 2>&1 | FileCheck %s --check-prefix=STREAM-AFTER
// RUN: not softmax-opt %s --softmax-to-nvvm-after-mapping="attention-key-splits=4" 2>&1 | FileCheck %s --check-prefix=AFTER
// The attention strategy options take only what the kernels can honour; a
// value outside that is an error, never replaced by another: outside any
// target's range at the option (OptionRange), outside this target's at the
// op.
// ROWS: error: softmax-map-to-gpu: attention-rows-per-warp must be 0 (the measured default) or a power of two from 16 to 32, not 24
// ROWS-CDNA: error: 'softmax.attention' op attention-rows-per-warp must be 16 on CDNA (32 is NVIDIA only), not 32
// BUFS: error: softmax-map-to-gpu: attention-buffers must be 0 (the measured default) or from 1 to 3, not 4
// BUFS-CDNA: error: 'softmax.attention' op attention-buffers must be 1 on CDNA (2 and 3 need asynchronous copies), not 2
// SPLITS: error: softmax-map-to-gpu: attention-key-splits must be 0 (the cost model's) or from 1 to 1024, not 2000
// PACKED: error: softmax-map-to-gpu: attention-packed-heads must be 0 (the mapping's choice) or from 1 to 1024, not -1
// PIPE: error: softmax-to-nvvm: attention-key-splits must be 0 (the cost model's) or from 1 to 1024, not 5000
// STREAM: error: softmax-map-to-gpu: attention-stream-k must be 0 (the mapping's choice) or from 1 to 4096, not 5000
// STREAM-PIPE: error: softmax-to-nvvm: attention-stream-k must be 0 (the mapping's choice) or from 1 to 4096, not -2
// STREAM-AFTER: error: softmax-to-nvvm-after-mapping: attention-stream-k is an option of the mapping (softmax-to-nvvm, softmax-map-to-gpu, transform.softmax.map_to_gpu), not of the passes after it
// AFTER: error: softmax-to-nvvm-after-mapping: attention-key-splits is an option of the mapping (softmax-to-nvvm, softmax-map-to-gpu, transform.softmax.map_to_gpu), not of the passes after it
func.func @f(%q: memref<1x2x64x64xbf16>, %k: memref<1x2x64x64xbf16>, %v: memref<1x2x64x64xbf16>, %o: memref<1x2x64x64xbf16>) {
  softmax.attention ins(%q, %k, %v : memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>, memref<1x2x64x64xbf16>) outs(%o : memref<1x2x64x64xbf16>) masked(zero)
  return
}
