// Host code for the runtime tests: adds 1.0 to every element of a buffer on
// the GPU. Target-neutral: the RUN lines attach an NVVM or ROCDL target.
//
//   add_one_host(memref)   host buffer: alloc, copy in, launch, copy out, free
//                          on one stream, then wait (synchronous)
//   add_one_device(memref) device buffer: launch only, then wait (the shape
//                          of a kernel library called with framework tensors;
//                          with a stream override it returns once enqueued)
//
// Both use gpu.launch, so the pipeline outlines the kernels. The launches are
// written out in each function: gpu-to-llvm turns an !gpu.async.token that
// crosses a func.call into an event, and then waits on a stream handle as if
// it were one (mgpuEventSynchronize on a CUstream).
module attributes {gpu.container_module} {
  func.func @add_one_host(%host: memref<?xf32>)
      attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c127 = arith.constant 127 : index
    %c128 = arith.constant 128 : index
    %one = arith.constant 1.0 : f32
    %n = memref.dim %host, %c0 : memref<?xf32>
    %rounded = arith.addi %n, %c127 : index
    %blocks = arith.divui %rounded, %c128 : index
    %t0 = gpu.wait async
    %dev, %t1 = gpu.alloc async [%t0] (%n) : memref<?xf32>
    %t2 = gpu.memcpy async [%t1] %dev, %host : memref<?xf32>, memref<?xf32>
    %t3 = gpu.launch async [%t2]
        blocks(%bx, %by, %bz) in (%gx = %blocks, %gy = %c1, %gz = %c1)
        threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
      %base = arith.muli %bx, %c128 : index
      %i = arith.addi %base, %tx : index
      %inside = arith.cmpi ult, %i, %n : index
      scf.if %inside {
        %v = memref.load %dev[%i] : memref<?xf32>
        %w = arith.addf %v, %one : f32
        memref.store %w, %dev[%i] : memref<?xf32>
      }
      gpu.terminator
    }
    %t4 = gpu.memcpy async [%t3] %host, %dev : memref<?xf32>, memref<?xf32>
    %t5 = gpu.dealloc async [%t4] %dev : memref<?xf32>
    gpu.wait [%t5]
    return
  }

  func.func @add_one_device(%buf: memref<?xf32>)
      attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c127 = arith.constant 127 : index
    %c128 = arith.constant 128 : index
    %one = arith.constant 1.0 : f32
    %n = memref.dim %buf, %c0 : memref<?xf32>
    %rounded = arith.addi %n, %c127 : index
    %blocks = arith.divui %rounded, %c128 : index
    %t0 = gpu.wait async
    %t1 = gpu.launch async [%t0]
        blocks(%bx, %by, %bz) in (%gx = %blocks, %gy = %c1, %gz = %c1)
        threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
      %base = arith.muli %bx, %c128 : index
      %i = arith.addi %base, %tx : index
      %inside = arith.cmpi ult, %i, %n : index
      scf.if %inside {
        %v = memref.load %buf[%i] : memref<?xf32>
        %w = arith.addf %v, %one : f32
        memref.store %w, %buf[%i] : memref<?xf32>
      }
      gpu.terminator
    }
    gpu.wait [%t1]
    return
  }
}
