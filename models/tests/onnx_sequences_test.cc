//===- onnx_sequences_test.cc - Sequences of known tensors as tensors -----===//
//
// A graph whose sequences hold known lists of tensors imports with no
// node kept and computes what ONNX defines; one where a sequence escapes
// (a graph output here) keeps its sequence nodes as before.
//
//===----------------------------------------------------------------------===//
#include "model_eval.h"
#include "onnx_builder.h"

#include "quarry/models/onnx.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace quarry {
namespace {

using namespace quarry::testing;

TEST(OnnxSequences, KnownListsBecomeTensorNodes) {
  // s = [a, b]; insert c at the front: [c, a, b]; erase position 1:
  // [c, b]; y = concat of the sequence along a new axis 0, [2, 3]; z =
  // element -1 (b) plus the length (2).
  OnnxModel m(13);
  m.input("a", {3}).input("b", {3}).input("c", {3}).output("y").output("z");
  m.ints("front", {}, {0}).ints("second", {}, {1}).ints("last", {}, {-1});
  m.node("SequenceConstruct", {"a", "b"}, {"s"});
  m.node("SequenceInsert", {"s", "c", "front"}, {"s2"});
  m.node("SequenceErase", {"s2", "second"}, {"s3"});
  auto &cat = m.node("ConcatFromSequence", {"s3"}, {"y"});
  set_int(cat, "axis", 0);
  set_int(cat, "new_axis", 1);
  m.node("SequenceAt", {"s3", "last"}, {"e"});
  m.node("SequenceLength", {"s3"}, {"n"});
  set_int(m.node("Cast", {"n"}, {"nf"}), "to", onnx::TensorProto::FLOAT);
  m.node("Add", {"e", "nf"}, {"z"});
  const Model g = import_onnx_bytes(m.bytes(), "seq.onnx");
  EXPECT_TRUE(kept_operator_types(g).empty());
  Bindings<float> in;
  in.emplace("a", Tensor<float>(Shape{3}, {1, 2, 3}));
  in.emplace("b", Tensor<float>(Shape{3}, {4, 5, 6}));
  in.emplace("c", Tensor<float>(Shape{3}, {7, 8, 9}));
  const auto out = eval_all(g, in);
  EXPECT_EQ(out.at(0).shape, (Shape{2, 3}));
  EXPECT_EQ(out.at(0).data, (std::vector<float>{7, 8, 9, 4, 5, 6}));
  EXPECT_EQ(out.at(1).data, (std::vector<float>{6, 7, 8}));
}

TEST(OnnxSequences, SplitToSequenceInChunksWithoutKeepdims) {
  // x [3, 2] split along axis 0 into rows, squeezed; element 2 is row 2.
  OnnxModel m(13);
  m.input("x", {3, 2}).output("y").ints("two", {}, {2});
  set_int(m.node("SplitToSequence", {"x"}, {"s"}), "keepdims", 0);
  m.node("SequenceAt", {"s", "two"}, {"y"});
  const Model g = import_onnx_bytes(m.bytes(), "split.onnx");
  EXPECT_TRUE(kept_operator_types(g).empty());
  Bindings<float> in;
  in.emplace("x", Tensor<float>(Shape{3, 2}, {1, 2, 3, 4, 5, 6}));
  const auto out = eval_all(g, in);
  EXPECT_EQ(out.at(0).shape, (Shape{2}));
  EXPECT_EQ(out.at(0).data, (std::vector<float>{5, 6}));
}

TEST(OnnxSequences, ASequenceThatEscapesIsKept) {
  // The sequence is also read by an operator that is not a sequence's
  // (Identity): nothing is rewritten, and the sequence nodes are kept.
  OnnxModel m(16);
  m.input("a", {3}).output("y");
  m.ints("zero", {}, {0});
  m.node("SequenceConstruct", {"a"}, {"s"});
  m.node("Identity", {"s"}, {"t"});
  m.node("SequenceAt", {"t", "zero"}, {"y"});
  const Model g = import_onnx_bytes(m.bytes(), "escape.onnx");
  const auto kept = kept_operator_types(g);
  EXPECT_NE(std::find(kept.begin(), kept.end(), "SequenceConstruct"),
            kept.end());
}

} // namespace
} // namespace quarry
