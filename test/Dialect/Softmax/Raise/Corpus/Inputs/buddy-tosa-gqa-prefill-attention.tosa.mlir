// Input to buddy-tosa-gqa-prefill-attention.mlir: buddy-compiler/buddy-mlir@080e518cb5912bf6a1d63e1bc814359a30c2f3e4:examples/BuddyTransformer/subgraph0_timed.mlir (subgraph0, the attention block (%36 .. %99)), edited (see ../SOURCES.md).
// Converted with: mlir-opt --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor,convert-elementwise-to-linalg))'
func.func @buddy_gqa_prefill_attention(%23: tensor<1x13x96xf32>, %29: tensor<1x13x32xf32>, %35: tensor<1x13x32xf32>, %arg6: tensor<1x13xi64>) -> tensor<1x13x96xf32> {
    %36 = tosa.const_shape  {values = dense<[1, 13, 6, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %37 = tosa.reshape %23, %36 : (tensor<1x13x96xf32>, !tosa.shape<4>) -> tensor<1x13x6x16xf32>
    %38 = tosa.transpose %37 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x13x6x16xf32>) -> tensor<1x6x13x16xf32>
    %39 = tosa.const_shape  {values = dense<[1, 13, 2, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %40 = tosa.reshape %29, %39 : (tensor<1x13x32xf32>, !tosa.shape<4>) -> tensor<1x13x2x16xf32>
    %41 = tosa.transpose %40 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x13x2x16xf32>) -> tensor<1x2x13x16xf32>
    %42 = tosa.const_shape  {values = dense<[1, 13, 2, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %43 = tosa.reshape %35, %42 : (tensor<1x13x32xf32>, !tosa.shape<4>) -> tensor<1x13x2x16xf32>
    %44 = tosa.transpose %43 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x13x2x16xf32>) -> tensor<1x2x13x16xf32>
    %45 = tosa.const_shape  {values = dense<[1, 2, 1, 13, 16]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %46 = tosa.reshape %41, %45 : (tensor<1x2x13x16xf32>, !tosa.shape<5>) -> tensor<1x2x1x13x16xf32>
    %47 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1x2x3x13x16xf32>}> : () -> tensor<1x2x3x13x16xf32>
    %48 = tosa.add %46, %47 : (tensor<1x2x1x13x16xf32>, tensor<1x2x3x13x16xf32>) -> tensor<1x2x3x13x16xf32>
    %49 = tosa.const_shape  {values = dense<[1, 6, 13, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %50 = tosa.reshape %48, %49 : (tensor<1x2x3x13x16xf32>, !tosa.shape<4>) -> tensor<1x6x13x16xf32>
    %51 = tosa.const_shape  {values = dense<[1, 2, 1, 13, 16]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %52 = tosa.reshape %44, %51 : (tensor<1x2x13x16xf32>, !tosa.shape<5>) -> tensor<1x2x1x13x16xf32>
    %53 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1x2x3x13x16xf32>}> : () -> tensor<1x2x3x13x16xf32>
    %54 = tosa.add %52, %53 : (tensor<1x2x1x13x16xf32>, tensor<1x2x3x13x16xf32>) -> tensor<1x2x3x13x16xf32>
    %55 = tosa.const_shape  {values = dense<[1, 6, 13, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %56 = tosa.reshape %54, %55 : (tensor<1x2x3x13x16xf32>, !tosa.shape<4>) -> tensor<1x6x13x16xf32>
    %57 = tosa.transpose %50 {perms = array<i32: 0, 1, 3, 2>} : (tensor<1x6x13x16xf32>) -> tensor<1x6x16x13xf32>


    %58 = tosa.const_shape  {values = dense<[6, 13, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %59 = tosa.reshape %38, %58 : (tensor<1x6x13x16xf32>, !tosa.shape<3>) -> tensor<6x13x16xf32>
    %60 = tosa.const_shape  {values = dense<[6, 16, 13]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %61 = tosa.reshape %57, %60 : (tensor<1x6x16x13xf32>, !tosa.shape<3>) -> tensor<6x16x13xf32>
    %62 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
    %63 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
    %64 = tosa.matmul %59, %61, %62, %63 : (tensor<6x13x16xf32>, tensor<6x16x13xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<6x13x13xf32>
    %65 = tosa.const_shape  {values = dense<[1, 6, 13, 13]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %66 = tosa.reshape %64, %65 : (tensor<6x13x13xf32>, !tosa.shape<4>) -> tensor<1x6x13x13xf32>
    %cst_2 = arith.constant dense<0.0883883461> : tensor<1xf32>
    %67 = tosa.const_shape  {values = dense<1> : tensor<4xindex>} : () -> !tosa.shape<4>
    %68 = tosa.reshape %cst_2, %67 : (tensor<1xf32>, !tosa.shape<4>) -> tensor<1x1x1x1xf32>
    %69 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %70 = tosa.mul %66, %68, %69 : (tensor<1x6x13x13xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x6x13x13xf32>
    %71 = tosa.const_shape  {values = dense<[1, 1, 1, 13]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %72 = tosa.reshape %arg6, %71 : (tensor<1x13xi64>, !tosa.shape<4>) -> tensor<1x1x1x13xi64>
    %73 = tosa.cast %72 : (tensor<1x1x1x13xi64>) -> tensor<1x1x1x13xf32>
    %74 = "tosa.const"() <{values = dense<1.000000e+00> : tensor<1x1x1x13xf32>}> : () -> tensor<1x1x1x13xf32>
    %75 = tosa.sub %74, %73 : (tensor<1x1x1x13xf32>, tensor<1x1x1x13xf32>) -> tensor<1x1x1x13xf32>
    %cst_3 = arith.constant dense<-1.000000e+04> : tensor<1xf32>
    %76 = tosa.const_shape  {values = dense<1> : tensor<4xindex>} : () -> !tosa.shape<4>
    %77 = tosa.reshape %cst_3, %76 : (tensor<1xf32>, !tosa.shape<4>) -> tensor<1x1x1x1xf32>
    %78 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %79 = tosa.mul %75, %77, %78 : (tensor<1x1x1x13xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x1x1x13xf32>
    %80 = tosa.add %70, %79 : (tensor<1x6x13x13xf32>, tensor<1x1x1x13xf32>) -> tensor<1x6x13x13xf32>



    %81 = tosa.reduce_max %80 {axis = 3 : i32} : (tensor<1x6x13x13xf32>) -> tensor<1x6x13x1xf32>
    %82 = tosa.sub %80, %81 : (tensor<1x6x13x13xf32>, tensor<1x6x13x1xf32>) -> tensor<1x6x13x13xf32>
    %83 = tosa.exp %82 : (tensor<1x6x13x13xf32>) -> tensor<1x6x13x13xf32>
    %84 = tosa.reduce_sum %83 {axis = 3 : i32} : (tensor<1x6x13x13xf32>) -> tensor<1x6x13x1xf32>
    %85 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %86 = tosa.reciprocal %84 : (tensor<1x6x13x1xf32>) -> tensor<1x6x13x1xf32>
    %87 = tosa.mul %83, %86, %85 : (tensor<1x6x13x13xf32>, tensor<1x6x13x1xf32>, tensor<1xi8>) -> tensor<1x6x13x13xf32>



    %88 = tosa.const_shape  {values = dense<[6, 13, 13]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %89 = tosa.reshape %87, %88 : (tensor<1x6x13x13xf32>, !tosa.shape<3>) -> tensor<6x13x13xf32>
    %90 = tosa.const_shape  {values = dense<[6, 13, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %91 = tosa.reshape %56, %90 : (tensor<1x6x13x16xf32>, !tosa.shape<3>) -> tensor<6x13x16xf32>
    %92 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
    %93 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
    %94 = tosa.matmul %89, %91, %92, %93 : (tensor<6x13x13xf32>, tensor<6x13x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<6x13x16xf32>
    %95 = tosa.const_shape  {values = dense<[1, 6, 13, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %96 = tosa.reshape %94, %95 : (tensor<6x13x16xf32>, !tosa.shape<4>) -> tensor<1x6x13x16xf32>



    %97 = tosa.transpose %96 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x6x13x16xf32>) -> tensor<1x13x6x16xf32>
    %98 = tosa.const_shape  {values = dense<[1, 13, 96]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %99 = tosa.reshape %97, %98 : (tensor<1x13x6x16xf32>, !tosa.shape<3>) -> tensor<1x13x96xf32>
    return %99 : tensor<1x13x96xf32>
}
