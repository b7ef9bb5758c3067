// Two splits (-split-input-file) with a step of the same name.
func.func @first(%x: tensor<4xf32> {ckpt.role = #ckpt.role<input>}) -> tensor<4xf32> {
  %0 = ckpt.relu fwd %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
// -----
func.func @first(%x: tensor<4xf32> {ckpt.role = #ckpt.role<input>}) -> tensor<4xf32> {
  %0 = ckpt.neg fwd %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
