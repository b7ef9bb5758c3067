module {
  func.func @mlp_step(%arg0: tensor<4x8xf32> {ckpt.role = #ckpt.role<input>}, %arg1: tensor<4xi64> {ckpt.role = #ckpt.role<input>}, %arg2: tensor<16x8xf32> {ckpt.role = #ckpt.role<param>}, %arg3: tensor<16xf32> {ckpt.role = #ckpt.role<param>}, %arg4: tensor<10x16xf32> {ckpt.role = #ckpt.role<param>}, %arg5: tensor<10xf32> {ckpt.role = #ckpt.role<param>}, %arg6: tensor<f32> {ckpt.role = #ckpt.role<seed>}) -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}, tensor<16x8xf32> {ckpt.grad_of = 2 : i64, ckpt.role = #ckpt.role<grad>}, tensor<16xf32> {ckpt.grad_of = 3 : i64, ckpt.role = #ckpt.role<grad>}, tensor<10x16xf32> {ckpt.grad_of = 4 : i64, ckpt.role = #ckpt.role<grad>}, tensor<10xf32> {ckpt.grad_of = 5 : i64, ckpt.role = #ckpt.role<grad>}) attributes {ckpt.step} {
    %0 = ckpt.linear fwd %arg0, %arg2, %arg3 : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
    %1 = ckpt.relu fwd %0 : tensor<4x16xf32>
    %2 = ckpt.linear fwd %1, %arg4, %arg5 : (tensor<4x16xf32>, tensor<10x16xf32>, tensor<10xf32>) -> tensor<4x10xf32>
    %loss, %lse = ckpt.cross_entropy fwd mean %2, %arg1 : (tensor<4x10xf32>, tensor<4xi64>) -> (tensor<f32>, tensor<4xf32>)
    %3 = ckpt.cross_entropy_grad bwd mean %arg6, %2, %arg1, %lse : (tensor<f32>, tensor<4x10xf32>, tensor<4xi64>, tensor<4xf32>) -> tensor<4x10xf32>
    %4 = ckpt.matmul bwd %3, %1 {transpose_lhs} : tensor<4x10xf32>, tensor<4x16xf32> -> tensor<10x16xf32>
    %5 = ckpt.reduce_sum bwd %3 axes [0] : tensor<4x10xf32> -> tensor<10xf32>
    %6 = ckpt.matmul bwd %3, %arg4 : tensor<4x10xf32>, tensor<10x16xf32> -> tensor<4x16xf32>
    %7 = ckpt.relu_grad bwd %6, %1 : tensor<4x16xf32>
    %8 = ckpt.matmul bwd %7, %arg0 {transpose_lhs} : tensor<4x16xf32>, tensor<4x8xf32> -> tensor<16x8xf32>
    %9 = ckpt.reduce_sum bwd %7 axes [0] : tensor<4x16xf32> -> tensor<16xf32>
    return %loss, %8, %9, %4, %5 : tensor<f32>, tensor<16x8xf32>, tensor<16xf32>, tensor<10x16xf32>, tensor<10xf32>
  }
}

