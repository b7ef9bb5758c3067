module {
  func.func @gpt_block_step(%arg0: tensor<2x16x64xbf16> {ckpt.role = #ckpt.role<input>}, %arg1: tensor<2x16x64xbf16> {ckpt.role = #ckpt.role<input>}, %arg2: tensor<64xbf16> {ckpt.role = #ckpt.role<param>}, %arg3: tensor<64xbf16> {ckpt.role = #ckpt.role<param>}, %arg4: tensor<192x64xbf16> {ckpt.role = #ckpt.role<param>}, %arg5: tensor<192xbf16> {ckpt.role = #ckpt.role<param>}, %arg6: tensor<64x64xbf16> {ckpt.role = #ckpt.role<param>}, %arg7: tensor<64xbf16> {ckpt.role = #ckpt.role<param>}, %arg8: tensor<64xbf16> {ckpt.role = #ckpt.role<param>}, %arg9: tensor<64xbf16> {ckpt.role = #ckpt.role<param>}, %arg10: tensor<256x64xbf16> {ckpt.role = #ckpt.role<param>}, %arg11: tensor<256xbf16> {ckpt.role = #ckpt.role<param>}, %arg12: tensor<64x256xbf16> {ckpt.role = #ckpt.role<param>}, %arg13: tensor<64xbf16> {ckpt.role = #ckpt.role<param>}, %arg14: tensor<bf16> {ckpt.role = #ckpt.role<seed>}) -> (tensor<bf16> {ckpt.role = #ckpt.role<loss>}, tensor<64xbf16> {ckpt.grad_of = 2 : i64, ckpt.role = #ckpt.role<grad>}, tensor<64xbf16> {ckpt.grad_of = 3 : i64, ckpt.role = #ckpt.role<grad>}, tensor<192x64xbf16> {ckpt.grad_of = 4 : i64, ckpt.role = #ckpt.role<grad>}, tensor<192xbf16> {ckpt.grad_of = 5 : i64, ckpt.role = #ckpt.role<grad>}, tensor<64x64xbf16> {ckpt.grad_of = 6 : i64, ckpt.role = #ckpt.role<grad>}, tensor<64xbf16> {ckpt.grad_of = 7 : i64, ckpt.role = #ckpt.role<grad>}, tensor<64xbf16> {ckpt.grad_of = 8 : i64, ckpt.role = #ckpt.role<grad>}, tensor<64xbf16> {ckpt.grad_of = 9 : i64, ckpt.role = #ckpt.role<grad>}, tensor<256x64xbf16> {ckpt.grad_of = 10 : i64, ckpt.role = #ckpt.role<grad>}, tensor<256xbf16> {ckpt.grad_of = 11 : i64, ckpt.role = #ckpt.role<grad>}, tensor<64x256xbf16> {ckpt.grad_of = 12 : i64, ckpt.role = #ckpt.role<grad>}, tensor<64xbf16> {ckpt.grad_of = 13 : i64, ckpt.role = #ckpt.role<grad>}) attributes {ckpt.step} {
    %result, %mean, %rstd = ckpt.layer_norm fwd %arg0 weight %arg2 bias %arg3 axis 2 eps 1.000000e-05 : (tensor<2x16x64xbf16>, tensor<64xbf16>, tensor<64xbf16>) -> (tensor<2x16x64xbf16>, tensor<2x16xf32>, tensor<2x16xf32>)
    %0 = ckpt.linear fwd %result, %arg4, %arg5 : (tensor<2x16x64xbf16>, tensor<192x64xbf16>, tensor<192xbf16>) -> tensor<2x16x192xbf16>
    %1 = ckpt.slice fwd %0 starts [0, 0, 0] steps [1, 1, 1] : tensor<2x16x192xbf16> -> tensor<2x16x64xbf16>
    %2 = ckpt.slice fwd %0 starts [0, 0, 64] steps [1, 1, 1] : tensor<2x16x192xbf16> -> tensor<2x16x64xbf16>
    %3 = ckpt.slice fwd %0 starts [0, 0, 128] steps [1, 1, 1] : tensor<2x16x192xbf16> -> tensor<2x16x64xbf16>
    %4 = ckpt.reshape fwd %1 : tensor<2x16x64xbf16> -> tensor<2x16x4x16xbf16>
    %5 = ckpt.reshape fwd %2 : tensor<2x16x64xbf16> -> tensor<2x16x4x16xbf16>
    %6 = ckpt.reshape fwd %3 : tensor<2x16x64xbf16> -> tensor<2x16x4x16xbf16>
    %7 = ckpt.transpose fwd %4 perm [0, 2, 1, 3] : tensor<2x16x4x16xbf16> -> tensor<2x4x16x16xbf16>
    %8 = ckpt.transpose fwd %5 perm [0, 2, 1, 3] : tensor<2x16x4x16xbf16> -> tensor<2x4x16x16xbf16>
    %9 = ckpt.transpose fwd %6 perm [0, 2, 1, 3] : tensor<2x16x4x16xbf16> -> tensor<2x4x16x16xbf16>
    %result_0, %lse = ckpt.attention fwd %7, %8, %9 {causal, dropout_p = 1.000000e-01 : f64, scale = 2.500000e-01 : f64, seed = 1 : i64} : (tensor<2x4x16x16xbf16>, tensor<2x4x16x16xbf16>, tensor<2x4x16x16xbf16>) -> (tensor<2x4x16x16xbf16>, tensor<2x4x16xf32>)
    %10 = ckpt.transpose fwd %result_0 perm [0, 2, 1, 3] : tensor<2x4x16x16xbf16> -> tensor<2x16x4x16xbf16>
    %11 = ckpt.reshape fwd %10 : tensor<2x16x4x16xbf16> -> tensor<2x16x64xbf16>
    %12 = ckpt.linear fwd %11, %arg6, %arg7 : (tensor<2x16x64xbf16>, tensor<64x64xbf16>, tensor<64xbf16>) -> tensor<2x16x64xbf16>
    %result_1, %mask = ckpt.dropout fwd %12 p 1.000000e-01 seed 2 offset 0 : tensor<2x16x64xbf16> -> (tensor<2x16x64xbf16>, tensor<2x16x64xi1>)
    %13 = ckpt.add fwd %arg0, %result_1 : tensor<2x16x64xbf16>, tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
    %result_2, %mean_3, %rstd_4 = ckpt.layer_norm fwd %13 weight %arg8 bias %arg9 axis 2 eps 1.000000e-05 : (tensor<2x16x64xbf16>, tensor<64xbf16>, tensor<64xbf16>) -> (tensor<2x16x64xbf16>, tensor<2x16xf32>, tensor<2x16xf32>)
    %14 = ckpt.linear fwd %result_2, %arg10, %arg11 : (tensor<2x16x64xbf16>, tensor<256x64xbf16>, tensor<256xbf16>) -> tensor<2x16x256xbf16>
    %15 = ckpt.gelu fwd tanh %14 : tensor<2x16x256xbf16>
    %16 = ckpt.linear fwd %15, %arg12, %arg13 : (tensor<2x16x256xbf16>, tensor<64x256xbf16>, tensor<64xbf16>) -> tensor<2x16x64xbf16>
    %result_5, %mask_6 = ckpt.dropout fwd %16 p 1.000000e-01 seed 3 offset 0 : tensor<2x16x64xbf16> -> (tensor<2x16x64xbf16>, tensor<2x16x64xi1>)
    %17 = ckpt.add fwd %13, %result_5 : tensor<2x16x64xbf16>, tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
    %18 = ckpt.sub fwd %17, %arg1 : tensor<2x16x64xbf16>, tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
    %19 = ckpt.mul fwd %18, %18 : tensor<2x16x64xbf16>, tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
    %20 = ckpt.reduce_sum fwd %19 axes [0, 1, 2] : tensor<2x16x64xbf16> -> tensor<bf16>
    %21 = ckpt.broadcast bwd %arg14 : tensor<bf16> -> tensor<2x16x64xbf16>
    %22 = ckpt.mul bwd %21, %18 : tensor<2x16x64xbf16>, tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
    %23 = ckpt.add bwd %22, %22 : tensor<2x16x64xbf16>, tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
    %24 = ckpt.dropout_grad bwd %23, %mask_6 p 1.000000e-01 : tensor<2x16x64xbf16>, tensor<2x16x64xi1>
    %25 = ckpt.reshape bwd %24 : tensor<2x16x64xbf16> -> tensor<32x64xbf16>
    %26 = ckpt.reshape bwd %15 : tensor<2x16x256xbf16> -> tensor<32x256xbf16>
    %27 = ckpt.matmul bwd %25, %26 {transpose_lhs} : tensor<32x64xbf16>, tensor<32x256xbf16> -> tensor<64x256xbf16>
    %28 = ckpt.reduce_sum bwd %24 axes [0, 1] : tensor<2x16x64xbf16> -> tensor<64xbf16>
    %29 = ckpt.matmul bwd %25, %arg12 : tensor<32x64xbf16>, tensor<64x256xbf16> -> tensor<32x256xbf16>
    %30 = ckpt.reshape bwd %29 : tensor<32x256xbf16> -> tensor<2x16x256xbf16>
    %31 = ckpt.gelu_grad bwd tanh %30, %14 : tensor<2x16x256xbf16>
    %32 = ckpt.reshape bwd %31 : tensor<2x16x256xbf16> -> tensor<32x256xbf16>
    %33 = ckpt.reshape bwd %result_2 : tensor<2x16x64xbf16> -> tensor<32x64xbf16>
    %34 = ckpt.matmul bwd %32, %33 {transpose_lhs} : tensor<32x256xbf16>, tensor<32x64xbf16> -> tensor<256x64xbf16>
    %35 = ckpt.reduce_sum bwd %31 axes [0, 1] : tensor<2x16x256xbf16> -> tensor<256xbf16>
    %36 = ckpt.matmul bwd %32, %arg10 : tensor<32x256xbf16>, tensor<256x64xbf16> -> tensor<32x64xbf16>
    %37 = ckpt.reshape bwd %36 : tensor<32x64xbf16> -> tensor<2x16x64xbf16>
    %input_grad, %param_grads:2 = ckpt.layer_norm_grad bwd %37, %13, %mean_3, %rstd_4 weight %arg8 axis 2 : (tensor<2x16x64xbf16>, tensor<2x16x64xbf16>, tensor<2x16xf32>, tensor<2x16xf32>, tensor<64xbf16>) -> (tensor<2x16x64xbf16>, tensor<64xbf16>, tensor<64xbf16>)
    %38 = ckpt.add bwd %23, %input_grad : tensor<2x16x64xbf16>, tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
    %39 = ckpt.dropout_grad bwd %38, %mask p 1.000000e-01 : tensor<2x16x64xbf16>, tensor<2x16x64xi1>
    %40 = ckpt.reshape bwd %39 : tensor<2x16x64xbf16> -> tensor<32x64xbf16>
    %41 = ckpt.reshape bwd %11 : tensor<2x16x64xbf16> -> tensor<32x64xbf16>
    %42 = ckpt.matmul bwd %40, %41 {transpose_lhs} : tensor<32x64xbf16>, tensor<32x64xbf16> -> tensor<64x64xbf16>
    %43 = ckpt.reduce_sum bwd %39 axes [0, 1] : tensor<2x16x64xbf16> -> tensor<64xbf16>
    %44 = ckpt.matmul bwd %40, %arg6 : tensor<32x64xbf16>, tensor<64x64xbf16> -> tensor<32x64xbf16>
    %45 = ckpt.reshape bwd %44 : tensor<32x64xbf16> -> tensor<2x16x4x16xbf16>
    %46 = ckpt.transpose bwd %45 perm [0, 2, 1, 3] : tensor<2x16x4x16xbf16> -> tensor<2x4x16x16xbf16>
    %query_grad, %key_grad, %value_grad = ckpt.attention_grad bwd %46, %7, %8, %9, %result_0, %lse {causal, dropout_p = 1.000000e-01 : f64, scale = 2.500000e-01 : f64, seed = 1 : i64} : (tensor<2x4x16x16xbf16>, tensor<2x4x16x16xbf16>, tensor<2x4x16x16xbf16>, tensor<2x4x16x16xbf16>, tensor<2x4x16x16xbf16>, tensor<2x4x16xf32>) -> (tensor<2x4x16x16xbf16>, tensor<2x4x16x16xbf16>, tensor<2x4x16x16xbf16>)
    %47 = ckpt.transpose bwd %query_grad perm [0, 2, 1, 3] : tensor<2x4x16x16xbf16> -> tensor<2x16x4x16xbf16>
    %48 = ckpt.transpose bwd %key_grad perm [0, 2, 1, 3] : tensor<2x4x16x16xbf16> -> tensor<2x16x4x16xbf16>
    %49 = ckpt.transpose bwd %value_grad perm [0, 2, 1, 3] : tensor<2x4x16x16xbf16> -> tensor<2x16x4x16xbf16>
    %50 = ckpt.reshape bwd %47 : tensor<2x16x4x16xbf16> -> tensor<2x16x64xbf16>
    %51 = ckpt.reshape bwd %48 : tensor<2x16x4x16xbf16> -> tensor<2x16x64xbf16>
    %52 = ckpt.reshape bwd %49 : tensor<2x16x4x16xbf16> -> tensor<2x16x64xbf16>
    %53 = ckpt.concat bwd %50, %51, %52 axis 2 : (tensor<2x16x64xbf16>, tensor<2x16x64xbf16>, tensor<2x16x64xbf16>) -> tensor<2x16x192xbf16>
    %54 = ckpt.reshape bwd %53 : tensor<2x16x192xbf16> -> tensor<32x192xbf16>
    %55 = ckpt.reshape bwd %result : tensor<2x16x64xbf16> -> tensor<32x64xbf16>
    %56 = ckpt.matmul bwd %54, %55 {transpose_lhs} : tensor<32x192xbf16>, tensor<32x64xbf16> -> tensor<192x64xbf16>
    %57 = ckpt.reduce_sum bwd %53 axes [0, 1] : tensor<2x16x192xbf16> -> tensor<192xbf16>
    %58 = ckpt.matmul bwd %54, %arg4 : tensor<32x192xbf16>, tensor<192x64xbf16> -> tensor<32x64xbf16>
    %59 = ckpt.reshape bwd %58 : tensor<32x64xbf16> -> tensor<2x16x64xbf16>
    %input_grad_7, %param_grads_8:2 = ckpt.layer_norm_grad bwd %59, %arg0, %mean, %rstd weight %arg2 axis 2 : (tensor<2x16x64xbf16>, tensor<2x16x64xbf16>, tensor<2x16xf32>, tensor<2x16xf32>, tensor<64xbf16>) -> (tensor<2x16x64xbf16>, tensor<64xbf16>, tensor<64xbf16>)
    return %20, %param_grads_8#0, %param_grads_8#1, %56, %57, %42, %43, %param_grads#0, %param_grads#1, %34, %35, %27, %28 : tensor<bf16>, tensor<64xbf16>, tensor<64xbf16>, tensor<192x64xbf16>, tensor<192xbf16>, tensor<64x64xbf16>, tensor<64xbf16>, tensor<64xbf16>, tensor<64xbf16>, tensor<256x64xbf16>, tensor<256xbf16>, tensor<64x256xbf16>, tensor<64xbf16>
  }
}

