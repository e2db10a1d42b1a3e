//===- onnx_names_test.cc - Export writes the model as it was named -------===//
//
// Beyond the interface, a model imported and exported again keeps the
// names of its weights, intermediate values and nodes, and the operators
// import took apart (Conv with a bias, Gemm) or wrote in another form
// (Flatten) come back as they were, wherever quarry's graph still holds
// them as import wrote them; where it does not, quarry's forms keep the
// names.
//
//===----------------------------------------------------------------------===//
#include "onnx_builder.h"
#include "without_records.h"

#include "quarry/core/evaluate.h"
#include "quarry/core/file_io.h"
#include "quarry/core/float_domain.h"
#include "quarry/core/random.h"
#include "quarry/models/model_file.h"
#include "quarry/models/onnx.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

namespace quarry {
namespace {

using namespace quarry::testing;

/// A small network as PyTorch names one: Conv with bias, Relu, Flatten and
/// a Gemm of transposed weights, dotted weight names, numbered values,
/// path-like node names.
OnnxModel named_net() {
  OnnxModel m(13);
  m.input("input", {1, 2, 4, 4}).output("logits");
  std::vector<float> w(3 * 2 * 3 * 3), fc(5 * 48);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = static_cast<float>(i % 7) / 7 - 0.4f;
  for (size_t i = 0; i < fc.size(); ++i)
    fc[i] = static_cast<float>(i % 11) / 11 - 0.5f;
  m.floats("conv1.weight", {3, 2, 3, 3}, w);
  m.floats("conv1.bias", {3}, {0.1f, -0.2f, 0.3f});
  m.floats("fc.weight", {5, 48}, fc);
  m.floats("fc.bias", {5}, {1, 2, 3, 4, 5});
  auto &conv = m.node("Conv", {"input", "conv1.weight", "conv1.bias"}, {"105"});
  conv.set_name("/conv1/Conv");
  set_ints(conv, "pads", {1, 1, 1, 1});
  m.node("Relu", {"105"}, {"106"}).set_name("/relu/Relu");
  m.node("Flatten", {"106"}, {"107"}).set_name("/Flatten");
  auto &gemm = m.node("Gemm", {"107", "fc.weight", "fc.bias"}, {"logits"});
  gemm.set_name("/fc/Gemm");
  set_int(gemm, "transB", 1);
  return m;
}

struct Written {
  std::vector<std::string> ops, node_names;
  std::map<std::string, std::vector<int64_t>> initializers;
  std::vector<std::string> values; // node outputs, in order
};

Written read_back(const std::string &bytes) {
  onnx::ModelProto p;
  EXPECT_TRUE(p.ParseFromString(bytes));
  Written w;
  for (const auto &n : p.graph().node()) {
    w.ops.push_back(n.op_type());
    w.node_names.push_back(n.name());
    w.values.insert(w.values.end(), n.output().begin(), n.output().end());
  }
  for (const auto &t : p.graph().initializer())
    w.initializers[t.name()] = {t.dims().begin(), t.dims().end()};
  return w;
}

TEST(OnnxNames, WeightsValuesAndNodesKeepTheirNames) {
  const OnnxModel m = named_net();
  const Model imported = import_onnx_bytes(m.bytes(), "net.onnx");
  const Written w = read_back(export_onnx_bytes(imported));
  EXPECT_EQ(w.ops,
            (std::vector<std::string>{"Conv", "Relu", "Flatten", "Gemm"}));
  EXPECT_EQ(w.node_names, (std::vector<std::string>{"/conv1/Conv", "/relu/Relu",
                                                    "/Flatten", "/fc/Gemm"}));
  EXPECT_EQ(w.values,
            (std::vector<std::string>{"105", "106", "107", "logits"}));
  // Each weight under its own name and shape (a Conv's bias is [C] in
  // ONNX, [C,1,1] to quarry).
  EXPECT_EQ(w.initializers.at("conv1.weight"),
            (std::vector<int64_t>{3, 2, 3, 3}));
  EXPECT_EQ(w.initializers.at("conv1.bias"), (std::vector<int64_t>{3}));
  EXPECT_EQ(w.initializers.at("fc.weight"), (std::vector<int64_t>{5, 48}));
  EXPECT_EQ(w.initializers.at("fc.bias"), (std::vector<int64_t>{5}));
  EXPECT_EQ(w.initializers.size(), 4u);

  // In quarry's forms (as a rewrite leaves them) the names stay too, and
  // what export adds to write one is named after the value it serves:
  // Flatten's Reshape reads 107_shape.
  const Written q = read_back(export_onnx_bytes(without_records(imported)));
  EXPECT_EQ(q.ops,
            (std::vector<std::string>{"Conv", "Relu", "Reshape", "Gemm"}));
  EXPECT_EQ(q.node_names[0], "/conv1/Conv");
  EXPECT_EQ(q.node_names[3], "/fc/Gemm");
  EXPECT_EQ(q.values,
            (std::vector<std::string>{"105", "106", "107", "logits"}));
  EXPECT_EQ(q.initializers.at("conv1.bias"), (std::vector<int64_t>{3}));
  EXPECT_EQ(q.initializers.at("107_shape"), (std::vector<int64_t>{2}));
  EXPECT_EQ(q.initializers.size(), 5u);
}

TEST(OnnxNames, TheyLastThroughASavedModel) {
  const Model imported = import_onnx_bytes(named_net().bytes(), "net.onnx");
  const std::string qg = ::testing::TempDir() + "/named_net.qg";
  save_model(imported, qg);
  // The text form binds the values by quarry's spelling of their names
  // (105 is the Conv's result: its bias added).
  EXPECT_NE(read_file_bytes(qg).find("v_105 = broadcast[fn=add]("),
            std::string::npos)
      << read_file_bytes(qg);
  const Written back = read_back(export_onnx_bytes(load_graph_any(qg)));
  const Written first = read_back(export_onnx_bytes(imported));
  EXPECT_EQ(back.ops, first.ops);
  EXPECT_EQ(back.node_names, first.node_names);
  EXPECT_EQ(back.values, first.values);
  for (const char *w : {"conv1.weight", "conv1.bias", "fc.weight", "fc.bias"})
    EXPECT_EQ(back.initializers.at(w), first.initializers.at(w));
  for (const std::string &f : {qg, weights_path(qg), kept_path(qg)})
    std::filesystem::remove(f);
}

TEST(OnnxNames, AConvolutionReadElsewhereGoesOutWithoutItsBias) {
  // The convolution's result also read by another node (as a rewrite may
  // leave it): Conv and the bias's Add go out apart, the bias as quarry
  // holds it ([3,1,1]) under quarry's name, and the value the model named
  // keeps its name.
  Model m = import_onnx_bytes(named_net().bytes(), "net.onnx");
  for (int32_t id = 0; id < m.graph.num_nodes(); ++id)
    if (m.graph.node(id).kind == OpKind::Conv2D) {
      m.graph.add1(OpKind::Relu, {{id, 0}}); // read, though by a dead node
      break;
    }
  // A dead reader does not keep the Conv from going out as the model had
  // it; in quarry's forms it keeps the bias apart.
  EXPECT_EQ(read_back(export_onnx_bytes(m)).ops,
            (std::vector<std::string>{"Conv", "Relu", "Flatten", "Gemm"}));
  const Written w = read_back(export_onnx_bytes(without_records(m)));
  EXPECT_EQ(w.ops, (std::vector<std::string>{"Conv", "Add", "Relu", "Reshape",
                                             "Gemm"}));
  EXPECT_EQ(w.values[1], "105");
  EXPECT_EQ(w.node_names[1], "/conv1/Conv");
  EXPECT_FALSE(w.initializers.count("conv1.bias"));
  EXPECT_TRUE(w.initializers.count("conv1.weight"));
}

TEST(OnnxNames, ExportedNetworkComputesWhatTheImportedOneDoes) {
  const Model imported = import_onnx_bytes(named_net().bytes(), "net.onnx");
  const Model again =
      import_onnx_bytes(export_onnx_bytes(imported), "again.onnx");
  const Bindings<float> in =
      bind_variables(imported.graph, imported.weights, 3);
  Bindings<float> in2 = bind_variables(again.graph, again.weights, 3);
  for (const auto &[name, t] : in)
    if (in2.count(name) && !imported.weights.count(name))
      in2.insert_or_assign(name, t);
  const auto y = evaluate(FloatDomain{}, imported.graph, in);
  const auto y2 = evaluate(FloatDomain{}, again.graph, in2);
  ASSERT_EQ(y.size(), y2.size());
  for (int64_t i = 0; i < y[0].numel(); ++i)
    EXPECT_NEAR(y[0][i], y2[0][i], 1e-5);
}

} // namespace
} // namespace quarry
