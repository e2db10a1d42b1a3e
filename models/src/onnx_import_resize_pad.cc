//===- onnx_import_resize_pad.cc - Resize, Upsample, GridSample, Pad ------===//
//
// The operators that resample or pad an image: ONNX's modes and coordinate
// transformations onto resize and grid_sample, and Pad (constant, edge,
// reflect; negative pads as crops) onto pad and slice.
//
//===----------------------------------------------------------------------===//
#include "onnx_attrs.h"
#include "onnx_importer.h"

#include <algorithm>
#include <span>

namespace quarry::onnx_io {

namespace {

using I = Importer;
using Ints = std::vector<int64_t>;

/// The index of string attribute value `v` in an operator's enum `names`;
/// fails naming the attribute (`what`) when it has none.
int64_t enum_index(I &m, std::span<const std::string_view> names,
                   const std::string &v, const char *what) {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == v)
      return static_cast<int64_t>(i);
  m.fail(std::string(what) + " " + v + " is not supported");
}

void grid_sample(I &m) {
  std::string mode = m.attr_string("mode", "bilinear");
  // Opset 20 renamed bilinear and bicubic to linear and cubic.
  if (mode == "linear" || mode == "cubic")
    mode = "bi" + mode;
  const int64_t pad =
      enum_index(m, ops::kGridSamplePadNames,
                 m.attr_string("padding_mode", "zeros"), "padding_mode");
  m.set_output(
      0, m.add(OpKind::GridSample,
               make_attrs(
                   OpKind::GridSample,
                   {{"mode",
                     enum_index(m, ops::kGridSampleModeNames, mode, "mode")},
                    {"pad", pad},
                    {"align", int64_t(m.attr_int("align_corners", 0) != 0)}}),
               {m.in(0), m.in(1)}));
}

/// The output extents of `sx` at `scales`, floored as ONNX has them.
Ints floored_extents(I &m, const Shape &sx, const std::vector<double> &scales) {
  if (static_cast<int>(scales.size()) != sx.rank())
    m.fail("scales must have one value per axis");
  Ints out;
  for (int i = 0; i < sx.rank(); ++i) {
    const double want = static_cast<double>(sx[i]) * scales[i];
    if (!(want >= 1 && want <= double(int64_t{1} << 40)))
      m.fail("scale " + std::to_string(scales[i]) + " of axis " +
             std::to_string(i) + " gives no extent quarry holds");
    out.push_back(static_cast<int64_t>(std::floor(want)));
  }
  return out;
}

/// floored_extents, failing where one is not in its scale's ratio to the
/// input: quarry's resize maps coordinates by out/in, ONNX by the scale.
Ints scaled_extents(I &m, const Shape &sx, const std::vector<double> &scales) {
  Ints out = floored_extents(m, sx, scales);
  for (int i = 0; i < sx.rank(); ++i)
    if (static_cast<double>(out[i]) != static_cast<double>(sx[i]) * scales[i])
      m.fail("scale " + std::to_string(scales[i]) + " of axis " +
             std::to_string(i) + " gives " + std::to_string(out[i]) + " of " +
             std::to_string(sx[i]) +
             ", not in that ratio, which quarry's resize needs");
  return out;
}

/// A resize whose scales are not out/in (ONNX floors the extents but maps
/// coordinates by the scale): along each resized axis a product with the
/// constant [in, out] matrix of its taps at that scale, the axis moved
/// last and back.
ValueRef resize_by_products(I &m, ValueRef x, const Attrs &attrs,
                            const Ints &out,
                            const std::vector<double> &scales) {
  const Shape sx = m.shape(x);
  const int r = sx.rank();
  ValueRef v = x;
  for (int a = 0; a < r; ++a) {
    if (sx[a] == out[a] && scales[a] == 1.0)
      continue;
    const int64_t in = sx[a];
    if (out[a] > (int64_t{1} << 24) / in)
      m.fail("scale " + std::to_string(scales[a]) + " of axis " +
             std::to_string(a) + " is not " + std::to_string(out[a]) + "/" +
             std::to_string(in) + ", and its matrix of " + std::to_string(in) +
             " x " + std::to_string(out[a]) + " taps is past 2^24 values");
    const ops::Resize::Taps taps =
        ops::Resize::taps(attrs, in, out[a], scales[a]);
    std::vector<double> sums(static_cast<size_t>(in * out[a]), 0.0);
    for (int64_t o = 0; o < out[a]; ++o)
      for (size_t k = 0; k < taps.index[o].size(); ++k)
        sums[taps.index[o][k] * out[a] + o] += taps.weight[o][k];
    Tensor<float> mat(Shape{in, out[a]}, 0.0f);
    for (size_t i = 0; i < sums.size(); ++i)
      mat.data[i] = static_cast<float>(sums[i]);
    Ints perm, back(static_cast<size_t>(r));
    for (int d = 0; d < r; ++d)
      if (d != a)
        perm.push_back(d);
    perm.push_back(a);
    for (int d = 0; d < r; ++d)
      back[static_cast<size_t>(perm[d])] = d;
    Ints dims;
    for (int d = 0; d < r - 1; ++d)
      dims.push_back(m.shape(v)[static_cast<int>(perm[d])]);
    const int64_t rows = m.shape(v).numel() / in;
    const ValueRef flat = reshape_to(m, transpose(m, v, perm), {rows, in});
    const ValueRef y =
        m.add(OpKind::MatMul,
              {flat, m.constant_weight(m.node().output(0) + "_axis" +
                                           std::to_string(a) + "_taps",
                                       std::move(mat))});
    dims.push_back(out[a]);
    v = transpose(m, reshape_to(m, y, dims), back);
  }
  return v;
}

/// Upsample (deprecated at 10): a resize with asymmetric coordinates and
/// nearest's floor, its scales an attribute before opset 9 and input 1
/// from it.
void upsample(I &m) {
  const ValueRef x = m.in(0);
  std::vector<double> scales;
  if (m.opset() < 9) {
    if (const auto *a = m.attr("scales"))
      scales.assign(a->floats().begin(), a->floats().end());
  } else {
    scales = m.need_const(1, "scales").reals;
  }
  std::string mode = m.attr_string("mode", "nearest");
  if (mode == "bilinear")
    mode = "linear";
  if (mode != "nearest" && mode != "linear")
    m.fail("mode " + mode + " is not supported (nearest, linear are)");
  m.set_output(
      0,
      m.add(OpKind::Resize,
            make_attrs(
                OpKind::Resize,
                {{"shape", scaled_extents(m, m.shape(x), scales)},
                 {"mode", enum_index(m, ops::kResizeModeNames, mode, "mode")},
                 {"coord", static_cast<int64_t>(ops::ResizeCoord::Asymmetric)},
                 {"nearest", static_cast<int64_t>(ops::ResizeNearest::Floor)}}),
            {x}));
}

void resize(I &m) {
  const ValueRef x = m.in(0);
  const Shape sx = m.shape(x);
  const std::string mode = m.attr_string("mode", "nearest");
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    m.fail("mode " + mode + " is not supported (nearest, linear, cubic are)");
  const std::string coord =
      m.attr_string("coordinate_transformation_mode",
                    m.opset() < 11 ? "asymmetric" : "half_pixel");
  const std::string nearest =
      m.attr_string("nearest_mode", "round_prefer_floor");
  Ints out;
  std::vector<double> scales; // ONNX's, where the model gives them
  const int scales_at = m.opset() < 11 ? 1 : 2;
  if (m.opset() >= 11 && m.has_input(3) &&
      !m.need_const(3, "sizes").ints.empty()) {
    out = m.need_const(3, "sizes").ints;
  } else {
    scales = m.need_const(scales_at, "scales").reals;
    out = floored_extents(m, sx, scales);
  }
  const Attrs attrs =
      make_attrs(OpKind::Resize,
                 {{"shape", out},
                  {"mode", enum_index(m, ops::kResizeModeNames, mode, "mode")},
                  {"cubic_a", double(m.attr_float("cubic_coeff_a", -0.75f))},
                  {"exclude_outside", m.attr_int("exclude_outside", 0)},
                  {"coord", enum_index(m, ops::kResizeCoordNames, coord,
                                       "coordinate_transformation_mode")},
                  {"nearest", enum_index(m, ops::kResizeNearestNames, nearest,
                                         "nearest_mode")}});
  bool in_ratio = true;
  for (size_t i = 0; i < scales.size(); ++i)
    in_ratio = in_ratio &&
               static_cast<double>(out[i]) ==
                   static_cast<double>(sx[static_cast<int>(i)]) * scales[i];
  m.set_output(0, in_ratio ? m.add(OpKind::Resize, attrs, {x})
                           : resize_by_products(m, x, attrs, out, scales));
}

/// Pad's mode as an index into ops::kPadModeNames.
int64_t pad_mode(I &m) {
  const std::string mode = m.attr_string("mode", "constant");
  const auto *known = std::find(std::begin(ops::kPadModeNames),
                                std::end(ops::kPadModeNames), mode);
  if (known == std::end(ops::kPadModeNames))
    m.fail("mode " + mode + " is not supported (constant, reflect, edge are)");
  return known - std::begin(ops::kPadModeNames);
}

/// Pad's pads, ONNX's order (befores, then afters), and its constant:
/// attributes before opset 11 (opset 1 names the pads `paddings`),
/// constant inputs from 11.
std::pair<Ints, double> pad_amounts(I &m) {
  if (m.opset() < 11)
    return {m.attr_ints(m.opset() < 2 ? "paddings" : "pads").value_or(Ints{}),
            m.attr_float("value", 0)};
  double value = 0;
  if (m.has_input(2))
    value = m.need_const(2, "constant_value").reals.at(0);
  return {m.need_const(1, "pads").ints, value};
}

/// Refuses pads that are not two per axis of `x`, and negative pads that
/// remove every element of an axis: ONNX then fills the result with the
/// constant, but the crop before that would be an empty tensor, which
/// graphs do not hold.
void check_pads(I &m, const Shape &x, const Ints &pads) {
  const int r = x.rank();
  if (pads.size() != 2 * static_cast<size_t>(r))
    m.fail("pads needs " + std::to_string(2 * r) + " values for " + x.str());
  for (int i = 0; i < r; ++i) {
    const int64_t b = pads[i], e = pads[i + r];
    // In 128 bits: pads may be any int64, their sum not.
    if (__int128{x[i]} + std::min<int64_t>(b, 0) + std::min<int64_t>(e, 0) < 1)
      m.fail("pads " + std::to_string(b) + "," + std::to_string(e) +
             " remove all " + std::to_string(x[i]) + " elements of axis " +
             std::to_string(i) + " (quarry holds no empty tensors)");
  }
}

/// x without what the negative pads remove (-p elements from that side of
/// the axis): one slice over the axes they crop; x itself if none do.
ValueRef crop_negative_pads(I &m, ValueRef x, const Ints &pads) {
  const Shape sx = m.shape(x);
  const int r = sx.rank();
  Ints starts, ends, axes;
  for (int i = 0; i < r; ++i) {
    const int64_t b = std::min<int64_t>(pads[i], 0);
    const int64_t e = std::min<int64_t>(pads[i + r], 0);
    if (b == 0 && e == 0)
      continue;
    starts.push_back(-b);
    ends.push_back(sx[i] + e);
    axes.push_back(i);
  }
  if (axes.empty())
    return x;
  Ints steps(axes.size(), 1);
  return m.add(OpKind::Slice,
               make_attrs(OpKind::Slice, {{"starts", std::move(starts)},
                                          {"ends", std::move(ends)},
                                          {"axes", std::move(axes)},
                                          {"steps", std::move(steps)}}),
               {x});
}

/// ONNX Pad. A negative pad crops: the negative parts are cut off first,
/// then the rest is padded. That order is ONNX's own (its reference
/// slices, then numpy-pads the cropped tensor), so reflect and edge
/// mirror and repeat the cropped tensor's edges, and reflect's limit of
/// extent - 1 applies to the cropped extent.
void pad(I &m) {
  const int64_t mode = pad_mode(m);
  const auto [pads, value] = pad_amounts(m);
  const ValueRef x = m.in(0);
  check_pads(m, m.shape(x), pads);
  const ValueRef cropped = crop_negative_pads(m, x, pads);
  Ints added = pads;
  for (int64_t &p : added)
    p = std::max<int64_t>(p, 0);
  if (std::all_of(added.begin(), added.end(), [](int64_t p) { return p == 0; }))
    return m.set_output(0, cropped);
  m.set_output(0, m.add(OpKind::Pad,
                        make_attrs(OpKind::Pad, {{"pads", std::move(added)},
                                                 {"value", value},
                                                 {"mode", mode}}),
                        {cropped}));
}

} // namespace

void add_resize_pad_handlers(
    std::map<std::string, Handler, std::less<>> &table) {
  table.emplace("GridSample", grid_sample);
  table.emplace("Resize", resize);
  table.emplace("Upsample", upsample);
  table.emplace("Pad", pad);
}

} // namespace quarry::onnx_io
