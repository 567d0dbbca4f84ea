// An option value a pipeline cannot honour is an error that names it, never
// a fatal error or a malformed pipeline (the pipelines are built from pass
// constructors, so no value can break their text).
// RUN: not softmax-opt %s --softmax-to-cpu="three-pass=fastest" 2>&1 | FileCheck %s --check-prefix=THREEPASS
// RUN: not softmax-opt %s --softmax-to-cpu="threads=-1" 2>&1 | FileCheck %s --check-prefix=THREADS
// 2^32 threads wrapped to 0 (the runtime's choice) in convert-scf-to-openmp.
// RUN: not softmax-opt %s --softmax-to-cpu="threads=4294967296" 2>&1 | FileCheck %s --check-prefix=BIGTHREADS
// RUN: not softmax-opt %s --pass-pipeline="builtin.module(softmax-to-cpu{threads=4294967296})" 2>&1 | FileCheck %s --check-prefix=BIGTHREADS
// PTX features: one +ptxNN that LLVM knows and the chip accepts (+ptx60
// was a fatal LLVM error for sm_90; a bogus one only a warning).
// RUN: not softmax-opt %s --softmax-to-nvvm="features=+ptx60" 2>&1 | FileCheck %s --check-prefix=PTX60
// RUN: not softmax-opt %s --softmax-to-nvvm="features=+ptx75" 2>&1 | FileCheck %s --check-prefix=OLDPTX
// RUN: not softmax-opt %s --softmax-to-nvvm="chip=sm_90a features=+ptx78" 2>&1 | FileCheck %s --check-prefix=OLDPTX90A
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_80 features=+ptx75 format=isa" | FileCheck %s --check-prefix=PTX75
// RUN: not softmax-opt %s --softmax-to-nvvm="features=bogus" 2>&1 | FileCheck %s --check-prefix=BOGUSPTX
// RUN: not softmax-opt %s --softmax-to-nvvm="features=+ptx99" 2>&1 | FileCheck %s --check-prefix=UNKNOWNPTX
// RUN: softmax-opt %s --softmax-to-nvvm="features=+ptx78 format=isa" | FileCheck %s --check-prefix=PTX78
// A toolkit that is not a directory (upstream printed an error and exited 0).
// RUN: not softmax-opt %s --pass-pipeline="builtin.module(softmax-to-nvvm{toolkit='/no such dir'})" 2>&1 | FileCheck %s --check-prefix=TOOLKIT
// RUN: not softmax-opt %s --pass-pipeline="builtin.module(softmax-to-rocdl{toolkit='/no such dir'})" 2>&1 | FileCheck %s --check-prefix=ROCTOOLKIT
// PTX60: error: softmax-to-nvvm: features must be one PTX version, +ptxNN (+ptx70 to +ptx90), not '+ptx60'
// OLDPTX: error: softmax-to-nvvm: features +ptx75 is below PTX 7.8, the oldest that sm_90 accepts
// OLDPTX90A: error: softmax-to-nvvm: features +ptx78 is below PTX 8.0, the oldest that sm_90a accepts
// PTX75: chip = "sm_80", features = "+ptx75"
// BOGUSPTX: error: softmax-to-nvvm: features must be one PTX version, +ptxNN (+ptx70 to +ptx90), not 'bogus'
// UNKNOWNPTX: error: softmax-to-nvvm: features must be one PTX version, +ptxNN (+ptx70 to +ptx90), not '+ptx99'
// PTX78: features = "+ptx78"
// TOOLKIT: error: softmax-to-nvvm: toolkit '/no such dir' is not a directory
// ROCTOOLKIT: error: softmax-to-rocdl: toolkit '/no such dir' is not a directory
// threads on the scalar path (vector-width=0) was silently ignored: its
// loops come from linalg, now as scf.parallel for OpenMP.
// RUN: softmax-opt %s --softmax-to-cpu="threads=2 vector-width=0" | FileCheck %s --check-prefix=SCALAR-THREADS
// SCALAR-THREADS: omp.parallel
// RUN: not softmax-opt %s --softmax-to-cpu="vector-width=-4" 2>&1 | FileCheck %s --check-prefix=WIDTH
// RUN: not softmax-opt %s --softmax-to-cpu="reduction-tile-size=-8" 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not softmax-opt %s --softmax-to-cpu="vector-width=wide" 2>&1 | FileCheck %s --check-prefix=PARSE
// RUN: not softmax-opt %s --softmax-to-cpu="exp=libm" 2>&1 | FileCheck %s --check-prefix=EXP
// RUN: not softmax-opt %s --softmax-to-cpu="lanes=8" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not softmax-opt %s --softmax-to-nvvm="chip=gfx942" 2>&1 | FileCheck %s --check-prefix=NVCHIP
// RUN: not softmax-opt %s --softmax-to-nvvm="chip=sm_75" 2>&1 | FileCheck %s --check-prefix=OLDCHIP
// RUN: not softmax-opt %s --softmax-to-rocdl="chip=sm_90" 2>&1 | FileCheck %s --check-prefix=AMDCHIP
// RUN: not softmax-opt %s --softmax-to-nvvm="format=ptx" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not softmax-opt %s --softmax-to-rocdl="features=+ptx80" 2>&1 | FileCheck %s --check-prefix=FEATURES
// RUN: not softmax-opt %s --softmax-to-rocdl="cache-hints=false" 2>&1 | FileCheck %s --check-prefix=CACHEHINTS
// RUN: not softmax-opt %s --softmax-to-nvvm="attention-f32-precision=fast" 2>&1 | FileCheck %s --check-prefix=PRECISION
// RUN: not softmax-opt %s --softmax-to-rocdl="attention-f32-precision=tf32" 2>&1 | FileCheck %s --check-prefix=ROCDLTF32
// RUN: not softmax-opt %s --pass-pipeline="builtin.module(softmax-to-cpu{three-pass=fastest})" 2>&1 | FileCheck %s --check-prefix=THREEPASS
// The -after-mapping tails check the options they read as their pipelines
// do, and refuse those of the stages before them (a silent no-op there).
// RUN: not softmax-opt %s --softmax-to-cpu-after-mapping="threads=-1" 2>&1 | FileCheck %s --check-prefix=AFTER-THREADS
// RUN: not softmax-opt %s --softmax-to-cpu-after-mapping="vector-width=8" 2>&1 | FileCheck %s --check-prefix=AFTER-WIDTH
// RUN: not softmax-opt %s --softmax-to-cpu-after-mapping="reduction-tile-size=4" 2>&1 | FileCheck %s --check-prefix=AFTER-TILE
// RUN: not softmax-opt %s --softmax-to-nvvm-after-mapping="chip=gfx942" 2>&1 | FileCheck %s --check-prefix=AFTER-NVCHIP
// RUN: not softmax-opt %s --softmax-to-rocdl-after-mapping="attention-f32-precision=exact" 2>&1 | FileCheck %s --check-prefix=AFTER-PRECISION
// RUN: not softmax-opt %s --softmax-to-nvvm-after-mapping="format=ptx" 2>&1 | FileCheck %s --check-prefix=AFTER-FORMAT

