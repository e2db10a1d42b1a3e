//===- today_quantized.cc - A network as a static quantizer writes it -----===//
//
// ONNX Runtime's static quantization in QDQ form (quantize_static,
// per-channel) leaves a float network's operators as they are and puts a
// QuantizeLinear and a DequantizeLinear (uint8, asymmetric) on every
// activation; a convolution's weight becomes an int8 initializer
// dequantized per output channel (symmetric, zero points 0), or a uint8
// one with a zero point per channel (asymmetric, its QUInt8 weights), its
// bias an int32 one dequantized at the product of the activation's scale
// and the weight's. Here the activations' ranges are fixed, not calibrated: the
// weights are scaled by fan-in, so what a convolution gives stays within
// them.
//
//===----------------------------------------------------------------------===//
#include "today_net.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace quarry::bench {

namespace {

using onnx::TensorProto;

/// The quantization of an activation: scale and zero point.
struct Range {
  float scale;
  uint8_t zero;
};
/// [-8, 8) before a Relu, [0, 6] after one.
constexpr Range kSigned{16.0f / 255.0f, 128};
constexpr Range kRectified{6.0f / 255.0f, 0};

/// `x` quantized and dequantized again.
std::string qdq(Net &n, const std::string &x, Range r) {
  const std::string s =
      n.raw(TensorProto::FLOAT, {}, std::vector<float>{r.scale});
  const std::string z =
      n.raw(TensorProto::UINT8, {}, std::vector<uint8_t>{r.zero});
  return n.op("DequantizeLinear", {n.op("QuantizeLinear", {x, s, z}), s, z});
}

/// A dequantized initializer: `q` less `zero` times `scale` (one per
/// slice along `axis` when `scale` has more than one; zero points 0 where
/// `zero` is empty) of type `type`.
template <typename Q>
std::string dequantized(Net &n, int32_t type, const Ints &shape,
                        const std::vector<Q> &q,
                        const std::vector<float> &scale, int64_t axis = 0,
                        std::vector<Q> zero = {}) {
  const bool per_row = scale.size() > 1;
  const Ints scale_shape =
      per_row ? Ints{static_cast<int64_t>(scale.size())} : Ints{};
  if (zero.empty())
    zero.assign(scale.size(), 0);
  const std::string out = n.fresh("weight");
  auto &node = n.node("DequantizeLinear",
                      {n.raw(type, shape, q),
                       n.raw(TensorProto::FLOAT, scale_shape, scale),
                       n.raw(type, scale_shape, zero)},
                      out);
  if (per_row)
    set_int(node, "axis", axis);
  return out;
}

/// Weights of `rows` rows quantized symmetrically to int8, one scale per
/// row (`per_row`) or one for all.
std::vector<float> int8_scales(const std::vector<float> &w, int64_t rows,
                               bool per_row) {
  const size_t per = w.size() / static_cast<size_t>(rows);
  std::vector<float> scale(per_row ? static_cast<size_t>(rows) : 1, 0.0f);
  for (size_t i = 0; i < w.size(); ++i) {
    float &s = scale[per_row ? i / per : 0];
    s = std::max(s, std::fabs(w[i]) / 127.0f);
  }
  return scale;
}
std::vector<int8_t> to_int8(const std::vector<float> &w,
                            const std::vector<float> &scale) {
  const size_t per = w.size() / scale.size();
  std::vector<int8_t> q(w.size());
  for (size_t i = 0; i < w.size(); ++i)
    q[i] = static_cast<int8_t>(
        std::clamp(std::nearbyint(w[i] / scale[i / per]), -127.0f, 127.0f));
  return q;
}

/// [rows, cols] row-major `w` as [cols, rows].
template <typename T>
std::vector<T> transposed(const std::vector<T> &w, int64_t rows, int64_t cols) {
  std::vector<T> t(w.size());
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      t[static_cast<size_t>(j * rows + i)] =
          w[static_cast<size_t>(i * cols + j)];
  return t;
}

/// `w` of `rows` rows quantized asymmetrically to uint8, one scale and
/// zero point per row (`per_row`) or for the tensor, as ONNX Runtime
/// quantizes QUInt8 weights: each range (0 included) over the 255 steps,
/// the zero point where 0 falls.
struct Uint8Weights {
  std::vector<uint8_t> q, zero;
  std::vector<float> scale;
};
Uint8Weights to_uint8(const std::vector<float> &w, int64_t rows, bool per_row) {
  const size_t per = per_row ? w.size() / static_cast<size_t>(rows) : w.size();
  Uint8Weights r;
  for (size_t at = 0; at < w.size(); at += per) {
    const auto [lo, hi] =
        std::minmax_element(w.begin() + at, w.begin() + at + per);
    const float from = std::min(*lo, 0.0f), to = std::max(*hi, 0.0f);
    const float scale = to > from ? (to - from) / 255.0f : 1.0f;
    const float zero = std::clamp(std::nearbyint(-from / scale), 0.0f, 255.0f);
    r.scale.push_back(scale);
    r.zero.push_back(static_cast<uint8_t>(zero));
    for (size_t i = at; i < at + per; ++i)
      r.q.push_back(static_cast<uint8_t>(
          std::clamp(std::nearbyint(w[i] / scale) + zero, 0.0f, 255.0f)));
  }
  return r;
}

/// A convolution of an activation dequantized at `in`, its weight int8
/// (symmetric) or, `as_uint8`, uint8 (asymmetric) per output channel, its
/// bias int32.
std::string conv(Net &n, const std::string &x, Range in, int64_t cin,
                 int64_t cout, int64_t k, int64_t stride, int64_t pad,
                 bool as_uint8) {
  const Ints shape = {cout, cin, k, k};
  const std::vector<float> w =
      n.values(shape, std::sqrt(6.0 / static_cast<double>(cin * k * k)));
  const std::vector<float> b = n.values({cout}, 0.1);
  std::vector<float> ws;
  std::string weight;
  if (as_uint8) {
    const Uint8Weights u = to_uint8(w, cout, true);
    ws = u.scale;
    weight = dequantized(n, TensorProto::UINT8, shape, u.q, ws, 0, u.zero);
  } else {
    ws = int8_scales(w, cout, true);
    weight = dequantized(n, TensorProto::INT8, shape, to_int8(w, ws), ws);
  }
  std::vector<float> bs(ws.size());
  std::vector<int32_t> bq(b.size());
  for (size_t c = 0; c < b.size(); ++c) {
    bs[c] = in.scale * ws[c];
    bq[c] = static_cast<int32_t>(std::nearbyint(b[c] / bs[c]));
  }
  const std::string out = n.fresh("conv");
  auto &node = n.node(
      "Conv", {x, weight, dequantized(n, TensorProto::INT32, {cout}, bq, bs)},
      out);
  set_window(node, k, stride, pad);
  return out;
}

/// nn.Linear quantized: its input through QDQ, its weight [in, out] int8
/// with one scale per output column (dequantized along axis 1), its bias
/// float.
std::string linear(Net &n, const std::string &x, int64_t in, int64_t out) {
  const std::vector<float> w =
      n.values({in, out}, std::sqrt(3.0 / static_cast<double>(in)));
  // Quantized by rows of its transpose: one row per output column.
  const std::vector<float> columns = transposed(w, in, out);
  const std::vector<float> scale = int8_scales(columns, out, true);
  const std::string weight =
      dequantized(n, TensorProto::INT8, {in, out},
                  transposed(to_int8(columns, scale), out, in), scale, 1);
  return n.op("Add", {n.op("MatMul", {qdq(n, x, kSigned), weight}),
                      n.weight({out}, 0.1)});
}

} // namespace

