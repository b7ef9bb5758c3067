// Two small steps in one module (planned by the test's RUN line).
func.func @first(%x: tensor<4xf32> {ckpt.role = #ckpt.role<input>}) -> tensor<4xf32> {
  %0 = ckpt.relu fwd %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @"second.step"(%x: tensor<4xf32> {ckpt.role = #ckpt.role<input>}) -> tensor<4xf32> {
  %0 = ckpt.exp fwd %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
