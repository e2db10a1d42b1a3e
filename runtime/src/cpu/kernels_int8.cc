//===- kernels_int8.cc - Convolutions and products of quantized values ----===//
//
// A convolution or matrix product whose input lies on a quantization grid
// (what a QDQ pair leaves, composites.h) and whose static weights are
// integers times one scale per output channel or column (what a
// per-channel quantizer leaves, folded to floats, less its zero point) runs
// as oneDNN's int8 primitive: the input is quantized again as the step
// starts, into u8 or s8 integers q - zero (exactly: it holds the grid's
// points), the weights are s8, the products are summed in int32, exactly,
// and scaled by the input's and each channel's scale (the primitive's
// output scales) into float32 before the epilogue, which applies the bias
// and the rest of the chain as the float path does. The integers summed are
// those the float kernel multiplies, so the two differ only by float32's
// rounding of the float one's sums. Integers less a zero point that
// leaves them outside s8 (an asymmetric u8 quantizer's: 255 steps centred
// elsewhere) are each the sum of two s8 integers: the input is quantized
// twice, side by side along its channels (a matrix's columns), and the
// weights of the two halves stacked the same way, so that one primitive
// sums both, still exactly, for twice the products. Where the grid's
// integers fit neither u8 nor s8 (a zero point other than 0 or the middle
// of the range), the weights are not such integers, or oneDNN has only
// reference code for the configuration, the float kernel runs.
//
//===----------------------------------------------------------------------===//
#include "conv_algorithms.h"
#include "epilogue.h"
#include "kernels.h"
#include "primitive_step.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

