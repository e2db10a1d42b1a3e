//===- onnx_import_dft.cc - DFT and STFT as products with constant matrices
//===//
//
// ONNX's DFT of a fixed length L is linear in its input: with the signal
// axis brought next to the last (the real and imaginary parts) and the
// other axes flattened to rows, the real and imaginary parts of the
// result are products of the input's parts with the constant matrices
//   C[n][k] = cos(2 pi n k / L),  S[n][k] = sin(2 pi n k / L)
// (Re = xr C + s xi S, Im = xi C - s xr S, s = 1 forward and -1 inverse,
// the inverse divided by L), k < L, or k <= L/2 one-sided. STFT, the DFT
// of windowed frames, is a strided convolution with such rows.
//
//===----------------------------------------------------------------------===//
#include "onnx_importer.h"

#include <cmath>

namespace quarry::onnx_io {

namespace {

using I = Importer;
using Ints = std::vector<int64_t>;

ValueRef part(I &m, ValueRef x, int64_t which, int64_t rows, int64_t len) {
  const int r = m.shape(x).rank();
  return reshape_to(m, slice_along(m, x, r - 1, which, which + 1), {rows, len});
}

/// Refuses constant matrices of more than 2^24 values (64 MiB): a length
/// near its limit would otherwise take gigabytes before anything runs.
void check_basis_size(I &m, int64_t values) {
  if (values > (int64_t{1} << 24))
    m.fail("its constant DFT matrices would hold " + std::to_string(values) +
           " values, more than 2^24");
}

void dft(I &m) {
  const ValueRef x = m.in(0);
  const Shape sx = m.shape(x);
  const int r = sx.rank();
  if (r < 3 || (sx[r - 1] != 1 && sx[r - 1] != 2))
    m.fail("input " + sx.str() +
           " is not [batch, ..., signal, 1 or 2] (real or complex)");
  const int axis = m.axis(m.attr_int("axis", 1), r);
  if (axis == r - 1)
    m.fail("the signal axis cannot be the last (its parts)");
  const bool inverse = m.attr_int("inverse", 0) != 0,
             onesided = m.attr_int("onesided", 0) != 0;
  if (inverse && onesided)
    m.fail("an inverse one-sided DFT is not defined");
  const int64_t n = sx[axis];
  int64_t len = n;
  if (m.has_input(1)) {
    const Constant &l = m.need_const(1, "dft_length");
    if (l.ints.size() != 1 || l.ints[0] < 1 || l.ints[0] > (1 << 16))
      m.fail("dft_length must be one value from 1 to 65536");
    len = l.ints[0];
  }
  const int64_t out = onesided ? len / 2 + 1 : len;
  check_basis_size(m, len * out);
  // The signal axis next to the parts, the other axes in order before.
  Ints perm, back(static_cast<size_t>(r));
  for (int i = 0; i < r - 1; ++i)
    if (i != axis)
      perm.push_back(i);
  perm.push_back(axis);
  perm.push_back(r - 1);
  for (int i = 0; i < r; ++i)
    back[static_cast<size_t>(perm[i])] = i;
  ValueRef v = transpose(m, x, perm);
  // Zeros past the signal, or the signal cut, to the length.
  if (len != n) {
    Ints pads(2 * static_cast<size_t>(r), 0);
    pads[static_cast<size_t>(r + r - 2)] = std::max<int64_t>(0, len - n);
    v = m.add(OpKind::Pad, make_attrs(OpKind::Pad, {{"pads", pads}}), {v});
    if (len < n)
      v = slice_along(m, v, r - 2, 0, len);
  }
  int64_t rows = 1;
  Ints lead;
  for (int i = 0; i < r - 2; ++i) {
    rows *= sx[static_cast<int>(perm[i])];
    lead.push_back(sx[static_cast<int>(perm[i])]);
  }
  const double sign = inverse ? -1 : 1, scale = inverse ? 1.0 / len : 1.0;
  auto matrix = [&](const std::string &hint, bool sine, double by) {
    Tensor<float> t(Shape{len, out}, 0.0f);
    for (int64_t i = 0; i < len; ++i)
      for (int64_t k = 0; k < out; ++k) {
        const double theta = 2 * M_PI * static_cast<double>((i * k) % len) /
                             static_cast<double>(len);
        t[i * out + k] = static_cast<float>(
            by * scale * (sine ? std::sin(theta) : std::cos(theta)));
      }
    return m.constant_weight(m.node().output(0) + "_" + hint, std::move(t));
  };
  const ValueRef xr = part(m, v, 0, rows, len);
  const ValueRef cosine = matrix("cos", false, 1);
  ValueRef re = m.add(OpKind::MatMul, {xr, cosine});
  ValueRef im = m.add(OpKind::MatMul, {xr, matrix("minus_sin", true, -sign)});
  if (sx[r - 1] == 2) {
    const ValueRef xi = part(m, v, 1, rows, len);
    re = binary(m, ops::BroadcastFn::Add, re,
                m.add(OpKind::MatMul, {xi, matrix("sin", true, sign)}));
    im = binary(m, ops::BroadcastFn::Add, im,
                m.add(OpKind::MatMul, {xi, cosine}));
  }
  Ints dims = lead;
  dims.push_back(out);
  dims.push_back(1);
  const ValueRef y = m.add(
      OpKind::Concat, make_attrs(OpKind::Concat, {{"axis", int64_t{r - 1}}}),
      {reshape_to(m, re, dims), reshape_to(m, im, dims)});
  m.set_output(0, transpose(m, y, back));
}

/// STFT: each frame's DFT is linear in the frame, so all frames are one
/// strided convolution of the signal, seen as [batch, parts, 1, length],
/// with constant kernels of one row: for bin k, Re reads the real part
/// through w[n] cos(2 pi n k / L) and the imaginary through w[n] sin, Im
/// the real through -w[n] sin and the imaginary through w[n] cos (w the
/// window, ones without one). Its [batch, 2 bins, 1, frames] becomes
/// [batch, frames, bins, 2].
void stft(I &m) {
  const ValueRef x = m.in(0);
  const Shape sx = m.shape(x);
  if (sx.rank() != 3 || (sx[2] != 1 && sx[2] != 2))
    m.fail("signal " + sx.str() +
           " is not [batch, length, 1 or 2] (real or complex)");
  const Constant &step_c = m.need_const(1, "frame_step");
  if (step_c.ints.size() != 1 || step_c.ints[0] < 1 ||
      step_c.ints[0] > (int64_t{1} << 31))
    m.fail("frame_step must be one value from 1 to 2^31");
  const int64_t step = step_c.ints[0];
  std::vector<double> window;
  if (m.has_input(2)) {
    const Constant &w = m.need_const(2, "window");
    if (w.shape.rank() != 1)
      m.fail("window " + w.shape.str() + " is not 1-D");
    window = w.reals;
  }
  int64_t len = window.empty() ? sx[1] : static_cast<int64_t>(window.size());
  if (m.has_input(3)) {
    const Constant &l = m.need_const(3, "frame_length");
    if (l.ints.size() != 1)
      m.fail("frame_length must be one value");
    if (!window.empty() && l.ints[0] != len)
      m.fail("frame_length " + std::to_string(l.ints[0]) +
             " is not the window's length " + std::to_string(len));
    len = l.ints[0];
  }
  if (len < 1 || len > (1 << 16) || len > sx[1])
    m.fail("frame_length " + std::to_string(len) +
           " must be from 1 to 65536 and at most the signal's " +
           std::to_string(sx[1]));
  if (window.empty())
    window.assign(static_cast<size_t>(len), 1.0);
  const int64_t bins = m.attr_int("onesided", 1) != 0 ? len / 2 + 1 : len;
  const int64_t parts = sx[2];
  check_basis_size(m, 2 * bins * parts * len);
  Tensor<float> k(Shape{2 * bins, parts, 1, len}, 0.0f);
  for (int64_t b = 0; b < bins; ++b)
    for (int64_t n = 0; n < len; ++n) {
      const double theta = 2 * M_PI * static_cast<double>((n * b) % len) /
                           static_cast<double>(len);
      const double c = window[n] * std::cos(theta),
                   s = window[n] * std::sin(theta);
      k[(b * parts + 0) * len + n] = static_cast<float>(c);
      k[((bins + b) * parts + 0) * len + n] = static_cast<float>(-s);
      if (parts == 2) {
        k[(b * parts + 1) * len + n] = static_cast<float>(s);
        k[((bins + b) * parts + 1) * len + n] = static_cast<float>(c);
      }
    }
  const ValueRef signal =
      reshape_to(m, transpose(m, x, {0, 2, 1}), {sx[0], parts, 1, sx[1]});
  const ValueRef y = m.add(
      OpKind::Conv2D,
      make_attrs(OpKind::Conv2D,
                 {{"s", Ints{1, step}}, {"pad", int64_t(Padding::Valid)}}),
      {signal, m.constant_weight(m.node().output(0) + "_basis", std::move(k))});
  const int64_t frames = m.shape(y)[3];
  m.set_output(0, transpose(m, reshape_to(m, y, {sx[0], 2, bins, frames}),
                            {0, 3, 2, 1}));
}

} // namespace

void add_dft_handler(std::map<std::string, Handler, std::less<>> &table) {
  table.emplace("DFT", dft);
  table.emplace("STFT", stft);
}

} // namespace quarry::onnx_io
