//===- TensorBundleTest.cpp - Tensor bundle files ---------------------------===//
#include "ckpt/Runtime/TensorBundle.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <unistd.h>

using namespace ckpt::rt;

namespace {

std::string tempPath(const char *tag) {
  return ::testing::TempDir() + "ckpt-bundle-" + tag + "-" +
         std::to_string(::getpid()) + ".bin";
}

std::vector<NamedTensor> sample() {
  NamedTensor a;
  a.name = "h.0.ln_1.weight";
  a.dtype = DType::F32;
  a.shape = {2, 3};
  float v[6] = {1, -2, 3.5f, 0, 1e-3f, -7};
  a.data.assign(reinterpret_cast<uint8_t *>(v), reinterpret_cast<uint8_t *>(v) + 24);
  NamedTensor b;
  b.name = "loss";
  b.dtype = DType::F32;
  b.shape = {};
  float l = 2.25f;
  b.data.assign(reinterpret_cast<uint8_t *>(&l), reinterpret_cast<uint8_t *>(&l) + 4);
  NamedTensor c;
  c.name = "tokens\xc3\xa9"; // UTF-8
  c.dtype = DType::I64;
  c.shape = {3};
  int64_t t[3] = {5, -1, 1ll << 40};
  c.data.assign(reinterpret_cast<uint8_t *>(t), reinterpret_cast<uint8_t *>(t) + 24);
  NamedTensor d;
  d.name = "mask";
  d.dtype = DType::I1;
  d.shape = {0, 4};
  return {a, b, c, d};
}

void writeRaw(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
}

std::string errorOf(const std::string &path) {
  try {
    readTensorBundle(path);
  } catch (const std::runtime_error &e) {
    return e.what();
  }
  return "";
}

TEST(TensorBundleTest, RoundTrip) {
  std::string path = tempPath("rt");
  std::vector<NamedTensor> in = sample();
  writeTensorBundle(path, in);
  std::vector<NamedTensor> out = readTensorBundle(path);
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(out[i].name, in[i].name);
    EXPECT_EQ(out[i].dtype, in[i].dtype);
    EXPECT_EQ(out[i].shape, in[i].shape);
    EXPECT_EQ(out[i].data, in[i].data);
  }
  EXPECT_EQ(out[2].numel(), 3);
  Tensor view = out[0].view();
  EXPECT_EQ(view.rank, 2);
  EXPECT_EQ(view.as<float>()[2], 3.5f);
  // No temporary file is left behind.
  EXPECT_NE(access((path + ".tmp." + std::to_string(getpid())).c_str(), F_OK), 0);
  std::remove(path.c_str());
}

TEST(TensorBundleTest, ExactLayout) {
  NamedTensor t;
  t.name = "ab";
  t.dtype = DType::I32;
  t.shape = {2};
  t.data = {1, 0, 0, 0, 2, 0, 0, 0};
  std::vector<uint8_t> bytes = serializeTensorBundle({t});
  std::vector<uint8_t> want = {'C', 'K', 'P', 'T', 'B', '0', '0', '1',
                               1, 0, 0, 0, 0, 0, 0, 0,   // count
                               2, 0, 0, 0, 'a', 'b',     // name
                               4, 1,                     // dtype I32, rank 1
                               2, 0, 0, 0, 0, 0, 0, 0,   // dims
                               1, 0, 0, 0, 2, 0, 0, 0};  // data
  EXPECT_EQ(bytes, want);
}

TEST(TensorBundleTest, MalformedFiles) {
  std::string path = tempPath("bad");
  std::vector<uint8_t> good = serializeTensorBundle(sample());

  EXPECT_NE(errorOf(path + ".missing").find("cannot open"), std::string::npos);

  std::vector<uint8_t> bad = good;
  bad[3] = 'X';
  writeRaw(path, bad);
  std::string e = errorOf(path);
  EXPECT_NE(e.find(path), std::string::npos) << e;
  EXPECT_NE(e.find("bad magic"), std::string::npos) << e;
  EXPECT_NE(e.find("byte 0"), std::string::npos) << e;

  // Truncated inside the first tensor's data: 8 magic + 8 count + 4 + 15
  // name + 1 + 1 + 16 dims = 53 bytes of header, then 24 bytes of data.
  writeRaw(path, std::vector<uint8_t>(good.begin(), good.begin() + 60));
  e = errorOf(path);
  EXPECT_NE(e.find("truncated"), std::string::npos) << e;
  EXPECT_NE(e.find("byte 53"), std::string::npos) << e;

  bad = good;
  bad[8 + 8 + 4 + 15] = 9; // dtype code
  writeRaw(path, bad);
  e = errorOf(path);
  EXPECT_NE(e.find("unknown dtype code 9"), std::string::npos) << e;
  EXPECT_NE(e.find("byte 35"), std::string::npos) << e;

  bad = good;
  bad[8 + 8 + 4 + 15 + 1] = 9; // rank
  writeRaw(path, bad);
  EXPECT_NE(errorOf(path).find("rank 9"), std::string::npos);

  bad = good;
  bad[8 + 8 + 4 + 15 + 2 + 7] = 0x80; // negative first dimension
  writeRaw(path, bad);
  EXPECT_NE(errorOf(path).find("negative dimension"), std::string::npos);

  bad = good;
  bad.push_back(0);
  writeRaw(path, bad);
  EXPECT_NE(errorOf(path).find("trailing"), std::string::npos);

  bad = good;
  bad[15] = 0x7f; // absurd count
  writeRaw(path, bad);
  EXPECT_NE(errorOf(path).find("tensor count"), std::string::npos);

  writeRaw(path, {'C', 'K'});
  EXPECT_NE(errorOf(path).find("truncated"), std::string::npos);
  std::remove(path.c_str());
}

TEST(TensorBundleTest, WriteRejectsInconsistentTensors) {
  std::vector<NamedTensor> t = sample();
  t[0].data.pop_back();
  EXPECT_THROW(writeTensorBundle(tempPath("inc"), t), std::runtime_error);
  EXPECT_THROW(writeTensorBundle("/nonexistent-dir/x.bin", sample()),
               std::runtime_error);
}

} // namespace