namespace quarry::runtime::cpu {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {

/// Weights [co, per_co] as integers times one scale per output channel.
struct Int8Weights {
  /// Each in [-128, 127]: [co, halves * per_co], channel o's weights
  /// (halves 1), or their two s8 parts one after the other (halves 2).
  std::vector<float> integers;
  std::vector<float> scale;
  int64_t halves = 1;
};

/// `integers` [co, per_co] in [-256, 254], each split into an s8 part and
/// the rest, which is s8 too: [co, 2 * per_co].
std::vector<float> split_in_halves(const std::vector<float> &integers,
                                   int64_t co, int64_t per_co) {
  std::vector<float> halves(2 * integers.size());
  for (int64_t o = 0; o < co; ++o)
    for (int64_t i = 0; i < per_co; ++i) {
      const float d = integers[static_cast<size_t>(o * per_co + i)];
      const float part = std::clamp(d, -128.0f, 127.0f);
      float *both = halves.data() + 2 * o * per_co;
      both[i] = part;
      both[per_co + i] = d - part;
    }
  return halves;
}

/// Whether every weight of `wo` [per] is, within float32's rounding, a
/// whole number of `step`s: a dequantized weight is float32's rounding of
/// q * scale, within a few units in the last place of the largest one.
bool on_steps(const float *wo, int64_t per, float step, float largest) {
  for (int64_t i = 0; i < per; ++i)
    if (std::fabs(std::nearbyint(wo[i] / step) * step - wo[i]) >
        1e-6f * largest)
      return false;
  return true;
}

/// The step of one channel's weights `wo` [per]: their largest magnitude
/// over the fewest steps, up to 256, that put every weight on one (127 for
/// a symmetric quantizer; 128 to 255 for an asymmetric one, whose zero
/// point leaves the largest that far away); nullopt where the weights lie
/// on none. A wrong step meets a weight off it within a few, so the search
/// reads few weights but for the step it returns.
std::optional<float> channel_step(const float *wo, int64_t per) {
  float largest = 0;
  for (int64_t i = 0; i < per; ++i)
    largest = std::max(largest, std::fabs(wo[i]));
  if (largest == 0)
    return 1.0f;
  for (int steps = 1; steps <= 256; ++steps)
    if (on_steps(wo, per, largest / static_cast<float>(steps), largest))
      return largest / static_cast<float>(steps);
  return std::nullopt;
}

/// The integers and scales of `w` [co, per_co]: the weights themselves
/// where they are all integers in [-256, 254] (ConvInteger's, less their
/// zero point), else one step per channel (channel_step) and the integers
/// of them. As they are where every integer fits s8, in two halves where
/// every one is in [-256, 254] (an asymmetric quantizer's, less its zero
/// point); nullopt otherwise.
std::optional<Int8Weights> int8_weights(const float *w, int64_t co,
                                        int64_t per_co) {
  Int8Weights r;
  const size_t n = static_cast<size_t>(co * per_co);
  if (std::all_of(w, w + n, [](float x) {
        return x == std::nearbyint(x) && x >= -256 && x <= 254;
      })) {
    r.integers.assign(w, w + n);
    r.scale.assign(static_cast<size_t>(co), 1.0f);
  } else {
    r.integers.resize(n);
    r.scale.resize(static_cast<size_t>(co));
    for (int64_t o = 0; o < co; ++o) {
      const float *wo = w + o * per_co;
      const std::optional<float> step = channel_step(wo, per_co);
      if (!step)
        return std::nullopt;
      for (int64_t i = 0; i < per_co; ++i)
        r.integers[static_cast<size_t>(o * per_co + i)] =
            std::nearbyint(wo[i] / *step);
      r.scale[static_cast<size_t>(o)] = *step;
    }
  }
  const auto [lo, hi] =
      std::minmax_element(r.integers.begin(), r.integers.end());
  if (n == 0 || (*lo >= -128 && *hi <= 127))
    return r;
  if (*lo < -256 || *hi > 254)
    return std::nullopt;
  r.integers = split_in_halves(r.integers, co, per_co);
  r.halves = 2;
  return r;
}

/// How the input's integers are held: as q - zero, or as q with the
/// grid's zero point given to oneDNN (a zero point that leaves q - zero in
/// neither type's range, or one computed as the model runs).
struct Storage {
  dt type;
  bool zero_point;
};

/// The type of `lo`..`hi`, if one holds them.
std::optional<dt> type_of(float lo, float hi) {
  if (lo >= 0 && hi <= 255)
    return dt::u8;
  if (lo >= -128 && hi <= 127)
    return dt::s8;
  return std::nullopt;
}

std::optional<Storage> storage_of(const QuantizationGrid &grid) {
  if (!grid.computed_zero)
    if (const auto t = type_of(grid.lo - grid.zero, grid.hi - grid.zero))
      return Storage{*t, false};
  if (const auto t = type_of(grid.lo, grid.hi))
    return Storage{*t, true};
  return std::nullopt;
}

/// `attr` with the grid's zero point on argument `arg`: its value, or one
/// given as the step runs where it is computed.
void set_zero_point(dnnl::primitive_attr &attr, int arg,
                    const QuantizationGrid &grid) {
  attr.set_zero_points(arg, 0,
                       {grid.computed_zero ? DNNL_RUNTIME_S32_VAL
                                           : static_cast<int32_t>(grid.zero)});
}

/// The per-output scales: the input's grid times each channel's.
std::vector<float> output_scales(const QuantizationGrid &grid,
                                 const Int8Weights &w) {
  std::vector<float> scales(w.scale.size());
  for (size_t o = 0; o < scales.size(); ++o)
    scales[o] = grid.scale * w.scale[o];
  return scales;
}

/// The reorder that quantizes operand 0 (in layout `from`) into `to`: x /
/// scale rounds to the grid's integers, x holding (q - zero) * scale
/// within a unit in the last place; plus the zero point where `held` says
/// q is held.
dnnl::reorder::primitive_desc
quantizing(const Context &c, const QuantizationGrid &grid, const Storage &held,
           const memory::desc &from, const memory::desc &to) {
  dnnl::primitive_attr requantize;
  requantize.set_output_scales(0, {1.0f / grid.scale});
  if (held.zero_point)
    set_zero_point(requantize, DNNL_ARG_DST, grid);
  return dnnl::reorder::primitive_desc(c.engine, from, c.engine, to,
                                       requantize);
}

/// The int8 lowering of the primitive `make` describes, given its
/// attributes (the epilogue's post-ops, the output scales of `grid` and
/// `w`, the grid's zero point where `held` says), its input's type and the
/// weights' halves (the input's dimension 1 that many times over): its
/// static weights `integers` laid out as s8, and operand 0 quantized into
/// memory of the step's own as the step starts, once into each half (with
/// a computed zero point read from the last operand then); its result seen
/// as `result` (a matmul chain's views), or as the primitive writes it
/// where that is zero. nullopt where oneDNN has no such primitive, or only
/// its reference code.
template <class Primitive, class Pd, class Make>
std::optional<Lowered>
int8_lowered(Context &c, CpuOperands in, const Epilogue &epi,
             const QuantizationGrid &grid, const Storage &held,
             const Int8Weights &w, const std::vector<float> &integers,
             const memory::desc &result, const Make &make) {
  dnnl::primitive_attr attr = epi.attr();
  attr.set_output_scales(1 << 1, output_scales(grid, w));
  if (held.zero_point)
    set_zero_point(attr, DNNL_ARG_SRC, grid);
  std::optional<Pd> pd;
  std::vector<dnnl::reorder::primitive_desc> quantize;
  Lowered l;
  AnchorParts parts;
  try {
    pd.emplace(make(attr, held.type, w.halves));
    if (is_reference_impl(impl_name(*pd)))
      return std::nullopt;
    const memory::desc src = pd->src_desc();
    memory::dims half = src.dims();
    half[1] /= w.halves;
    for (int64_t h = 0; h < w.halves; ++h) {
      memory::dims at(half.size(), 0);
      at[1] = h * half[1];
      quantize.push_back(
          quantizing(c, grid, held, in[0].md,
                     w.halves == 1 ? src : src.submemory_desc(half, at)));
    }
    std::vector<CpuOperand> operands(in.begin(), in.end());
    operands[1].static_data = integers.data();
    parts = anchor_parts(c, *pd, epi, operands, l);
  } catch (const dnnl::error &) {
    return std::nullopt;
  }
  l.in[0] = in[0].md; // read as it arrives: the quantizing reorder lays it out
  l.out = {result.is_zero() ? pd->dst_desc() : result};
  l.impl = (w.halves == 1 ? "int8 " : "int8 in halves ") + l.impl;
  const int zero_at = grid.computed_zero ? static_cast<int>(in.size()) - 1 : -1;
  l.bind = [&c, pd = *pd, quantize, parts, x_md = in[0].md,
            zero_at](const Bound &b) -> Step {
    const memory q(pd.src_desc(), c.engine); // owns its buffer
    const memory x(x_md, c.engine, b.in[0]);
    // The computed zero point, as oneDNN takes it.
    const memory zero(memory::desc({1}, dt::s32, tag::x), c.engine);
    Args args{{DNNL_ARG_SRC, q},
              {DNNL_ARG_WEIGHTS, parts.weights},
              {DNNL_ARG_DST, memory(pd.dst_desc(), c.engine, b.out[0])}};
    if (zero_at >= 0)
      args.emplace(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, zero);
    // One quantizing reorder into each half of q, seen through its view.
    std::vector<std::pair<dnnl::reorder, Args>> requantize;
    for (const dnnl::reorder::primitive_desc &r : quantize) {
      Args a{
          {DNNL_ARG_FROM, x},
          {DNNL_ARG_TO, memory(r.dst_desc(), c.engine, q.get_data_handle())}};
      if (zero_at >= 0)
        a.emplace(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, zero);
      requantize.emplace_back(dnnl::reorder(r), std::move(a));
    }
    Step run = epilogue_step(c, Primitive(pd), *parts.epilogue, b,
                             std::move(args), pd.dst_desc());
    const float *computed =
        zero_at >= 0 ? b.in[static_cast<size_t>(zero_at)] : nullptr;
    return [requantize = std::move(requantize), q, zero, computed,
            run = std::move(run), stream = c.stream]() mutable {
      if (computed)
        *static_cast<int32_t *>(zero.get_data_handle()) =
            static_cast<int32_t>(std::nearbyint(*computed));
      for (auto &[reorder, a] : requantize)
        reorder.execute(stream, a);
      run();
    };
  };
  return l;
}

} // namespace

std::optional<Lowered> int8_conv_lowered(Context &c, const Node &n,
                                         CpuOperands in, ResultTypes out,
                                         PostOps post) {
  const std::optional<QuantizationGrid> &grid = in[0].grid;
  const auto layout = forced_layout(c.conv_layout, n);
  if (!grid || c.bf16 || !in[1].is_static() || in[0].shape().rank() != 4 ||
      (layout && *layout != tag::nhwc))
    return std::nullopt;
  for (const PostOp &p : post)
    if (p.kind == PostOp::Kind::BatchNorm)
      return std::nullopt; // folded into float weights by the float path
  const std::optional<Storage> held = storage_of(*grid);
  if (!held)
    return std::nullopt;
  using Conv = ops::Conv2D;
  const auto g = Conv::geometry(n.attrs, in[0].shape(), in[1].shape());
  const auto &s = n.attrs.list(Conv::kStride);
  std::optional<Int8Weights> weights =
      int8_weights(in[1].static_data, g.co, g.cw * g.kh * g.kw);
  // Halves side by side along the channels would interleave with groups.
  if (!weights || (weights->halves > 1 && g.groups > 1))
    return std::nullopt;
  const dims ydims = to_dims(out[0].shape);
  // The bias is the epilogue's, added in float32 after the scales, as the
  // float path's chain adds it.
  const Epilogue epi(post, 0, 2, ydims, 1);
  return int8_lowered<dnnl::convolution_forward,
                      dnnl::convolution_forward::primitive_desc>(
      c, in, epi, *grid, *held, *weights, weights->integers, memory::desc(),
      [&](const dnnl::primitive_attr &attr, dt src_type, int64_t halves) {
        dims xdims = to_dims(in[0].shape());
        xdims[1] *= halves;
        const int64_t cw = g.cw * halves;
        const dims wdims = g.groups > 1
                               ? dims{g.groups, g.co / g.groups, cw, g.kh, g.kw}
                               : dims{g.co, cw, g.kh, g.kw};
        const dnnl::convolution_forward::desc d(
            dnnl::prop_kind::forward_inference,
            dnnl::algorithm::convolution_direct,
            memory::desc(xdims, src_type, tag::nhwc),
            memory::desc(wdims, dt::s8, tag::any), memory::desc(),
            memory::desc(ydims, dt::f32, tag::nhwc), {s[0], s[1]},
            {g.dh - 1, g.dw - 1}, {g.y.pad_before, g.x.pad_before},
            {pad_after(g.h, g.eh, s[0], g.y.out, g.y.pad_before),
             pad_after(g.w, g.ew, s[1], g.x.out, g.x.pad_before)});
        return dnnl::convolution_forward::primitive_desc(d, attr, c.engine);
      });
}

std::optional<Lowered> int8_matmul_lowered(Context &c, CpuOperands in,
                                           ResultTypes out, PostOps post) {
  const std::optional<QuantizationGrid> &grid = in[0].grid;
  if (!grid || c.bf16 || !in[1].is_static() || in[0].shape().rank() != 2 ||
      in[1].shape().rank() != 2)
    return std::nullopt;
  const std::optional<Storage> held = storage_of(*grid);
  if (!held)
    return std::nullopt;
  const int64_t m = in[0].shape()[0], k = in[0].shape()[1],
                n = in[1].shape()[1];
  // The weights [k, n] by columns: one scale per output column.
  std::vector<float> columns(static_cast<size_t>(k * n));
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < n; ++j)
      columns[static_cast<size_t>(j * k + i)] = in[1].static_data[i * n + j];
  std::optional<Int8Weights> weights = int8_weights(columns.data(), n, k);
  if (!weights)
    return std::nullopt;
  // Back to rows: [halves * k, n].
  const int64_t rows = weights->halves * k;
  std::vector<float> integers(weights->integers.size());
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < n; ++j)
      integers[static_cast<size_t>(i * n + j)] =
          weights->integers[static_cast<size_t>(j * rows + i)];
  const dims cdims{m, n};
  const Epilogue epi(post, 0, 2, cdims, 1);
  return int8_lowered<dnnl::matmul, dnnl::matmul::primitive_desc>(
      c, in, epi, *grid, *held, *weights, integers, plain_md(out[0].shape),
      [&](const dnnl::primitive_attr &attr, dt src_type, int64_t halves) {
        return dnnl::matmul::primitive_desc(
            dnnl::matmul::desc(memory::desc({m, halves * k}, src_type, tag::ab),
                               memory::desc({halves * k, n}, dt::s8, tag::any),
                               plain_md(cdims)),
            attr, c.engine);
      });
}

} // namespace quarry::runtime::cpu
