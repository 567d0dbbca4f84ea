// split_merge = cluster is refused where it cannot run: a cluster holds at
// most 16 blocks on sm_90, and sm_80 and CDNA have no clusters.
// RUN: softmax-opt %s --softmax-map-to-gpu="chip=sm_90" -split-input-file -verify-diagnostics
// RUN: not softmax-opt %s --softmax-map-to-gpu="chip=sm_80" -split-input-file 2>&1 | FileCheck %s --check-prefix=NOCLUSTER -DCHIP=sm_80
// RUN: not softmax-opt %s --softmax-map-to-gpu="chip=gfx942" -split-input-file 2>&1 | FileCheck %s --check-prefix=NOCLUSTER -DCHIP=gfx942
// RUN: not softmax-opt %s --softmax-map-to-gpu="chip=sm_90 split-merge=dsmem" 2>&1 | FileCheck %s --check-prefix=OPTION

// NOCLUSTER: error: 'softmax.softmax' op split_merge = cluster needs thread-block clusters (NVIDIA sm_90 and later), which [[CHIP]] does not have
// OPTION: error: softmax-map-to-gpu: split-merge must be global or cluster, not 'dsmem'

func.func @too_many_splits(%x: memref<8x1000003xbf16>, %y: memref<8x1000003xbf16>) {
  // expected-error @+1 {{splits (32) exceed the 16 blocks of a cluster on sm_90; ask for split_merge = global}}
  softmax.softmax ins(%x : memref<8x1000003xbf16>) outs(%y : memref<8x1000003xbf16>)
      dimension(1) masked(zero) algorithm(online)
      {softmax.strategy = #softmax.gpu_strategy<split_merge = cluster>}
  return
}
