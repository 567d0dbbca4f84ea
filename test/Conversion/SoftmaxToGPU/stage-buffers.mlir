// RUN: softmax-opt %s --softmax-map-to-gpu --softmax-stage-gpu-buffers | FileCheck %s

memref.global "private" constant @input : memref<4x8xf32> = dense<1.0>

// The module's own buffers become host_shared; a global read by a kernel
// is copied into one, freed after the launch; arguments stay as they are.
// CHECK-LABEL: func @f
// CHECK-SAME: (%[[ARG:.*]]: memref<4x8xf32>)
// CHECK: %[[G:.*]] = memref.get_global @input : memref<4x8xf32>
// CHECK: %[[Y:.*]] = gpu.alloc  host_shared () : memref<4x8xf32>
// CHECK: %[[C:.*]] = gpu.alloc  host_shared () : memref<4x8xf32>
// CHECK: memref.copy %[[G]], %[[C]] : memref<4x8xf32> to memref<4x8xf32>
// CHECK: gpu.launch
// CHECK:   vector.load %[[C]]
// CHECK:   vector.store %{{.*}}, %[[Y]]
// CHECK: %[[T0:.*]] = gpu.wait async
// CHECK: %[[T1:.*]] = gpu.dealloc async [%[[T0]]] %[[C]]
// CHECK: gpu.wait [%[[T1]]]
// CHECK: gpu.launch
// CHECK:   vector.load %[[ARG]]
// CHECK: %[[T2:.*]] = gpu.wait async
// CHECK: gpu.dealloc async [%[[T2]]] %[[Y]]
// CHECK-NOT: memref.alloc
func.func @f(%arg: memref<4x8xf32>) {
  %g = memref.get_global @input : memref<4x8xf32>
  %y = memref.alloc() : memref<4x8xf32>
  softmax.softmax ins(%g : memref<4x8xf32>) outs(%y : memref<4x8xf32>) dimension(1) masked(zero) algorithm(online)
  softmax.softmax ins(%arg : memref<4x8xf32>) outs(%y : memref<4x8xf32>) dimension(1) masked(zero) algorithm(online)
  memref.dealloc %y : memref<4x8xf32>
  return
}