/// A ViT of 4 blocks of 3 heads over the 64 patches of 128x128 images,
/// mean-pooled, its linear layers quantized (the patches' convolution, the
/// attention's products and the classifier stay float).
void vit_s_qdq(const std::string &path) {
  Net n({1, 3, 128, 128});
  n.linear_form = linear;
  vit(n, {128, 4, 3, false}, path);
}

namespace {

/// A convolution dynamically quantized as ONNX Runtime's quantize_dynamic
/// writes one: DynamicQuantizeLinear of its input (uint8, scale and zero
/// point computed from the input's range), ConvInteger by int8 weights
/// (symmetric, one scale, zero point 0) or, `as_uint8`, by uint8 ones
/// (asymmetric, one scale and zero point), the int32 sums cast to float and
/// scaled by the product of the two scales, then the bias.
std::string dynamic_conv(Net &n, const std::string &x, int64_t cin,
                         int64_t cout, int64_t k, int64_t stride, int64_t pad,
                         bool as_uint8) {
  const Ints shape = {cout, cin, k, k};
  const std::vector<float> w =
      n.values(shape, std::sqrt(6.0 / static_cast<double>(cin * k * k)));
  const std::vector<float> b = n.values({cout}, 0.1);
  std::string weight, weight_zero;
  std::vector<float> ws;
  if (as_uint8) {
    const Uint8Weights u = to_uint8(w, cout, false);
    ws = u.scale;
    weight = n.raw(TensorProto::UINT8, shape, u.q);
    weight_zero = n.raw(TensorProto::UINT8, {}, u.zero);
  } else {
    ws = int8_scales(w, cout, false);
    weight = n.raw(TensorProto::INT8, shape, to_int8(w, ws));
    weight_zero = n.raw(TensorProto::INT8, {}, std::vector<int8_t>{0});
  }
  const std::string xq = n.fresh("quantized"), xs = n.fresh("scale"),
                    xz = n.fresh("zero_point");
  auto &dq = n.node("DynamicQuantizeLinear", {x}, xq);
  dq.add_output(xs);
  dq.add_output(xz);
  const std::string sums = n.fresh("conv_integer");
  auto &c = n.node("ConvInteger", {xq, weight, xz, weight_zero}, sums);
  set_window(c, k, stride, pad);
  const std::string sum = n.fresh("cast");
  set_int(n.node("Cast", {sums}, sum), "to", TensorProto::FLOAT);
  const std::string scale =
      n.op("Mul", {xs, n.raw(TensorProto::FLOAT, {}, ws)});
  return n.op("Add", {n.op("Mul", {sum, scale}),
                      n.raw(TensorProto::FLOAT, {cout, 1, 1}, b)});
}

/// A ResNet of three basic blocks (32, 64 and 128 channels) on 112x112
/// images, each activation what `activation` makes of it and each
/// convolution `conv`'s; the features before the classifier, and their
/// channels.
struct Quantized {
  std::function<std::string(Net &, const std::string &, Range)> activation;
  std::function<std::string(Net &, const std::string &, Range, int64_t, int64_t,
                            int64_t, int64_t, int64_t)>
      conv;
};
std::pair<std::string, int64_t> resnet_s(Net &n, const Quantized &q) {
  std::string x = q.activation(n, "input", kSigned);
  x = q.activation(n, n.op("Relu", {q.conv(n, x, kSigned, 3, 32, 7, 2, 3)}),
                   kRectified);
  x = q.activation(n, n.pool("MaxPool", x, 3, 2, 1), kRectified);
  int64_t c = 32;
  for (int64_t cout : {32, 64, 128}) {
    const int64_t s = cout == c ? 1 : 2;
    std::string y = q.activation(
        n, n.op("Relu", {q.conv(n, x, kRectified, c, cout, 3, s, 1)}),
        kRectified);
    y = q.activation(n, q.conv(n, y, kRectified, cout, cout, 3, 1, 1), kSigned);
    const std::string skip =
        s == 1 ? x
               : q.activation(n, q.conv(n, x, kRectified, c, cout, 1, s, 0),
                              kSigned);
    x = q.activation(n, n.op("Relu", {n.op("Add", {y, skip})}), kRectified);
    c = cout;
  }
  x = q.activation(n, n.op("GlobalAveragePool", {x}), kRectified);
  const std::string f = n.fresh("flatten");
  set_int(n.node("Flatten", {x}, f), "axis", 1);
  return {f, c};
}

} // namespace

