//===- onnx_kernels_detection.cc - NonMaxSuppression and RoiAlign ---------===//
//
// What detection models end in: selecting boxes by score and overlap, and
// pooling each selected region to a fixed size. Each follows ONNX's
// reference implementation, which mirrors ONNX Runtime's CPU kernels: the
// same order of selection, the same tie-breaking, and float32 arithmetic
// in the same order.
//
//===----------------------------------------------------------------------===//
#include "onnx_kernels_impl.h"

#include "quarry/core/error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace quarry::onnx_io::kernels {

namespace {

//===----------------------------------------------------------------------===//
// NonMaxSuppression
//===----------------------------------------------------------------------===//

/// A box's extent on each axis, however its four numbers give it.
struct Extent {
  float x_min, x_max, y_min, y_max;
};

Extent extent_of(const float *b, bool center_point) {
  if (center_point) {
    // [x_center, y_center, width, height].
    float half_w = b[2] / 2, half_h = b[3] / 2;
    return {b[0] - half_w, b[0] + half_w, b[1] - half_h, b[1] + half_h};
  }
  // [y1, x1, y2, x2], either corner first.
  return {std::min(b[1], b[3]), std::max(b[1], b[3]), std::min(b[0], b[2]),
          std::max(b[0], b[2])};
}

float area_of(const Extent &e) {
  return (e.x_max - e.x_min) * (e.y_max - e.y_min);
}

/// The boxes kept so far, an array per coordinate, so that a candidate is
/// compared with a block of them at once. The arrays run to a whole number
/// of blocks, the last one filled with empty boxes, which overlap nothing.
class KeptBoxes {
public:
  static constexpr size_t kBlock = 16;

  void add(const Extent &e) {
    if (count_ % kBlock == 0) {
      const float inf = std::numeric_limits<float>::infinity();
      const size_t size = count_ + kBlock;
      x_min_.resize(size, inf);
      y_min_.resize(size, inf);
      x_max_.resize(size, -inf);
      y_max_.resize(size, -inf);
      area_.resize(size, 0.0f);
    }
    x_min_[count_] = e.x_min;
    x_max_[count_] = e.x_max;
    y_min_[count_] = e.y_min;
    y_max_[count_] = e.y_max;
    area_[count_] = area_of(e);
    ++count_;
  }

