//===- today_net.h - Writing networks as exporters write them ---*- C++ -*-===//
//
// The builder bench/today_nets writes its ONNX files with: fresh value
// names, seeded weights scaled by fan-in, and the layers in the operators
// PyTorch's exporters (eval mode, constants folded) write for them: the
// TorchScript exporter's forms at opset 17, the dynamo exporter's at 18 and
// later (Split into num_outputs, a reduction's axes as an input, Gelu from
// 20), and every float tensor in float16 for a `model.half()` export.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "onnx_builder.h"

#include <Imath/half.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <functional>
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

/// A square window's kernel_shape, strides and pads.
inline void set_window(onnx::NodeProto &node, int64_t k, int64_t stride,
                       int64_t pad) {
  set_ints(node, "kernel_shape", {k, k});
  set_ints(node, "strides", {stride, stride});
  set_ints(node, "pads", {pad, pad, pad, pad});
}

/// A network under construction: fresh value names, seeded weights.
class Net {
public:
  /// `opset` picks the forms its exporter writes; `elem` is the type of the
  /// input, the output and every float initializer (FLOAT or FLOAT16).
  explicit Net(const Ints &input_shape, int64_t opset = 17,
               int32_t elem = onnx::TensorProto::FLOAT)
      : m_(opset), opset_(opset), elem_(elem) {
    // The IR version each opset was released with (7 kept for 17, as the
    // files written before later opsets were).
    m_.proto().set_ir_version(opset >= 21   ? 10
                              : opset >= 19 ? 9
                              : opset >= 18 ? 8
                                            : 7);
    m_.input("input", input_shape, elem);
  }

  std::string fresh(const std::string &what) {
    return what + "_" + std::to_string(next_++);
  }