// THREEPASS: error: softmax-to-cpu: three-pass must be auto, recompute, reload or tiled, not 'fastest'
// THREADS: error: softmax-to-cpu: threads must be 0 (the OpenMP runtime chooses) or from 1 to 65536, not -1
// BIGTHREADS: error: softmax-to-cpu: threads must be 0 (the OpenMP runtime chooses) or from 1 to 65536, not 4294967296
// WIDTH: error: softmax-to-cpu: vector-width must be -1 (the host's width), 0 (no vector mapping) or a number of lanes, not -4
// TILE: error: softmax-to-cpu: reduction-tile-size must be 0 (no tiling) or a tile size, not -8
// PARSE: error: softmax-to-cpu: invalid options 'vector-width=wide'
// EXP: error: softmax-to-cpu: exp must be fast or polynomial, not 'libm'
// UNKNOWN: error: softmax-to-cpu: invalid options 'lanes=8': <Pass-Options-Parser>: no such option lanes
// NVCHIP: error: softmax-to-nvvm: chip 'gfx942' is not an NVIDIA chip (use softmax-to-rocdl for it)
// OLDCHIP: error: softmax-to-nvvm: chip 'sm_75' is not a supported target (expected sm_80, sm_90 or sm_90a)
// AMDCHIP: error: softmax-to-rocdl: chip 'sm_90' is not an AMD chip (use softmax-to-nvvm for it)
// FORMAT: error: softmax-to-nvvm: format must be isa or bin (or fatbin, llvm, offloading), not 'ptx'
// FEATURES: error: softmax-to-rocdl: features is an NVVM option (PTX features); the ROCDL end takes none
// CACHEHINTS: error: softmax-to-rocdl: cache-hints is an NVVM option (PTX's .cs accesses); the ROCDL end takes none
// PRECISION: error: softmax-to-nvvm: attention-f32-precision must be exact or tf32, not 'fast'
// ROCDLTF32: error: softmax-to-rocdl: attention-f32-precision=tf32 needs NVIDIA tf32 tensor cores; the ROCDL end has no f32 attention
// AFTER-THREADS: error: softmax-to-cpu-after-mapping: threads must be 0 (the OpenMP runtime chooses) or from 1 to 65536, not -1
// AFTER-WIDTH: error: softmax-to-cpu-after-mapping: vector-width is an option of the stages up to the mapping (softmax-to-cpu, softmax-map-to-cpu, transform.softmax.map_to_cpu), not of the passes after it
// AFTER-TILE: error: softmax-to-cpu-after-mapping: reduction-tile-size is an option of the stages up to the mapping
// AFTER-NVCHIP: error: softmax-to-nvvm-after-mapping: chip 'gfx942' is not an NVIDIA chip (use softmax-to-rocdl-after-mapping for it)
// AFTER-PRECISION: error: softmax-to-rocdl-after-mapping: attention-f32-precision is an option of the mapping (softmax-to-rocdl, softmax-map-to-gpu, transform.softmax.map_to_gpu), not of the passes after it
// AFTER-FORMAT: error: softmax-to-nvvm-after-mapping: format must be isa or bin (or fatbin, llvm, offloading), not 'ptx'

func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %y = softmax.softmax ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) dimension(1) masked(zero)
  return %y : tensor<4x8xf32>
}