  /// Whether `a` overlaps a kept box by more than `iou_threshold`, in
  /// float32 as ONNX Runtime computes it; boxes of no area never suppress.
  /// Each comparison takes the form that is false on NaN, where ONNX
  /// Runtime's early returns then reach a NaN ratio, which is no overlap.
  bool suppress(const Extent &a, float iou_threshold) const {
    const float area_a = area_of(a);
    if (!(area_a > 0.0f))
      return false;
    for (size_t start = 0; start < count_; start += kBlock) {
      const float *__restrict x0 = x_min_.data() + start;
      const float *__restrict x1 = x_max_.data() + start;
      const float *__restrict y0 = y_min_.data() + start;
      const float *__restrict y1 = y_max_.data() + start;
      const float *__restrict area = area_.data() + start;
      int hit = 0;
      for (size_t k = 0; k < kBlock; ++k) {
        // std::max and std::min's own forms, NaN included.
        const float ix_min = a.x_min < x0[k] ? x0[k] : a.x_min;
        const float ix_max = x1[k] < a.x_max ? x1[k] : a.x_max;
        const float iy_min = a.y_min < y0[k] ? y0[k] : a.y_min;
        const float iy_max = y1[k] < a.y_max ? y1[k] : a.y_max;
        const float intersection = (ix_max - ix_min) * (iy_max - iy_min);
        const float union_area = area_a + area[k] - intersection;
        const bool overlaps = (ix_max > ix_min) & (iy_max > iy_min) &
                              (intersection > 0.0f) & (area[k] > 0.0f) &
                              (union_area > 0.0f) &
                              (intersection / union_area > iou_threshold);
        hit |= overlaps ? 1 : 0;
      }
      if (hit)
        return true;
    }
    return false;
  }

private:
  std::vector<float> x_min_, x_max_, y_min_, y_max_, area_;
  size_t count_ = 0;
};

/// An optional scalar float operand; an empty tensor counts as absent, as
/// in ONNX's reference.
std::optional<float> optional_float(const Inputs &in, size_t i,
                                    const char *name) {
  const HeldValue *v = optional_input(in, i);
  if (!v || v->value.numel() == 0)
    return std::nullopt;
  if (v->value.numel() != 1)
    throw Error(std::string(name) + " must hold one value, not " +
                std::to_string(v->value.numel()) + " (shape " +
                v->value.shape.str() + ")");
  return v->value[0];
}

struct NmsArgs {
  int64_t batches = 0, classes = 0, spatial = 0;
  int64_t max_per_class = 0;
  float iou_threshold = 0.0f;
  std::optional<float> score_threshold;
  bool center_point = false;
};

NmsArgs nms_args(const onnx::NodeProto &n, const Inputs &in) {
  check_input_count(in, 5);
  const Shape &boxes = required_input(in, 0, "boxes").value.shape;
  const Shape &scores = required_input(in, 1, "scores").value.shape;
  if (boxes.rank() != 3 || boxes[2] != 4)
    throw Error("boxes must be [batches, spatial, 4], not " + boxes.str());
  if (scores.rank() != 3)
    throw Error("scores must be [batches, classes, spatial], not " +
                scores.str());
  if (scores[0] != boxes[0] || scores[2] != boxes[1])
    throw Error("scores " + scores.str() + " do not match boxes " +
                boxes.str() + " (want [" + std::to_string(boxes[0]) +
                ", classes, " + std::to_string(boxes[1]) + "])");
  NmsArgs a;
  a.batches = boxes[0];
  a.spatial = boxes[1];
  a.classes = scores[1];
  const HeldValue *most = optional_input(in, 2);
  if (most && most->value.numel() != 0)
    a.max_per_class =
        std::max<int64_t>(single_int(*most, "max_output_boxes_per_class"), 0);
  a.iou_threshold = optional_float(in, 3, "iou_threshold").value_or(0.0f);
  // ONNX gives iou_threshold the range [0, 1]; ONNX Runtime rejects
  // others.
  if (!(a.iou_threshold >= 0.0f && a.iou_threshold <= 1.0f))
    throw Error("iou_threshold must be in [0, 1], not " +
                number(a.iou_threshold));
  a.score_threshold = optional_float(in, 4, "score_threshold");
  int64_t cpb = int_attr(n, "center_point_box", 0);
  if (cpb != 0 && cpb != 1)
    throw Error("center_point_box must be 0 or 1, not " + std::to_string(cpb));
  a.center_point = cpb == 1;
  return a;
}

/// Whether a box of score `a` is considered before one of score `b`:
/// higher first, NaN (which neither reference orders) last.
bool score_before(float a, float b) {
  if (std::isnan(a))
    return false;
  return std::isnan(b) || a > b;
}

/// The boxes of one batch and class that survive, in the order selected:
/// by score, highest first (equal scores by lower index; NaN last).
std::vector<int64_t> select_boxes(const NmsArgs &a,
                                  const std::vector<Extent> &boxes,
                                  const float *scores) {
  std::vector<int64_t> candidates;
  for (int64_t b = 0; b < a.spatial; ++b)
    if (!a.score_threshold || scores[b] > *a.score_threshold)
      candidates.push_back(b);
  // Stable, so equal scores keep the lower index first.
  std::stable_sort(
      candidates.begin(), candidates.end(),
      [&](int64_t l, int64_t r) { return score_before(scores[l], scores[r]); });
  std::vector<int64_t> kept;
  KeptBoxes kept_boxes;
  for (int64_t c : candidates) {
    if (static_cast<int64_t>(kept.size()) >= a.max_per_class)
      break;
    if (kept_boxes.suppress(boxes[c], a.iou_threshold))
      continue;
    kept.push_back(c);
    kept_boxes.add(boxes[c]);
  }
  return kept;
}

} // namespace

/// The boxes each class keeps, per batch and class in turn: int64
/// [selected, 3] of (batch, class, box).
std::vector<HeldValue> non_max_suppression(const onnx::NodeProto &n,
                                           const Inputs &in) {
  const NmsArgs a = nms_args(n, in);
  const Tensor<float> &boxes = in[0]->value;
  const Tensor<float> &scores = in[1]->value;
  std::vector<float> out;
  std::vector<Extent> extents(static_cast<size_t>(a.spatial));
  for (int64_t b = 0; b < a.batches; ++b) {
    for (int64_t s = 0; s < a.spatial; ++s)
      extents[s] = extent_of(boxes.data.data() + (b * a.spatial + s) * 4,
                             a.center_point);
    for (int64_t c = 0; c < a.classes; ++c) {
      const float *class_scores =
          scores.data.data() + (b * a.classes + c) * a.spatial;
      for (int64_t box : select_boxes(a, extents, class_scores)) {
        out.push_back(static_cast<float>(b));
        out.push_back(static_cast<float>(c));
        out.push_back(static_cast<float>(box));
      }
    }
  }
  auto selected = static_cast<int64_t>(out.size() / 3);
  return {make_value(Shape{selected, 3}, std::move(out), kInt64)};
}

