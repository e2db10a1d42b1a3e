//===- float_ops/resize.cc - resize's shapes and float semantics ----------===//
#include "quarry/core/ops/resize.h"
#include "quarry/core/ops/scalar_fns.h"

#include <algorithm>
#include <cmath>

namespace quarry::ops {

MaybeTypes Resize::infer(const Attrs &a, InTypes in) {
  const Shape out(a.list(kShape));
  if (out.rank() != in[0].rank())
    fail(name, "shape ", out.str(), " has a different rank from input ",
         in[0].shape.str());
  for (int64_t d : out.dims)
    if (d < 1)
      fail(name, "shape dimensions must be positive, got ", out.str());
  return Types{TensorType(out)};
}

namespace {
/// The input coordinate that output coordinate `o` maps to on one axis
/// scaled by `scale`, whose resized width is in x scale before ONNX floors
/// it (out where scale is out/in).
double source_coord(ResizeCoord mode, int64_t o, int64_t in, double scale) {
  const double width = static_cast<double>(in) * scale;
  switch (mode) {
  case ResizeCoord::HalfPixel:
    return (o + 0.5) / scale - 0.5;
  case ResizeCoord::Asymmetric:
    return o / scale;
  case ResizeCoord::AlignCorners:
    return width == 1 ? 0.0 : o * static_cast<double>(in - 1) / (width - 1);
  case ResizeCoord::PytorchHalfPixel:
    return width == 1 ? 0.0 : (o + 0.5) / scale - 0.5;
  case ResizeCoord::TfHalfPixelForNn:
    return (o + 0.5) / scale;
  }
  return 0.0;
}

int64_t nearest_index(ResizeNearest mode, double c, int64_t in) {
  double r = c;
  switch (mode) {
  case ResizeNearest::RoundPreferFloor:
    r = (c - std::floor(c) == 0.5) ? std::floor(c) : std::round(c);
    break;
  case ResizeNearest::RoundPreferCeil:
    r = (c - std::floor(c) == 0.5) ? std::ceil(c) : std::round(c);
    break;
  case ResizeNearest::Floor:
    r = std::floor(c);
    break;
  case ResizeNearest::Ceil:
    r = std::ceil(c);
    break;
  }
  return std::clamp<int64_t>(static_cast<int64_t>(r), 0, in - 1);
}

} // namespace

Resize::Taps Resize::taps(const Attrs &a, int64_t in, int64_t out) {
  return taps(a, in, out, static_cast<double>(out) / static_cast<double>(in));
}

Resize::Taps Resize::taps(const Attrs &a, int64_t in, int64_t out,
                          double scale) {
  const auto mode = static_cast<ResizeMode>(a.i(Resize::kMode));
  const auto coord = static_cast<ResizeCoord>(a.i(Resize::kCoord));
  const auto nearest = static_cast<ResizeNearest>(a.i(Resize::kNearest));
  Taps taps;
  for (int64_t o = 0; o < out; ++o) {
    if (in == out && scale == 1.0) { // every mode reads the same element
      taps.index.push_back({o});
      taps.weight.push_back({1.0});
      continue;
    }
    const double c = source_coord(coord, o, in, scale);
    std::vector<int64_t> index;
    std::vector<double> weight;
    if (mode == ResizeMode::Nearest) {
      index = {nearest_index(nearest, c, in)};
      weight = {1.0};
    } else if (mode == ResizeMode::Linear) {
      const double cc = std::clamp(c, 0.0, static_cast<double>(in - 1));
      const int64_t lo = static_cast<int64_t>(std::floor(cc));
      index = {lo, std::min(lo + 1, in - 1)};
      weight = {1.0 - (cc - static_cast<double>(lo)), cc - lo};
    } else {
      const double base = std::floor(c), s = c - base;
      const bool exclude = a.i(Resize::kExcludeOutside) != 0;
      double total = 0;
      for (int k = -1; k <= 2; ++k) {
        const int64_t at = static_cast<int64_t>(base) + k;
        double w = cubic_weight(std::fabs(s - k), a.real(Resize::kCubicA));
        if (exclude && (at < 0 || at >= in))
          w = 0;
        index.push_back(std::clamp<int64_t>(at, 0, in - 1));
        weight.push_back(w);
        total += w;
      }
      if (exclude && total != 0)
        for (double &w : weight)
          w /= total;
    }
    taps.index.push_back(std::move(index));
    taps.weight.push_back(std::move(weight));
  }
  return taps;
}

void Resize::run(const Attrs &a, FloatInputs in, FloatOutputs out) {
  const FloatTensor &x = *in[0];
  FloatTensor &y = out[0];
  const int r = x.shape.rank();
  std::vector<Taps> taps;
  for (int k = 0; k < r; ++k)
    taps.push_back(Resize::taps(a, x.shape[k], y.shape[k]));
  const auto xs = x.shape.strides();
  std::vector<int64_t> idx(r, 0), tap(r, 0);
  for (int64_t i = 0; i < y.numel(); ++i) {
    // Sum over every combination of one tap per axis (axes that are not
    // resized have a single tap of weight 1).
    double acc = 0.0;
    std::fill(tap.begin(), tap.end(), 0);
    while (true) {
      double wgt = 1.0;
      int64_t src = 0;
      for (int k = 0; k < r; ++k) {
        wgt *= taps[k].weight[idx[k]][tap[k]];
        src += taps[k].index[idx[k]][tap[k]] * xs[k];
      }
      if (wgt != 0.0)
        acc += wgt * x[src];
      int k = r - 1;
      for (; k >= 0; --k) {
        if (++tap[k] < static_cast<int64_t>(taps[k].index[idx[k]].size()))
          break;
        tap[k] = 0;
      }
      if (k < 0)
        break;
    }
    y[i] = static_cast<float>(acc);
    for (int k = r - 1; k >= 0; --k) {
      if (++idx[k] < y.shape[k])
        break;
      idx[k] = 0;
    }
  }
}

} // namespace quarry::ops
