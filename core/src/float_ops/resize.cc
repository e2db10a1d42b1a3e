//===- float_ops/resize.cc - resize's shapes and float semantics ----------===//
#include "quarry/core/ops/resize.h"

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
/// The input coordinate that output coordinate `o` maps to on one axis.
double source_coord(ResizeCoord mode, int64_t o, int64_t in, int64_t out) {
  const double scale = static_cast<double>(out) / static_cast<double>(in);
  switch (mode) {
  case ResizeCoord::HalfPixel:
    return (o + 0.5) / scale - 0.5;
  case ResizeCoord::Asymmetric:
    return o / scale;
  case ResizeCoord::AlignCorners:
    return out == 1 ? 0.0 : o * static_cast<double>(in - 1) / (out - 1);
  case ResizeCoord::PytorchHalfPixel:
    return out == 1 ? 0.0 : (o + 0.5) / scale - 0.5;
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

/// Per axis and output coordinate: two source indices and the weight of the
/// second (nearest: both the same, weight 0).
struct Taps {
  std::vector<int64_t> lo, hi;
  std::vector<double> t;
};

Taps axis_taps(const Attrs &a, int64_t in, int64_t out) {
  const auto mode = static_cast<ResizeMode>(a.i(Resize::kMode));
  const auto coord = static_cast<ResizeCoord>(a.i(Resize::kCoord));
  const auto nearest = static_cast<ResizeNearest>(a.i(Resize::kNearest));
  Taps taps;
  for (int64_t o = 0; o < out; ++o) {
    const double c =
        in == out ? static_cast<double>(o) : source_coord(coord, o, in, out);
    if (mode == ResizeMode::Nearest) {
      const int64_t i = nearest_index(nearest, c, in);
      taps.lo.push_back(i);
      taps.hi.push_back(i);
      taps.t.push_back(0.0);
      continue;
    }
    const double cc = std::clamp(c, 0.0, static_cast<double>(in - 1));
    const int64_t lo = static_cast<int64_t>(std::floor(cc));
    taps.lo.push_back(lo);
    taps.hi.push_back(std::min(lo + 1, in - 1));
    taps.t.push_back(cc - static_cast<double>(lo));
  }
  return taps;
}
} // namespace

void Resize::run(const Attrs &a, FloatInputs in, FloatOutputs out) {
  const FloatTensor &x = *in[0];
  FloatTensor &y = out[0];
  const int r = x.shape.rank();
  std::vector<Taps> taps;
  for (int k = 0; k < r; ++k)
    taps.push_back(axis_taps(a, x.shape[k], y.shape[k]));
  const auto xs = x.shape.strides();
  std::vector<int64_t> idx(r, 0);
  for (int64_t i = 0; i < y.numel(); ++i) {
    // Sum over the 2^r corners; axes with weight 0 contribute one corner.
    double acc = 0.0;
    for (uint32_t corner = 0; corner < (1u << r); ++corner) {
      double wgt = 1.0;
      int64_t src = 0;
      for (int k = 0; k < r && wgt != 0.0; ++k) {
        const Taps &t = taps[k];
        const bool high = (corner >> k) & 1u;
        wgt *= high ? t.t[idx[k]] : 1.0 - t.t[idx[k]];
        src += (high ? t.hi[idx[k]] : t.lo[idx[k]]) * xs[k];
      }
      if (wgt != 0.0)
        acc += wgt * x[src];
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
