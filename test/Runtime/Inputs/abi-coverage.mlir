// Host code that makes gpu-to-llvm and the offloading handler emit every
// mgpu* entry point they have apart from the cuSPARSE ones: module
// load/unload/get-function, both launch forms (with clusters, with dynamic
// shared memory), streams, events (a wait on two streams), device and
// host-shared allocation and free, memcpy, 16- and 32-bit memset, host
// (un)registration and set_default_device. Target-neutral.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @touch(%buf: memref<?xf32>) kernel {
      gpu.return
    }
  }

  func.func @everything(%host: memref<?xf32>, %unranked: memref<*xf32>,
                        %device: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %f1 = arith.constant 1.0 : f32
    %h1 = arith.constant 1 : i16
    %smem = arith.constant 1024 : i32
    gpu.set_default_device %device
    %n = memref.dim %host, %c0 : memref<?xf32>
    %t0 = gpu.wait async
    %dev, %t1 = gpu.alloc async [%t0] (%n) : memref<?xf32>
    %shared = gpu.alloc host_shared (%n) : memref<?xi16>
    %t2 = gpu.memset async [%t1] %dev, %f1 : memref<?xf32>, f32
    %t3 = gpu.memset async [%t2] %shared, %h1 : memref<?xi16>, i16
    %t4 = gpu.memcpy async [%t3] %dev, %host : memref<?xf32>, memref<?xf32>
    %t5 = gpu.launch_func async [%t4] @kernels::@touch
        clusters in (%c2, %c1, %c1)
        blocks in (%c2, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%dev : memref<?xf32>)
    %s0 = gpu.wait async
    %t6 = gpu.launch_func async [%s0] @kernels::@touch
        blocks in (%c2, %c1, %c1) threads in (%c1, %c1, %c1)
        dynamic_shared_memory_size %smem
        args(%dev : memref<?xf32>)
    // Joining two streams records an event on each and waits on both.
    %t7 = gpu.wait async [%t5, %t6]
    %t8 = gpu.dealloc async [%t7] %dev : memref<?xf32>
    gpu.wait [%t8]
    %s1 = gpu.wait async
    %t9 = gpu.dealloc async [%s1] %shared : memref<?xi16>
    gpu.wait [%t9]
    gpu.host_register %unranked : memref<*xf32>
    gpu.host_unregister %unranked : memref<*xf32>
    return
  }
}
