//===- kernels_loops.cc - cpu operators that only move data ---------------===//
//
// These work on row-major memory, so they ask for plain layouts. oneDNN on
// the OpenMP runtime executes primitives synchronously, so a loop step may
// read what the previous step wrote without waiting.
//
//===----------------------------------------------------------------------===//
#include "clones.h"
#include "kernels.h"
#include "primitive_step.h"

#include "quarry/core/float_domain.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>

namespace quarry::runtime::cpu {

namespace {

Lowered plain_loops(CpuOperands in, ResultTypes out) {
  Lowered l;
  l.in = plain_mds(in);
  l.out = plain_mds(out);
  l.impl = "loops";
  return l;
}

/// A layout loops can walk as row-major: plain, or nhwc, whose axes lie
/// in memory in the order N, H, W, C.
struct LoopLayout {
  bool nhwc = false;

  /// The operand's layout where it is nhwc, else plain.
  static LoopLayout of(const CpuOperand &o) {
    return {activation_tag(o.md) == dnnl::memory::format_tag::nhwc};
  }
  /// The axis of a rank-`rank` tensor at each place in memory, outermost
  /// first.
  std::vector<int> order(int rank) const {
    if (nhwc)
      return {0, 2, 3, 1};
    std::vector<int> o(static_cast<size_t>(rank));
    for (int k = 0; k < rank; ++k)
      o[static_cast<size_t>(k)] = k;
    return o;
  }
  /// `s` with its dimensions in memory order.
  Shape in_memory(const Shape &s) const {
    Shape p = s;
    const std::vector<int> o = order(s.rank());
    for (size_t k = 0; k < o.size(); ++k)
      p.dims[k] = s[o[k]];
    return p;
  }
  dnnl::memory::desc md(const Shape &s) const {
    return nhwc ? dnnl::memory::desc(to_dims(s), dnnl::memory::data_type::f32,
                                     dnnl::memory::format_tag::nhwc)
                : plain_md(s);
  }
};

/// to[0..n) = from[0..n). A channels-last concatenation or split copies
/// one short run per operand and pixel (a pad, one per row), and a call to
/// memcpy for each costs more than the run's bytes: short runs are vector
/// moves inlined here (the attribute keeps the compiler from turning the
/// loop back into that call; clang, which the fuzz targets are built with,
/// has no such attribute), long ones memcpy.
#if defined(__clang__)
#define QUARRY_NO_MEMCPY_IDIOM
#else
#define QUARRY_NO_MEMCPY_IDIOM                                                 \
  [[gnu::optimize("no-tree-loop-distribute-patterns")]]
#endif
/// From this many floats on, a run goes to memcpy: its call costs little
/// beside the bytes, and the library's paths for long copies are its own.
constexpr int64_t kLongRun = 1024;
QUARRY_NO_MEMCPY_IDIOM QUARRY_CPU_CLONES void copy_run(const float *from,
                                                       float *to, int64_t n) {
  if (n >= kLongRun) {
    std::memcpy(to, from, sizeof(float) * n);
    return;
  }
#pragma omp simd
  for (int64_t j = 0; j < n; ++j)
    to[j] = from[j];
}

} // namespace

Lowered CpuKernel<ops::Split>::make(Context &c, const Node &n, CpuOperands in,
                                    ResultTypes out, PostOps) {
  const int axis = static_cast<int>(n.attrs.i(ops::Split::kAxis));
  // A split of a convolution's output stays in its layout: going plain
  // would cost a reorder there and another into the next convolution.
  if (auto kept = split_in_layout(c, axis, in, out))
    return std::move(*kept);
  const ops::AxisBlocks xb(in[0].shape(), axis);
  const int64_t axis_len = in[0].shape()[axis];
  std::vector<int64_t> lens;
  for (const TensorType &t : out)
    lens.push_back(t.shape[axis]);
  Lowered l = plain_loops(in, out);
  l.bind = [xb, axis_len, lens](const Bound &b) -> Step {
    return [src = b.in[0], dst = b.out, xb, axis_len, lens] {
      int64_t offset = 0;
      for (size_t k = 0; k < lens.size(); ++k) {
        const int64_t block = lens[k] * xb.inner;
        for (int64_t o = 0; o < xb.outer; ++o)
          copy_run(src + (o * axis_len + offset) * xb.inner, dst[k] + o * block,
                   block);
        offset += lens[k];
      }
    };
  };
  return l;
}

Lowered CpuKernel<ops::Reshape>::make(Context &, const Node &, CpuOperands in,
                                      ResultTypes out, PostOps) {
  // Row-major floats are the same under any shape: a view, no step.
  return view_of_operand(plain_mds(in)[0], plain_mds(out)[0]);
}

Lowered CpuKernel<ops::Slice>::make(Context &, const Node &n, CpuOperands in,
                                    ResultTypes out, PostOps) {
  const Shape &x = in[0].shape();
  const auto plan = ops::Slice::plan(n.attrs, x);
  // Per output axis: the input stride it walks, and where it starts.
  const std::vector<int64_t> stride = plan.strides(x);
  const int64_t start = plan.offset(x);
  const Shape r = out[0].shape;
  Lowered l = plain_loops(in, out);
  l.bind = [r, stride, start](const Bound &b) -> Step {
    return [r, stride, start, src = b.in[0], dst = b.out[0]] {
      const int rank = r.rank();
      if (rank == 0) {
        dst[0] = src[start];
        return;
      }
      const int64_t inner = r[rank - 1], step = stride[rank - 1];
      std::vector<int64_t> idx(rank - 1, 0);
      int64_t from = start;
      const int64_t total = r.numel();
      for (int64_t o = 0; o < total; o += inner) {
        for (int64_t i = 0; i < inner; ++i)
          dst[o + i] = src[from + i * step];
        for (int ax = rank - 2; ax >= 0; --ax) {
          from += stride[ax];
          if (++idx[ax] < r[ax])
            break;
          from -= stride[ax] * r[ax];
          idx[ax] = 0;
        }
      }
    };
  };
  return l;
}

Lowered CpuKernel<ops::Pad>::make(Context &, const Node &n, CpuOperands in,
                                  ResultTypes out, PostOps) {
  if (static_cast<ops::PadMode>(n.attrs.i(ops::Pad::kMode)) !=
      ops::PadMode::Constant)
    return reference_kernel(n, in, out); // reflect, edge: rare and small
  // Channels-last operands are padded in their layout (a network's
  // convolutions write nhwc): the same loops over the axes in memory order.
  const LoopLayout layout = LoopLayout::of(in[0]);
  const std::vector<int> order = layout.order(in[0].shape().rank());
  const Shape x = layout.in_memory(in[0].shape());
  const Shape r = layout.in_memory(out[0].shape);
  const auto &pads = n.attrs.list(ops::Pad::kPads);
  const float value = static_cast<float>(n.attrs.real(ops::Pad::kValue));
  // Where input element 0 lands, and the output stride of each input axis.
  const auto rs = r.strides();
  int64_t origin = 0;
  for (int i = 0; i < x.rank(); ++i)
    origin += pads[order[static_cast<size_t>(i)]] * rs[i];
  Lowered l = plain_loops(in, out);
  l.in = {layout.md(in[0].shape())};
  l.out = {layout.md(out[0].shape)};
  l.bind = [x, r, rs, origin, value](const Bound &b) -> Step {
    return [x, r, rs, origin, value, src = b.in[0], dst = b.out[0]] {
      std::fill(dst, dst + r.numel(), value);
      const int rank = x.rank();
      if (rank == 0) {
        dst[origin] = src[0];
        return;
      }
      const int64_t inner = x[rank - 1];
      std::vector<int64_t> idx(rank - 1, 0);
      int64_t to = origin;
      const int64_t total = x.numel();
      for (int64_t o = 0; o < total; o += inner) {
        copy_run(src + o, dst + to, inner);
        for (int ax = rank - 2; ax >= 0; --ax) {
          to += rs[ax];
          if (++idx[ax] < x[ax])
            break;
          to -= rs[ax] * x[ax];
          idx[ax] = 0;
        }
      }
    };
  };
  return l;
}

Lowered CpuKernel<ops::Resize>::make(Context &, const Node &n, CpuOperands in,
                                     ResultTypes out, PostOps) {
  using R = ops::Resize;
  // Each output element sums one tap per axis of the input (core's taps:
  // nearest one, linear two, cubic four per resized axis), weighted: the
  // outer axes' taps give a row's sources, the last axis' are tables. In
  // the operand's layout where that is nhwc (axes in memory order N, H, W,
  // C).
  const LoopLayout layout = LoopLayout::of(in[0]);
  const Shape x = layout.in_memory(in[0].shape());
  const Shape r = layout.in_memory(out[0].shape);
  const auto xs = x.strides();
  struct AxisTaps {
    std::vector<std::vector<int64_t>> offset; // index * stride
    std::vector<std::vector<float>> weight;
  };
  std::vector<AxisTaps> axes;
  for (size_t k = 0; k < xs.size(); ++k) {
    const int ax = static_cast<int>(k);
    const R::Taps t = R::taps(n.attrs, x[ax], r[ax]);
    AxisTaps a;
    for (size_t o = 0; o < t.index.size(); ++o) {
      a.offset.emplace_back();
      a.weight.emplace_back();
      for (size_t j = 0; j < t.index[o].size(); ++j) {
        a.offset.back().push_back(t.index[o][j] * xs[k]);
        a.weight.back().push_back(static_cast<float>(t.weight[o][j]));
      }
    }
    axes.push_back(std::move(a));
  }
  Lowered l = plain_loops(in, out);
  l.in = {layout.md(in[0].shape())};
  l.out = {layout.md(out[0].shape)};
  // Nearest (one tap of weight 1 everywhere): a gather, no arithmetic.
  bool gather = true;
  for (const AxisTaps &a : axes)
    for (const auto &w : a.weight)
      gather = gather && w.size() == 1 && w[0] == 1.0f;
  // A last axis that is not resized (channels, in nhwc): each element of a
  // row reads its own index in each source, so a row is a weighted sum of
  // contiguous source rows (or one copied), added in the order the general
  // loop adds them.
  bool last_kept = !axes.empty();
  if (last_kept) {
    const AxisTaps &last = axes.back();
    for (size_t j = 0; j < last.offset.size(); ++j)
      last_kept = last_kept && last.offset[j].size() == 1 &&
                  last.offset[j][0] == static_cast<int64_t>(j) &&
                  last.weight[j][0] == 1.0f;
  }
  l.bind = [r, axes, gather, last_kept](const Bound &b) -> Step {
    return [r, axes, gather, last_kept, src = b.in[0], dst = b.out[0]] {
      const int rank = r.rank();
      if (rank == 0) {
        dst[0] = src[0];
        return;
      }
      const AxisTaps &last = axes[rank - 1];
      const int64_t width = r[rank - 1], rows = r.numel() / width;
      // Rows run along the axis before the last (the width, in nhwc):
      // the outer axes' sources change only when it wraps.
      const int64_t along = rank >= 2 ? r[rank - 2] : 1;
#pragma omp parallel if (r.numel() >= (1 << 16))
      {
        // A row's sources: one tap per outer axis, their weights' product.
        std::vector<std::pair<int64_t, float>> outer, sources, more;
        int64_t outer_of = -1;
#pragma omp for schedule(static)
        for (int64_t row = 0; row < rows; ++row) {
          if (row / along != outer_of) {
            outer_of = row / along;
            outer.assign(1, {0, 1.0f});
            for (int64_t rest = outer_of, k = rank - 3; k >= 0; --k) {
              const int64_t o = rest % r[k];
              rest /= r[k];
              more.clear();
              for (const auto &[at, wt] : outer)
                for (size_t t = 0; t < axes[k].offset[o].size(); ++t)
                  if (axes[k].weight[o][t] != 0.0f)
                    more.push_back(
                        {at + axes[k].offset[o][t], wt * axes[k].weight[o][t]});
              outer.swap(more);
            }
          }
          sources.clear();
          if (rank >= 2) {
            const int64_t o = row % along;
            const auto &off = axes[rank - 2].offset[o];
            const auto &w = axes[rank - 2].weight[o];
            for (const auto &[at, wt] : outer)
              for (size_t t = 0; t < off.size(); ++t)
                if (w[t] != 0.0f)
                  sources.push_back({at + off[t], wt * w[t]});
          } else {
            sources = outer;
          }
          float *to = dst + row * width;
          if (gather) {
            const float *from = src + sources[0].first;
            if (last_kept) {
              std::memcpy(to, from, sizeof(float) * width);
              continue;
            }
            for (int64_t j = 0; j < width; ++j)
              to[j] = from[last.offset[j][0]];
            continue;
          }
          if (last_kept) {
            std::fill(to, to + width, 0.0f);
            for (const auto &[at, wt] : sources) {
              const float *from = src + at;
              for (int64_t j = 0; j < width; ++j)
                to[j] += wt * from[j];
            }
            continue;
          }
          for (int64_t j = 0; j < width; ++j) {
            const auto &off = last.offset[j];
            const auto &w = last.weight[j];
            float acc = 0.0f;
            for (const auto &[at, wt] : sources)
              for (size_t t = 0; t < off.size(); ++t)
                acc += wt * w[t] * src[at + off[t]];
            to[j] = acc;
          }
        }
      }
    };
  };
  return l;
}

Lowered concat_copies(int axis, dnnl::memory::format_tag layout, CpuOperands in,
                      ResultTypes out) {
  // A channel-blocked layout whose blocks the operands fill walks as
  // plain does: per image, each operand's channel blocks are one run.
  const bool blocked = channel_block(layout) > 1;
  const LoopLayout copies{layout == dnnl::memory::format_tag::nhwc};
  const Shape &r = out[0].shape;
  const std::vector<int> order = copies.order(r.rank());
  const size_t at = static_cast<size_t>(
      std::find(order.begin(), order.end(), axis) - order.begin());
  int64_t outer = 1, inner = 1;
  for (size_t k = 0; k < at; ++k)
    outer *= r[order[k]];
  for (size_t k = at + 1; k < order.size(); ++k)
    inner *= r[order[k]];
  std::vector<int64_t> runs; // floats of each operand per outer step
  for (const CpuOperand &o : in)
    runs.push_back(o.shape()[axis] * inner);
  const int64_t row = r[axis] * inner;
  const auto md = [&](const Shape &s) {
    return blocked ? dnnl::memory::desc(to_dims(s),
                                        dnnl::memory::data_type::f32, layout)
                   : copies.md(s);
  };
  Lowered l;
  for (const CpuOperand &o : in)
    l.in.push_back(md(o.shape()));
  l.out = {md(r)};
  l.impl = "loops";
  l.bind = [outer, row, runs](const Bound &b) -> Step {
    return [outer, row, runs, src = b.in, dst = b.out[0]] {
#pragma omp parallel for schedule(static) if (outer * row >= (1 << 16))
      for (int64_t o = 0; o < outer; ++o) {
        float *to = dst + o * row;
        for (size_t i = 0; i < runs.size(); ++i) {
          copy_run(src[i] + o * runs[i], to, runs[i]);
          to += runs[i];
        }
      }
    };
  };
  return l;
}

Lowered CpuKernel<ops::Where>::make(Context &, const Node &, CpuOperands in,
                                    ResultTypes out, PostOps) {
  const Shape r = out[0].shape;
  // Each operand of the result's shape or a single value (an imported If
  // chooses between two values by a scalar): one pass; any other
  // broadcast through core's odometer. Only the chosen operand's element
  // is read, as core's semantics read it.
  const bool flat = std::all_of(in.begin(), in.end(), [&](const auto &o) {
    return o.shape() == r || o.shape().numel() == 1;
  });
  std::array<int64_t, 3> step{};
  for (size_t k = 0; k < 3; ++k)
    step[k] = in[k].shape() == r ? 1 : 0;
  const std::array<std::vector<int64_t>, 3> strides = {
      ops::broadcast_strides(in[0].shape(), r),
      ops::broadcast_strides(in[1].shape(), r),
      ops::broadcast_strides(in[2].shape(), r)};
  Lowered l = plain_loops(in, out);
  l.impl = "loops";
  l.bind = [r, flat, step, strides](const Bound &b) -> Step {
    return [r, flat, step, strides, c = b.in[0], x = b.in[1], y = b.in[2],
            z = b.out[0]] {
      if (flat) {
        for (int64_t i = 0, n = r.numel(); i < n; ++i)
          z[i] = ops::Where::select(c[i * step[0]], x[i * step[1]],
                                    y[i * step[2]]);
        return;
      }
      ops::for_each_broadcast<3>(r, strides, [&](int64_t i, const auto &at) {
        z[i] = ops::Where::select(c[at[0]], x[at[1]], y[at[2]]);
      });
    };
  };
  return l;
}

Lowered concat_affine_copies(CpuOperands in, size_t parts, ResultTypes out,
                             ChannelAffine affine, bool relu) {
  const LoopLayout copies{true};
  const Shape &r = out[0].shape;
  const int64_t rows = r[0] * r[2] * r[3], channels = r[1];
  std::vector<int64_t> widths; // each part's channels
  Lowered l;
  for (size_t i = 0; i < in.size(); ++i) {
    if (i < parts) {
      widths.push_back(in[i].shape()[1]);
      l.in.push_back(copies.md(in[i].shape()));
    } else {
      l.in.push_back(plain_md(in[i].shape()));
      l.copied_static.push_back(static_cast<int>(i));
    }
  }
  l.out = {copies.md(r)};
  l.impl = "loops";
  auto a = std::make_shared<const ChannelAffine>(std::move(affine));
  l.bind = [a, relu, rows, channels, widths](const Bound &b) -> Step {
    return [a, relu, rows, channels, widths, src = b.in, dst = b.out[0]] {
      int64_t at = 0;
      for (size_t i = 0; i < widths.size(); at += widths[i++])
        channel_affine_rows(src[i], a->mul.data() + at, a->add.data() + at,
                            relu, dst + at, channels, rows, widths[i]);
    };
  };
  return l;
}

Lowered reference_kernel(const Node &n, CpuOperands in, ResultTypes out) {
  std::vector<TensorType> types(out.begin(), out.end());
  Lowered l = plain_loops(in, out);
  l.impl = "reference";
  std::vector<Shape> in_shapes;
  for (const CpuOperand &o : in)
    in_shapes.push_back(o.shape());
  l.bind = [node = n, types, in_shapes](const Bound &b) -> Step {
    return [node, types, in_shapes, in = b.in, out = b.out] {
      std::vector<Tensor<float>> values;
      values.reserve(in.size());
      for (size_t i = 0; i < in.size(); ++i)
        values.emplace_back(
            in_shapes[i],
            std::vector<float>(in[i], in[i] + in_shapes[i].numel()));
      std::vector<const Tensor<float> *> ptrs;
      for (const auto &v : values)
        ptrs.push_back(&v);
      const auto results =
          detail::run_node<FloatDomain>(FloatDomain{}, node, ptrs, types);
      for (size_t o = 0; o < results.size(); ++o)
        std::memcpy(out[o], results[o].data.data(),
                    sizeof(float) * results[o].numel());
    };
  };
  return l;
}

} // namespace quarry::runtime::cpu