/// resnet_s quantized in QDQ form: every activation through QuantizeLinear
/// and DequantizeLinear, the convolutions' weights int8 or uint8
/// (`as_uint8`) per channel, the classifier's weight int8 with one scale.
void resnet_s_qdq(const std::string &path, bool as_uint8) {
  Net n({1, 3, 112, 112}, 19);
  const auto [f, c] =
      resnet_s(n, {qdq, [as_uint8](Net &m, const std::string &x, Range in,
                                   int64_t cin, int64_t cout, int64_t k,
                                   int64_t stride, int64_t pad) {
                     return conv(m, x, in, cin, cout, k, stride, pad, as_uint8);
                   }});
  const int64_t classes = 1000;
  const std::vector<float> w =
      n.values({classes, c}, std::sqrt(3.0 / static_cast<double>(c)));
  const std::vector<float> ws = int8_scales(w, classes, false);
  const std::string y = n.fresh("gemm");
  auto &gemm = n.node(
      "Gemm",
      {f, dequantized(n, TensorProto::INT8, {classes, c}, to_int8(w, ws), ws),
       n.weight({classes}, 0.1)},
      y);
  set_int(gemm, "transB", 1);
  n.write(y, path);
}

void resnet_s_qdq(const std::string &path) { resnet_s_qdq(path, false); }
void resnet_s_qdq_u8(const std::string &path) { resnet_s_qdq(path, true); }

/// resnet_s dynamically quantized (its convolutions; the classifier
/// float), the weights int8 or uint8 (`as_uint8`).
void resnet_s_dynamic(const std::string &path, bool as_uint8) {
  Net n({1, 3, 112, 112});
  const auto [f, c] = resnet_s(
      n, {[](Net &, const std::string &x, Range) { return x; },
          [as_uint8](Net &m, const std::string &x, Range, int64_t cin,
                     int64_t cout, int64_t k, int64_t stride, int64_t pad) {
            return dynamic_conv(m, x, cin, cout, k, stride, pad, as_uint8);
          }});
  n.write(n.gemm(f, c, 1000), path);
}

void resnet_s_dynamic(const std::string &path) {
  resnet_s_dynamic(path, false);
}
void resnet_s_dynamic_u8(const std::string &path) {
  resnet_s_dynamic(path, true);
}

} // namespace quarry::bench