namespace {

//===----------------------------------------------------------------------===//
// RoiAlign
//===----------------------------------------------------------------------===//

struct RoiAlignArgs {
  bool max_mode = false;
  int64_t out_h = 1, out_w = 1;
  int64_t sampling_ratio = 0;
  float spatial_scale = 1.0f;
  bool half_pixel = true;
};

RoiAlignArgs roi_align_args(const onnx::NodeProto &n, int64_t opset) {
  RoiAlignArgs a;
  std::string mode = string_attr(n, "mode", "avg");
  if (mode != "avg" && mode != "max")
    throw Error("mode must be \"avg\" or \"max\", not \"" + mode + "\"");
  a.max_mode = mode == "max";
  a.out_h = int_attr(n, "output_height", 1);
  a.out_w = int_attr(n, "output_width", 1);
  if (a.out_h <= 0 || a.out_w <= 0)
    throw Error("output_height and output_width must be positive, not " +
                std::to_string(a.out_h) + " and " + std::to_string(a.out_w));
  a.sampling_ratio = int_attr(n, "sampling_ratio", 0);
  if (a.sampling_ratio < 0)
    throw Error("sampling_ratio must not be negative, not " +
                std::to_string(a.sampling_ratio));
  a.spatial_scale = float_attr(n, "spatial_scale", 1.0f);
  // Before opset 16 RoiAlign had no such attribute and behaved as
  // "output_half_pixel"; opset 16 added it, "half_pixel" by default.
  std::string ctm =
      string_attr(n, "coordinate_transformation_mode",
                  opset < 16 ? "output_half_pixel" : "half_pixel");
  if (ctm != "half_pixel" && ctm != "output_half_pixel")
    throw Error("coordinate_transformation_mode must be \"half_pixel\" or "
                "\"output_half_pixel\", not \"" +
                ctm + "\"");
  a.half_pixel = ctm == "half_pixel";
  return a;
}

/// One sampling point: the four pixels it interpolates (offsets in a
/// channel's plane) and their weights.
struct Sample {
  int64_t pos[4] = {0, 0, 0, 0};
  float w[4] = {0, 0, 0, 0};
};

/// Bilinear interpolation at (y, x) in a height x width plane, as ONNX
/// Runtime does: a point more than one pixel outside the plane weighs
/// nothing (yet reads pixel 0, so that 0 * inf is NaN there too); one
/// within a pixel of the edge takes the edge's value.
Sample sample_at(float y, float x, int64_t height, int64_t width) {
  Sample s;
  if (y < -1.0f || y > static_cast<float>(height) || x < -1.0f ||
      x > static_cast<float>(width))
    return s;
  y = std::max(y, 0.0f);
  x = std::max(x, 0.0f);
  auto y_low = static_cast<int64_t>(y), x_low = static_cast<int64_t>(x);
  int64_t y_high, x_high;
  if (y_low >= height - 1) {
    y_high = y_low = height - 1;
    y = static_cast<float>(y_low);
  } else {
    y_high = y_low + 1;
  }
  if (x_low >= width - 1) {
    x_high = x_low = width - 1;
    x = static_cast<float>(x_low);
  } else {
    x_high = x_low + 1;
  }
  float ly = y - static_cast<float>(y_low);
  float lx = x - static_cast<float>(x_low);
  float hy = 1.0f - ly, hx = 1.0f - lx;
  s.pos[0] = y_low * width + x_low;
  s.pos[1] = y_low * width + x_high;
  s.pos[2] = y_high * width + x_low;
  s.pos[3] = y_high * width + x_high;
  s.w[0] = hy * hx;
  s.w[1] = hy * lx;
  s.w[2] = ly * hx;
  s.w[3] = ly * lx;
  return s;
}

/// The samples per bin along one axis: sampling_ratio, or else enough to
/// space them at most a pixel apart.
int64_t grid_size(const RoiAlignArgs &a, float roi_size, int64_t bins) {
  // Bounded so that the count of samples per bin stays an int64.
  constexpr int64_t kMost = int64_t{1} << 31;
  if (a.sampling_ratio > 0) {
    if (a.sampling_ratio > kMost)
      throw Error("sampling_ratio " + std::to_string(a.sampling_ratio) +
                  " is too large");
    return a.sampling_ratio;
  }
  float g = std::ceil(roi_size / static_cast<float>(bins));
  if (g > static_cast<float>(kMost))
    throw Error("a roi spans " + number(roi_size) +
                " pixels, too many to sample");
  return g > 0.0f ? static_cast<int64_t>(g) : 0;
}

int64_t batch_index(const Tensor<float> &indices, int64_t r, int64_t batches) {
  float b = indices[r];
  if (!(b >= 0.0f && b < static_cast<float>(batches)) || b != std::trunc(b))
    throw Error("batch_indices[" + std::to_string(r) + "] is " + number(b) +
                ", outside [0, " + std::to_string(batches) + ")");
  return static_cast<int64_t>(b);
}

/// Where roi `r` samples: its bins' origin and size, and the samples per
/// bin along each axis. Checked before any pooling runs, so that pooling
/// (on several threads) throws nothing.
struct RoiGrid {
  int64_t batch = 0;
  float start_h = 0, start_w = 0, bin_h = 0, bin_w = 0;
  int64_t grid_h = 0, grid_w = 0;
};

RoiGrid roi_grid(const RoiAlignArgs &a, const float *roi, int64_t batch) {
  RoiGrid g;
  g.batch = batch;
  const float offset = a.half_pixel ? 0.5f : 0.0f;
  g.start_w = roi[0] * a.spatial_scale - offset;
  g.start_h = roi[1] * a.spatial_scale - offset;
  const float end_w = roi[2] * a.spatial_scale - offset;
  const float end_h = roi[3] * a.spatial_scale - offset;
  if (!std::isfinite(g.start_w) || !std::isfinite(g.start_h) ||
      !std::isfinite(end_w) || !std::isfinite(end_h))
    throw Error("a roi has a coordinate that is not finite");
  float roi_w = end_w - g.start_w, roi_h = end_h - g.start_h;
  if (!a.half_pixel) {
    // Malformed rois become 1x1.
    roi_w = std::max(roi_w, 1.0f);
    roi_h = std::max(roi_h, 1.0f);
  }
  g.bin_h = roi_h / static_cast<float>(a.out_h);
  g.bin_w = roi_w / static_cast<float>(a.out_w);
  g.grid_h = grid_size(a, roi_h, a.out_h);
  g.grid_w = grid_size(a, roi_w, a.out_w);
  return g;
}

/// A roi's samples, bin after bin (row-major), each bin's grid row-major:
/// one plane is then read bin after bin, channel after channel, as ONNX
/// Runtime reads it, rather than every channel's plane for each sample.
/// Rois of more samples than this are sampled channel by channel per
/// sample, without the list.
constexpr int64_t kListedSamples = int64_t{1} << 16;

/// Sample (iy, ix) of bin (ph, pw) of a height x width plane.
Sample bin_sample(const RoiGrid &g, int64_t ph, int64_t pw, int64_t iy,
                  int64_t ix, int64_t height, int64_t width) {
  const float y =
      g.start_h + static_cast<float>(ph) * g.bin_h +
      (static_cast<float>(iy) + 0.5f) * g.bin_h / static_cast<float>(g.grid_h);
  const float x =
      g.start_w + static_cast<float>(pw) * g.bin_w +
      (static_cast<float>(ix) + 0.5f) * g.bin_w / static_cast<float>(g.grid_w);
  return sample_at(y, x, height, width);
}

void list_samples(const RoiAlignArgs &a, const RoiGrid &g, int64_t height,
                  int64_t width, std::vector<Sample> &samples) {
  samples.clear();
  for (int64_t ph = 0; ph < a.out_h; ++ph)
    for (int64_t pw = 0; pw < a.out_w; ++pw)
      for (int64_t iy = 0; iy < g.grid_h; ++iy)
        for (int64_t ix = 0; ix < g.grid_w; ++ix)
          samples.push_back(bin_sample(g, ph, pw, iy, ix, height, width));
}

/// One bin's value in one channel's plane `p` from its samples (their
/// mean, or the largest weighted corner as ONNX Runtime's "max" takes it).
float pool_bin(bool max_mode, const Sample *s, int64_t n, const float *p,
               float count) {
  float acc = 0.0f;
  for (int64_t k = 0; k < n; ++k) {
    const float t0 = s[k].w[0] * p[s[k].pos[0]],
                t1 = s[k].w[1] * p[s[k].pos[1]],
                t2 = s[k].w[2] * p[s[k].pos[2]],
                t3 = s[k].w[3] * p[s[k].pos[3]];
    if (!max_mode)
      acc += t0 + t1 + t2 + t3;
    else {
      const float v = std::max(std::max(std::max(t0, t1), t2), t3);
      acc = k == 0 ? v : std::max(acc, v);
    }
  }
  return max_mode ? acc : acc / count;
}

/// pool_bin for every channel of a bin at once, from an image laid out
/// channels-last (`hwc`: pixel after pixel, each pixel's channels in a row)
/// into `acc`: the same operations in the same order for each channel, so
/// the same values, a vector of channels at a time.
void pool_bin_channels(bool max_mode, const Sample *s, int64_t n,
                       const float *hwc, int64_t channels, float *acc) {
  std::fill(acc, acc + channels, 0.0f);
  for (int64_t k = 0; k < n; ++k) {
    const float *p0 = hwc + s[k].pos[0] * channels,
                *p1 = hwc + s[k].pos[1] * channels,
                *p2 = hwc + s[k].pos[2] * channels,
                *p3 = hwc + s[k].pos[3] * channels;
    const float w0 = s[k].w[0], w1 = s[k].w[1], w2 = s[k].w[2], w3 = s[k].w[3];
    if (!max_mode) {
#pragma omp simd
      for (int64_t c = 0; c < channels; ++c)
        acc[c] += w0 * p0[c] + w1 * p1[c] + w2 * p2[c] + w3 * p3[c];
    } else {
      const bool first = k == 0;
#pragma omp simd
      for (int64_t c = 0; c < channels; ++c) {
        const float v = std::max(
            std::max(std::max(w0 * p0[c], w1 * p1[c]), w2 * p2[c]), w3 * p3[c]);
        acc[c] = first ? v : std::max(acc[c], v);
      }
    }
  }
}

/// Pools one roi into `out` (channels x out_h x out_w), each bin from its
/// grid of bilinear samples. With `hwc` (the image channels-last, or null)
/// a listed roi's bins take all channels at once (pool_bin_channels).
void pool_roi(const RoiAlignArgs &a, const RoiGrid &g, const Tensor<float> &x,
              const float *hwc, float *out, std::vector<Sample> &samples,
              std::vector<float> &acc) {
  const int64_t channels = x.shape[1], height = x.shape[2], width = x.shape[3];
  const int64_t per_bin = g.grid_h * g.grid_w, bins = a.out_h * a.out_w;
  const auto count = static_cast<float>(std::max<int64_t>(per_bin, 1));
  const int64_t plane = height * width;
  const float *data = x.data.data() + g.batch * channels * plane;
  if (per_bin <= kListedSamples / bins) {
    list_samples(a, g, height, width, samples);
    if (hwc) {
      acc.resize(static_cast<size_t>(channels));
      const float *image = hwc + g.batch * channels * plane;
      for (int64_t b = 0; b < bins; ++b) {
        pool_bin_channels(a.max_mode, samples.data() + b * per_bin, per_bin,
                          image, channels, acc.data());
        for (int64_t c = 0; c < channels; ++c)
          out[c * bins + b] = a.max_mode ? acc[c] : acc[c] / count;
      }
      return;
    }
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t b = 0; b < bins; ++b)
        out[c * bins + b] = pool_bin(a.max_mode, samples.data() + b * per_bin,
                                     per_bin, data + c * plane, count);
    return;
  }
  // Too many samples to list: each bin's, one at a time, over all channels.
  acc.assign(static_cast<size_t>(channels), 0.0f);
  for (int64_t ph = 0; ph < a.out_h; ++ph)
    for (int64_t pw = 0; pw < a.out_w; ++pw) {
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int64_t iy = 0; iy < g.grid_h; ++iy) {
        for (int64_t ix = 0; ix < g.grid_w; ++ix) {
          const Sample s = bin_sample(g, ph, pw, iy, ix, height, width);
          const bool first = iy == 0 && ix == 0;
          for (int64_t c = 0; c < channels; ++c) {
            const float v = pool_bin(a.max_mode, &s, 1, data + c * plane, 1.0f);
            acc[c] =
                a.max_mode ? (first ? v : std::max(acc[c], v)) : acc[c] + v;
          }
        }
      }
      for (int64_t c = 0; c < channels; ++c)
        out[(c * a.out_h + ph) * a.out_w + pw] =
            a.max_mode ? acc[c] : acc[c] / count;
    }
}

