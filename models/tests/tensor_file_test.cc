//===- tensor_file_test.cc - Tensors in .pb and .npy files, run inputs ----===//
#include "quarry/models/tensor_file.h"

#include "quarry/core/error.h"
#include "quarry/core/file_io.h"
#include "quarry/core/text.h"
#include "quarry/testing/error_of.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>

namespace quarry {
namespace {

using quarry::testing::error_of;

std::string temp(const std::string &name) {
  return (std::filesystem::path(::testing::TempDir()) / name).string();
}

Tensor<float> sample(const Shape &s) {
  Tensor<float> t(s, 0.0f);
  for (int64_t i = 0; i < t.numel(); ++i)
    t[i] = 0.5f * static_cast<float>(i) - 1;
  return t;
}

TEST(TensorFile, RoundTripsThroughBothFormats) {
  for (const Shape &s : {Shape{2, 3}, Shape{4}, Shape{}}) {
    for (const char *ext : {".pb", ".npy"}) {
      const std::string path = temp(std::string("t") + ext);
      write_tensor_file(path, sample(s), "x");
      const TensorFile f = read_tensor_file(path);
      EXPECT_EQ(f.value, sample(s)) << ext << " " << s.str();
      EXPECT_EQ(f.elem_type, "float");
      if (std::string(ext) == ".pb") {
        EXPECT_EQ(f.name, "x");
      }
    }
  }
}

TEST(TensorFile, ReadsIntegerNpyAndRefusesOtherFiles) {
  // int64 [3] = 1, -2, 3 as NumPy writes it.
  std::string header = "{'descr': '<i8', 'fortran_order': False, "
                       "'shape': (3,), }";
  while ((10 + header.size() + 1) % 64 != 0)
    header += ' ';
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes += static_cast<char>(header.size());
  bytes += '\0';
  bytes += header;
  for (int64_t v : {int64_t{1}, int64_t{-2}, int64_t{3}})
    bytes.append(reinterpret_cast<const char *>(&v), sizeof v);
  write_file_atomic(temp("i.npy"), bytes);
  const TensorFile f = read_tensor_file(temp("i.npy"));
  EXPECT_EQ(f.elem_type, "int64");
  EXPECT_EQ(f.value, Tensor<float>(Shape{3}, {1, -2, 3}));

  write_file_atomic(temp("cut.npy"), bytes.substr(0, bytes.size() - 4));
  EXPECT_EQ(error_of([] { read_tensor_file(temp("cut.npy")); }),
            temp("cut.npy") +
                ": not a readable .npy file: holds fewer values than its "
                "shape [3]");
  write_file_atomic(temp("junk.pb"), "\xff\xff\xff");
  EXPECT_EQ(
      error_of([] {
        read_tensor_file(temp("junk.pb"));
      }).rfind(temp("junk.pb") + ": not a serialized onnx.TensorProto", 0),
      0u);
}

TEST(TensorFile, InputsByGraphOrOnnxNameWithTheirShapeChecked) {
  const Graph g = parse_graph("input input_1: [2,3]\ny = relu(input_1)\n"
                              "output y\n");
  write_tensor_file(temp("in.npy"), sample(Shape{2, 3}));
  for (const char *name : {"input_1", "input.1"}) {
    const Bindings<float> b =
        read_input_files(g, {std::string(name) + "=" + temp("in.npy")});
    EXPECT_EQ(b.at("input_1"), sample(Shape{2, 3})) << name;
  }
  EXPECT_EQ(error_of([&] { read_input_files(g, {"z=" + temp("in.npy")}); }),
            "--input names 'z', which is not a graph input");
  write_tensor_file(temp("wide.npy"), sample(Shape{2, 4}));
  EXPECT_EQ(
      error_of([&] { read_input_files(g, {"input_1=" + temp("wide.npy")}); }),
      temp("wide.npy") + ": has shape [2,4]; input 'input_1' is [2,3]");
  EXPECT_EQ(error_of([&] { read_input_files(g, {"input_1"}); }),
            "--input expects NAME=FILE, got 'input_1'");
  // A bool file gives 0 and 1; an int64 one is refused.
  for (const auto type : {onnx::TensorProto::BOOL, onnx::TensorProto::INT64}) {
    onnx::TensorProto t;
    t.set_data_type(type);
    t.add_dims(2);
    t.add_dims(3);
    for (int i = 0; i < 6; ++i)
      type == onnx::TensorProto::BOOL ? t.add_int32_data(i % 2)
                                      : (void)t.add_int64_data(i);
    write_file_atomic(temp("typed.pb"), t.SerializeAsString());
    const std::string spec = "input_1=" + temp("typed.pb");
    if (type == onnx::TensorProto::BOOL)
      EXPECT_EQ(read_input_files(g, {spec}).at("input_1").data,
                (std::vector<float>{0, 1, 0, 1, 0, 1}));
    else
      EXPECT_EQ(error_of([&] { read_input_files(g, {spec}); }),
                temp("typed.pb") +
                    ": holds int64 values; input 'input_1' is float32");
  }
}

TEST(TensorFile, OutputsSavedAsOnnxTestDataSets) {
  const Graph g = parse_graph("input x: [2,3]\ny = relu(x)\noutput y\n");
  const auto files = save_output_files({g.node(g.outputs()[0].node).name},
                                       {sample(Shape{2, 3})}, temp("outs"));
  ASSERT_EQ(files, std::vector<std::string>{temp("outs") + "/output_0.pb"});
  EXPECT_EQ(read_tensor_file(files[0]).value, sample(Shape{2, 3}));
  EXPECT_EQ(read_tensor_file(files[0]).name, "y");
}

TEST(TensorFile, OutputsAreSavedInTheElementTypesGiven) {
  // An index and a mask as a model declares them, float32, and an
  // unsigned index (which quarry writes but cannot read back).
  const Tensor<float> index(Shape{3}, {0, 2, 7}), mask(Shape{2}, {1, 0});
  const auto files = save_output_files(
      {"i", "m", "f", "u"}, {index, mask, index, index}, temp("typed"),
      {onnx::TensorProto::INT64, onnx::TensorProto::BOOL,
       onnx::TensorProto::FLOAT, onnx::TensorProto::UINT64});
  ASSERT_EQ(files.size(), 4u);
  onnx::TensorProto u;
  ASSERT_TRUE(u.ParseFromString(read_file_bytes(files[3])));
  EXPECT_EQ(u.data_type(), onnx::TensorProto::UINT64);
  EXPECT_EQ(
      std::vector<uint64_t>(u.uint64_data().begin(), u.uint64_data().end()),
      (std::vector<uint64_t>{0, 2, 7}));
  const TensorFile i = read_tensor_file(files[0]),
                   m = read_tensor_file(files[1]),
                   f = read_tensor_file(files[2]);
  EXPECT_EQ(i.elem_type, "int64");
  EXPECT_EQ(i.value, index);
  EXPECT_EQ(m.elem_type, "bool");
  EXPECT_EQ(m.value, mask);
  EXPECT_EQ(f.elem_type, "float");
  // NumPy files are float32 only.
  EXPECT_EQ(error_of([&] {
              write_tensor_file(temp("i.npy"), index, "",
                                onnx::TensorProto::INT64);
            }),
            temp("i.npy") + ": .npy files are written as float32 only");
}

} // namespace
} // namespace quarry