  /// A float initializer of `shape`, uniform in [-bound, bound).
  std::string weight(const Ints &shape, double bound) {
    return constant(shape, values(shape, bound));
  }
  /// Numbers for a tensor of `shape`, uniform in [-bound, bound).
  std::vector<float> values(const Ints &shape, double bound) {
    std::uniform_real_distribution<float> u(static_cast<float>(-bound),
                                            static_cast<float>(bound));
    std::vector<float> v(static_cast<size_t>(numel(shape)));
    for (float &x : v)
      x = u(rng_);
    return v;
  }
  /// A float initializer of `shape` uniform in [lo, hi).
  std::string uniform(const Ints &shape, float lo, float hi) {
    std::uniform_real_distribution<float> u(lo, hi);
    std::vector<float> v(static_cast<size_t>(numel(shape)));
    for (float &x : v)
      x = u(rng_);
    return constant(shape, v);
  }
  /// A float initializer in the network's element type.
  std::string constant(const Ints &shape, const std::vector<float> &v) {
    if (elem_ != onnx::TensorProto::FLOAT16)
      return raw(elem_, shape, v);
    std::vector<uint16_t> h;
    h.reserve(v.size());
    for (float x : v)
      h.push_back(Imath::half(x).bits());
    return raw(elem_, shape, h);
  }
  std::string scalar(float x) { return constant({}, {x}); }
  /// An initializer of element type `type` whose values are `v`, stored as
  /// they are in memory (little-endian, ONNX's raw_data).
  template <typename T>
  std::string raw(int32_t type, const Ints &shape, const std::vector<T> &v) {
    const std::string name = fresh("w");
    auto *t = m_.proto().mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    for (int64_t d : shape)
      t->add_dims(d);
    t->set_raw_data(std::string(reinterpret_cast<const char *>(v.data()),
                                v.size() * sizeof(T)));
    return name;
  }
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
    set_window(n, k, stride, pad);
    set_ints(n, "dilations", {1, 1});
    set_int(n, "group", groups);
    return out;
  }
  /// nn.Conv3d over [n, c, depth, h, w], its batch norm folded in.
  std::string conv3d(const std::string &x, int64_t cin, int64_t cout,
                     const Ints &k, const Ints &strides, const Ints &pads) {
    const double bound = std::sqrt(6.0 / static_cast<double>(cin * numel(k)));
    const std::string w = weight({cout, cin, k[0], k[1], k[2]}, bound);
    const std::string b = weight({cout}, 0.1);
    const std::string out = fresh("conv");
    auto &n = node("Conv", {x, w, b}, out);
    set_ints(n, "kernel_shape", k);
    set_ints(n, "strides", strides);
    Ints both = pads;
    both.insert(both.end(), pads.begin(), pads.end());
    set_ints(n, "pads", both);
    set_ints(n, "dilations", {1, 1, 1});
    set_int(n, "group", 1);
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
  /// Where set, what linear() writes instead (a quantized layer).
  std::function<std::string(Net &, const std::string &, int64_t, int64_t)>
      linear_form;

  /// nn.Linear on the last axis: MatMul by the transposed weight, then Add.
  std::string linear(const std::string &x, int64_t in, int64_t out) {
    if (linear_form)
      return linear_form(*this, x, in, out);
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
  /// nn.GELU() (exact): x * (1 + erf(x / sqrt 2)) * 0.5, one Gelu node
  /// from opset 20.
  std::string gelu(const std::string &x) {
    if (opset_ >= 20)
      return op("Gelu", {x});
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
    set_window(node(type, {x}, out), k, stride, pad);
    return out;
  }
  /// torch.unbind along `axis` into `parts` tensors: a Gather of each index
  /// (TorchScript), or one Split into num_outputs and a Squeeze of each
  /// part (dynamo, opset 18 and later).
  std::vector<std::string> unbind(const std::string &x, int64_t axis,
                                  int64_t parts) {
    std::vector<std::string> out;
    if (opset_ < 18) {
      for (int64_t i = 0; i < parts; ++i) {
        const std::string g = fresh("gather");
        set_int(node("Gather", {x, index(i)}, g), "axis", axis);
        out.push_back(g);
      }
      return out;
    }
    std::vector<std::string> split;
    for (int64_t i = 0; i < parts; ++i)
      split.push_back(fresh("split"));
    auto &n = m_.node("Split", {x}, split);
    set_int(n, "axis", axis);
    set_int(n, "num_outputs", parts);
    for (const std::string &s : split)
      out.push_back(op("Squeeze", {s, ints({axis})}));
    return out;
  }
  /// A mean over `axes`: the axes an attribute up to opset 17, an input
  /// from 18.
  std::string reduce_mean(const std::string &x, const Ints &axes,
                          bool keepdims) {
    const std::string out = fresh("mean");
    auto &n = opset_ >= 18 ? node("ReduceMean", {x, ints(axes)}, out)
                           : node("ReduceMean", {x}, out);
    if (opset_ < 18)
      set_ints(n, "axes", axes);
    set_int(n, "keepdims", keepdims ? 1 : 0);
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
    write({{result, "output", elem_}}, path);
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
  int64_t opset_;
  int32_t elem_;
  std::mt19937 rng_{20261127};
  int next_ = 0;
};

/// Small detectors (today_detectors.cc) whose post-processing is written in
/// the operators torchvision's exporter writes for RetinaNet's and Faster
/// R-CNN's: score thresholds by NonZero, TopK of a computed count,
/// class-offset NonMaxSuppression, RoiAlign over the kept proposals.
void retinanet_s(const std::string &path);
void faster_rcnn_s(const std::string &path);

/// A vision transformer over the 16x16 patches of a square image: pre-norm
/// encoder blocks of heads of 64, classifying the class token
/// (torchvision's vit_b_16) or the mean of the tokens (today_nets.cc).
struct Vit {
  int64_t side, blocks, heads;
  bool class_token;
};
void vit(Net &n, const Vit &v, const std::string &path);

/// A small residual network, and a small ViT whose linear layers are
/// quantized, as ONNX Runtime's static quantizer writes them in QDQ form
/// (today_quantized.cc): the network's weights int8 (symmetric), or uint8
/// (asymmetric, its QUInt8 weights).
void resnet_s_qdq(const std::string &path);
void resnet_s_qdq_u8(const std::string &path);
void vit_s_qdq(const std::string &path);
/// The same residual network dynamically quantized, as ONNX Runtime's
/// quantize_dynamic writes it (DynamicQuantizeLinear and ConvInteger): by
/// int8 weights (symmetric), or by uint8 ones of one zero point
/// (asymmetric, its QUInt8 weights: a background-removal network's form).
void resnet_s_dynamic(const std::string &path);
void resnet_s_dynamic_u8(const std::string &path);

} // namespace quarry::bench
