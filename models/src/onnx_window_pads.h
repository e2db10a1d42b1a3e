//===- onnx_window_pads.h - The pads ONNX's auto_pad gives a window -*- C++
//-*-===//
//
// One definition, over any number of spatial axes, for the convolutions and
// poolings of every rank (2-D and 3-D import, the N-D pooling kernel) and
// for transposed convolutions:
//
//   SAME_UPPER / SAME_LOWER   ceil(in / stride) outputs; the total padding
//                             split in two, the odd one at the end for
//                             SAME_UPPER and at the start for SAME_LOWER
//   ConvTranspose            total = stride (in - 1) + output_padding +
//                             span - out, for out = output_shape or
//                             in * stride; at the start total / 2 for
//                             SAME_UPPER, the larger half otherwise
//
// where span is the dilated kernel's extent, (k - 1) dilation + 1.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace quarry::onnx_io {

/// Pads as ONNX lists them: every axis' begin, then every axis' end.
using WindowPads = std::vector<int64_t>;

/// The pads of auto_pad SAME_UPPER (`upper`) or SAME_LOWER for windows of
/// extents `span` at strides `s` over spatial extents `in`.
inline WindowPads same_pads(const std::vector<int64_t> &in,
                            const std::vector<int64_t> &span,
                            const std::vector<int64_t> &s, bool upper) {
  const size_t n = span.size();
  WindowPads p(2 * n, 0);
  for (size_t i = 0; i < n; ++i) {
    const int64_t out = (in[i] + s[i] - 1) / s[i];
    const int64_t total =
        std::max<int64_t>((out - 1) * s[i] + span[i] - in[i], 0);
    p[i] = upper ? total / 2 : total - total / 2;
    p[n + i] = total - p[i];
  }
  return p;
}

/// The pads of a transposed convolution over spatial extents `in`, kernel
/// extents `span`, strides `s`, that gives outputs of extents `out`: SAME
/// splits as SAME_UPPER (`upper`), or the other way. Where `out` is beyond
/// what the operator makes, `out_pad` grows by the difference (zeros at the
/// end, as ONNX's reference computes it) and that axis is not padded.
/// nullopt where a total is past 2^40 (attribute values only fit 64 bits).
inline std::optional<WindowPads>
transposed_pads(const std::vector<int64_t> &in,
                const std::vector<int64_t> &span, const std::vector<int64_t> &s,
                const std::vector<int64_t> &out, bool upper,
                std::vector<int64_t> &out_pad) {
  const size_t n = span.size();
  WindowPads p(2 * n, 0);
  for (size_t i = 0; i < n; ++i) {
    using Wide = __int128;
    const Wide wide =
        Wide{s[i]} * (in[i] - 1) + out_pad[i] + span[i] - Wide{out[i]};
    if (wide < -(Wide{1} << 40) || wide > (Wide{1} << 40))
      return std::nullopt;
    const int64_t total = static_cast<int64_t>(wide);
    if (total < 0) {
      out_pad[i] -= total;
      continue;
    }
    p[i] = upper ? total / 2 : total - total / 2;
    p[n + i] = total - p[i];
  }
  return p;
}

} // namespace quarry::onnx_io
