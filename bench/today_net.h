//===- today_net.h - Writing networks as exporters write them ---*- C++ -*-===//
//
// The builder bench/today_nets writes its ONNX files with: fresh value
// names, seeded weights scaled by fan-in, and the layers in the operators
// PyTorch's exporter (opset 17, eval mode, constants folded) writes for
// them.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "onnx_builder.h"

#include <cmath>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace quarry::bench {

using quarry::testing::Ints;
using quarry::testing::OnnxModel;
using quarry::testing::set_float;
using quarry::testing::set_int;
using quarry::testing::set_ints;

inline int64_t numel(const Ints &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// A network under construction: fresh value names, seeded weights.
class Net {
public:
  explicit Net(const Ints &input_shape) : m_(17) {
    m_.input("input", input_shape);
  }

  std::string fresh(const std::string &what) {
    return what + "_" + std::to_string(next_++);
  }

  /// A float initializer of `shape`, uniform in [-bound, bound).
  std::string weight(const Ints &shape, double bound) {
    std::uniform_real_distribution<float> u(static_cast<float>(-bound),
                                            static_cast<float>(bound));
    std::vector<float> v(static_cast<size_t>(numel(shape)));
    for (float &x : v)
      x = u(rng_);
    return constant(shape, v);
  }
  /// A float initializer of `shape` uniform in [lo, hi).
  std::string uniform(const Ints &shape, float lo, float hi) {
    std::uniform_real_distribution<float> u(lo, hi);
    std::vector<float> v(static_cast<size_t>(numel(shape)));
    for (float &x : v)
      x = u(rng_);
    return constant(shape, v);
  }
  std::string constant(const Ints &shape, const std::vector<float> &v) {
    const std::string name = fresh("w");
    auto *t = m_.proto().mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : shape)
      t->add_dims(d);
    t->set_raw_data(std::string(reinterpret_cast<const char *>(v.data()),
                                v.size() * sizeof(float)));
    return name;
  }
  std::string scalar(float x) { return constant({}, {x}); }
  std::string ints(const Ints &v) {
    const std::string name = fresh("i");
    m_.ints(name, v);
    return name;
  }
  /// An int64 scalar (a Gather index that drops its axis).
  std::string index(int64_t v) {
    const std::string name = fresh("i");
    m_.ints(name, Ints{}, {v});
    return name;
  }

  onnx::NodeProto &node(const std::string &type,
                        const std::vector<std::string> &in,
                        const std::string &out) {
    return m_.node(type, in, {out});
  }
  std::string op(const std::string &type, const std::vector<std::string> &in) {
    const std::string out = fresh(type);
    node(type, in, out);
    return out;
  }

  std::string conv(const std::string &x, int64_t cin, int64_t cout, int64_t k,
                   int64_t stride, int64_t pad, int64_t groups = 1) {
    const double bound =
        std::sqrt(6.0 / static_cast<double>(cin / groups * k * k));
    const std::string w = weight({cout, cin / groups, k, k}, bound);
    const std::string b = weight({cout}, 0.1);
    const std::string out = fresh("conv");
    auto &n = node("Conv", {x, w, b}, out);
    set_ints(n, "kernel_shape", {k, k});
    set_ints(n, "strides", {stride, stride});
    set_ints(n, "pads", {pad, pad, pad, pad});
    set_ints(n, "dilations", {1, 1});
    set_int(n, "group", groups);
    return out;
  }
  std::string batch_norm(const std::string &x, int64_t c) {
    const std::string out = fresh("bn");
    auto &n = node("BatchNormalization",
                   {x, uniform({c}, 0.5f, 1.5f), weight({c}, 0.1),
                    weight({c}, 0.1), uniform({c}, 0.5f, 1.5f)},
                   out);
    set_float(n, "epsilon", 1e-5f);
    return out;
  }
  std::string transpose(const std::string &x, const Ints &perm) {
    const std::string out = fresh("transpose");
    set_ints(node("Transpose", {x}, out), "perm", perm);
    return out;
  }
  std::string reshape(const std::string &x, const Ints &shape) {
    return op("Reshape", {x, ints(shape)});
  }
  /// nn.Linear on the last axis: MatMul by the transposed weight, then Add.
  std::string linear(const std::string &x, int64_t in, int64_t out) {
    const double bound = std::sqrt(3.0 / static_cast<double>(in));
    return op("Add", {op("MatMul", {x, weight({in, out}, bound)}),
                      weight({out}, 0.1)});
  }
  /// nn.Linear on a flattened [N, in] tensor: one Gemm.
  std::string gemm(const std::string &x, int64_t in, int64_t out) {
    const double bound = std::sqrt(3.0 / static_cast<double>(in));
    const std::string y = fresh("gemm");
    auto &n =
        node("Gemm", {x, weight({out, in}, bound), weight({out}, 0.1)}, y);
    set_float(n, "alpha", 1.0f);
    set_float(n, "beta", 1.0f);
    set_int(n, "transB", 1);
    return y;
  }
  std::string layer_norm(const std::string &x, int64_t c, float eps) {
    const std::string out = fresh("ln");
    auto &n = node("LayerNormalization",
                   {x, uniform({c}, 0.5f, 1.5f), weight({c}, 0.1)}, out);
    set_int(n, "axis", -1);
    set_float(n, "epsilon", eps);
    return out;
  }
  /// torchvision's LayerNorm2d: over channels of an NCHW tensor.
  std::string layer_norm_2d(const std::string &x, int64_t c) {
    return transpose(layer_norm(transpose(x, {0, 2, 3, 1}), c, 1e-6f),
                     {0, 3, 1, 2});
  }
  /// nn.GELU() (exact): x * (1 + erf(x / sqrt 2)) * 0.5.
  std::string gelu(const std::string &x) {
    const std::string e =
        op("Erf", {op("Div", {x, scalar(static_cast<float>(std::sqrt(2.0)))})});
    return op("Mul",
              {op("Mul", {x, op("Add", {e, scalar(1.0f)})}), scalar(0.5f)});
  }
  /// nn.SiLU: x * sigmoid(x).
  std::string silu(const std::string &x) {
    return op("Mul", {x, op("Sigmoid", {x})});
  }
  std::string pool(const std::string &type, const std::string &x, int64_t k,
                   int64_t stride, int64_t pad) {
    const std::string out = fresh("pool");
    auto &n = node(type, {x}, out);
    set_ints(n, "kernel_shape", {k, k});
    set_ints(n, "strides", {stride, stride});
    set_ints(n, "pads", {pad, pad, pad, pad});
    return out;
  }
  std::string concat(const std::vector<std::string> &xs, int64_t axis) {
    const std::string out = fresh("concat");
    set_int(node("Concat", xs, out), "axis", axis);
    return out;
  }
  /// Global average pooling, flatten, and the classifier.
  std::string head(const std::string &x, int64_t c, int64_t classes = 1000) {
    const std::string f = fresh("flatten");
    set_int(node("Flatten", {op("GlobalAveragePool", {x})}, f), "axis", 1);
    return gemm(f, c, classes);
  }

  void write(const std::string &result, const std::string &path) {
    write({{result, "output", onnx::TensorProto::FLOAT}}, path);
  }
  /// An output of the model: the value, the name it goes out as, its
  /// element type.
  struct Output {
    std::string value, name;
    int32_t elem;
  };
  void write(const std::vector<Output> &outputs, const std::string &path) {
    for (const Output &o : outputs) {
      node("Identity", {o.value}, o.name);
      auto *v = m_.proto().mutable_graph()->add_output();
      v->set_name(o.name);
      v->mutable_type()->mutable_tensor_type()->set_elem_type(o.elem);
    }
    std::ofstream f(path, std::ios::binary);
    if (!(f << m_.bytes()))
      throw std::runtime_error("cannot write " + path);
  }

private:
  OnnxModel m_;
  std::mt19937 rng_{20261127};
  int next_ = 0;
};

/// Small detectors (today_detectors.cc) whose post-processing is written in
/// the operators torchvision's exporter writes for RetinaNet's and Faster
/// R-CNN's: score thresholds by NonZero, TopK of a computed count,
/// class-offset NonMaxSuppression, RoiAlign over the kept proposals.
void retinanet_s(const std::string &path);
void faster_rcnn_s(const std::string &path);

} // namespace quarry::bench
