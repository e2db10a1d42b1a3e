//===- ops/batchnorm.h - Inference-mode batch normalization -*- C++ -*-===//
//
// batchnorm[eps=e](x, scale, bias, mean, var): x is [n, c, ...], the others
// are [c]; y = (x - mean) * invsqrt(var + eps) * scale + bias per channel.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/common.h"

namespace quarry::ops {

struct BatchNorm {
  static constexpr std::string_view name = "batchnorm";
  static constexpr int min_inputs = 5, max_inputs = 5;
  enum : size_t { kEps };
  static AttrSchema attrs() {
    static const AttrSpec specs[] = {{"eps", AttrKind::Real, 1e-5}};
    return specs;
  }
  static constexpr OpTraits traits{.opaque_in_field = true};
  static int num_outputs(const Attrs &) { return 1; }

  static MaybeTypes infer(const Attrs &, InTypes in) {
    const TensorType &x = in[0];
    if (x.rank() < 2)
      fail(name, "input must have rank >= 2 (n,c,...), got ", x.shape.str());
    static const char *const what[] = {"scale", "bias", "mean", "var"};
    for (int i = 1; i < 5; ++i)
      if (in[i].shape != Shape{x.shape[1]})
        fail(name, what[i - 1], " must be [", x.shape[1], "], got ",
             in[i].shape.str());
    return Types{x};
  }

  /// One channel's y = x mul + add: mul = invsqrt(var + eps) scale, add =
  /// bias - mean mul. A backend that applies a batchnorm of static
  /// statistics in its own loops takes them from here, so that it rounds as
  /// this definition does.
  template <Domain D> struct Affine { typename D::Scalar mul, add; };
  template <Domain D>
  static Affine<D>
  channel_affine(const D &d, typename D::Scalar scale, typename D::Scalar bias,
                 typename D::Scalar mean, typename D::Scalar var,
                 typename D::Scalar eps) {
    auto m = d.mul(d.unary(UnaryFn::InvSqrt, d.add(var, eps)), scale);
    return {m, d.sub(bias, d.mul(mean, m))};
  }

  template <Domain D>
  static void evaluate(const D &d, const Attrs &a, OpInputs<D> in,
                       OpOutputs<D> out) {
    const auto &x = *in[0];
    const int64_t c = x.shape[1];
    const int64_t inner = x.numel() / (x.shape[0] * c);
    const auto eps = d.constant(a.real(kEps));
    std::vector<typename D::Scalar> mul, add;
    for (int64_t ch = 0; ch < c; ++ch) {
      const Affine<D> f = channel_affine(d, (*in[1])[ch], (*in[2])[ch],
                                         (*in[3])[ch], (*in[4])[ch], eps);
      mul.push_back(f.mul);
      add.push_back(f.add);
    }
    for (int64_t i = 0; i < x.numel(); ++i) {
      const int64_t ch = (i / inner) % c;
      out[0][i] = d.add(d.mul(x[i], mul[ch]), add[ch]);
    }
  }
};

} // namespace quarry::ops