/// Below this many channels a vector of them is no faster than a plane.
constexpr int64_t kChannelsLast = 8;

/// The pixels the listed rois' bins read per channel (four per sample).
int64_t taps_read(const RoiAlignArgs &a, const std::vector<RoiGrid> &grids) {
  const int64_t bins = a.out_h * a.out_w;
  int64_t taps = 0;
  for (const RoiGrid &g : grids)
    if (const int64_t per_bin = g.grid_h * g.grid_w;
        per_bin <= kListedSamples / bins)
      taps += 4 * bins * per_bin;
  return taps;
}

/// x [N, C, H, W] as [N, H, W, C].
std::vector<float> channels_last(const Tensor<float> &x) {
  const int64_t n = x.shape[0], c = x.shape[1], plane = x.shape[2] * x.shape[3];
  std::vector<float> out(x.data.size());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch) {
      const float *from = x.data.data() + (b * c + ch) * plane;
      float *to = out.data() + b * c * plane + ch;
      for (int64_t p = 0; p < plane; ++p)
        to[p * c] = from[p];
    }
  return out;
}

} // namespace

/// Each roi of `rois` (x1, y1, x2, y2 in X's coordinates before
/// spatial_scale) pooled from its batch's image to [C, out_h, out_w].
std::vector<HeldValue> roi_align(const onnx::NodeProto &n, int64_t opset,
                                 const Inputs &in) {
  check_input_count(in, 3);
  const HeldValue &xv = required_input(in, 0, "X");
  const Tensor<float> &rois = required_input(in, 1, "rois").value;
  const Tensor<float> &indices = required_input(in, 2, "batch_indices").value;
  const Shape &xs = xv.value.shape;
  if (xs.rank() != 4)
    throw Error("X must be [N, C, H, W], not " + xs.str());
  if (rois.shape.rank() != 2 || rois.shape[1] != 4)
    throw Error("rois must be [num_rois, 4], not " + rois.shape.str());
  if (indices.shape.rank() != 1 || indices.shape[0] != rois.shape[0])
    throw Error("batch_indices must be [" + std::to_string(rois.shape[0]) +
                "] (one per roi), not " + indices.shape.str());
  const RoiAlignArgs a = roi_align_args(n, opset);
  const int64_t num_rois = rois.shape[0], channels = xs[1];
  if (num_rois > 0 && channels > 0 && (xs[2] == 0 || xs[3] == 0))
    throw Error("X " + xs.str() + " has no pixels to sample");
  Shape out_shape{num_rois, channels, a.out_h, a.out_w};
  std::vector<float> out(static_cast<size_t>(
      output_elements({num_rois, channels, a.out_h, a.out_w})));
  const int64_t per_roi = channels * a.out_h * a.out_w;
  std::vector<RoiGrid> grids;
  for (int64_t r = 0; r < num_rois; ++r)
    grids.push_back(
        roi_grid(a, rois.data.data() + r * 4, batch_index(indices, r, xs[0])));
  // Where the bins read the image many times over, it is read
  // channels-last, a vector of channels per read (pool_bin_channels).
  std::vector<float> hwc;
  if (channels >= kChannelsLast &&
      taps_read(a, grids) * channels >= xv.value.numel())
    hwc = channels_last(xv.value);
    // Rois apart on the threads the backend runs on (OpenMP's).
#pragma omp parallel if (num_rois * per_roi >= (int64_t{1} << 15))
  {
    std::vector<Sample> samples;
    std::vector<float> acc;
#pragma omp for schedule(dynamic)
    for (int64_t r = 0; r < num_rois; ++r)
      pool_roi(a, grids[r], xv.value, hwc.empty() ? nullptr : hwc.data(),
               out.data() + r * per_roi, samples, acc);
  }
  return {make_value(std::move(out_shape), std::move(out), xv.elem)};
}

} // namespace quarry::onnx_io::kernels
