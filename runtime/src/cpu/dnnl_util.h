//===- dnnl_util.h - Small helpers over the oneDNN C++ API -----*- C++ -*-===//
//
// Memory descriptors say both shape and layout. Values enter and leave the
// cpu backend in plain row-major order; between kernels they stay in the
// layout the producing primitive chose (program.h inserts reorders where a
// consumer needs another), so these helpers build plain descriptors, name
// layouts for reports, and turn quarry's functions into oneDNN algorithms.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "huge_pages.h"
#include "quarry/core/attrs.h"
#include "quarry/core/domain.h"
#include "quarry/core/ops/broadcast.h"
#include "quarry/core/ops/scalar_fns.h"
#include "quarry/core/shape.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>

namespace quarry::runtime::cpu {

using dims = dnnl::memory::dims;
using Args = std::unordered_map<int, dnnl::memory>;

/// The shape as oneDNN dims; a scalar is one element.
inline dims to_dims(const Shape &s) {
  if (s.rank() == 0)
    return {1};
  return dims(s.dims.begin(), s.dims.end());
}

/// Row-major memory of these dimensions, float32 unless told.
inline dnnl::memory::desc
plain_md(const dims &d,
         dnnl::memory::data_type type = dnnl::memory::data_type::f32) {
  dims strides(d.size(), 1);
  for (int i = static_cast<int>(d.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * d[i + 1];
  return dnnl::memory::desc(d, type, strides);
}
inline dnnl::memory::desc plain_md(const Shape &s) {
  return plain_md(to_dims(s));
}

/// `d` right-aligned into `rank` dimensions, 1 in front (broadcasting).
inline dims aligned_dims(const Shape &s, int rank) {
  dims d(rank, 1);
  for (int i = 0; i < s.rank(); ++i)
    d[rank - s.rank() + i] = s[i];
  return d;
}

/// Whether `md` is plain row-major over its dimensions.
inline bool is_plain(const dnnl::memory::desc &md) {
  return md == plain_md(md.dims());
}

/// The strides of `md` when its layout is one stride per dimension, with
/// no blocks, padding or offset (nchw, nhwc, a transposed view); nullopt
/// otherwise.
std::optional<dims> dense_strides(const dnnl::memory::desc &md);

/// "nchw", "nChw16c", "nhwc", ... or "blocked" for a layout without a
/// short name; "plain" for row-major tensors of other ranks.
std::string layout_name(const dnnl::memory::desc &md);
/// The name of a 4-D activation layout ("blocked" when it has none).
std::string layout_name(dnnl::memory::format_tag t);

/// The format tag named "nchw", "nhwc", "nChw8c", "nChw16c", ...;
/// nullopt for any other name.
std::optional<dnnl::memory::format_tag> activation_tag(const std::string &name);

/// The format tag of a 4-D activation layout with a name (nchw, nhwc,
/// nChw8c, nChw16c, ...), so that another tensor can be given the same.
std::optional<dnnl::memory::format_tag>
activation_tag(const dnnl::memory::desc &md);

/// The channels one block of an activation layout holds: 16 for nChw16c,
/// 8 for nChw8c, 4 for nChw4c; 1 for a layout without channel blocks.
int64_t channel_block(dnnl::memory::format_tag layout);

/// oneDNN's elementwise algorithm for a nonlinear function.
dnnl::algorithm eltwise_algorithm(UnaryFn f);

/// oneDNN's eltwise algorithm, alpha and beta for a pointwise function,
/// when it has one (as a primitive and as a post-op alike).
std::optional<std::tuple<dnnl::algorithm, float, float>>
pointwise_algorithm(ops::PointwiseFn fn, float alpha, float beta);

/// oneDNN's binary algorithm for add, sub, mul, div, max, min (not pow).
dnnl::algorithm binary_algorithm(ops::BroadcastFn f);

/// The implementation oneDNN picked, e.g. "brgconv:avx512_core".
template <class Pd> std::string impl_name(const Pd &pd) {
  return pd.impl_info_str();
}

/// Whether oneDNN fell back to its reference (unoptimized) code.
inline bool is_reference_impl(const std::string &impl) {
  return impl.rfind("ref", 0) == 0 || impl.find(":ref") != std::string::npos;
}

/// Padding after the input along one axis, so that oneDNN's output size
/// (in - k + before + after) / stride + 1 equals quarry's. A window never
/// needs negative padding: floor division drops the unused tail.
inline int64_t pad_after(int64_t in, int64_t k, int64_t stride, int64_t out,
                         int64_t before) {
  return std::max<int64_t>(0, (out - 1) * stride + k - in - before);
}

/// A oneDNN memory over storage from `arena` laid out as `md`, filled from
/// plain floats `src` of the same logical tensor (a reorder when `md` is
/// not plain). For static operands that a primitive wants in its own
/// layout; alive as long as the arena.
dnnl::memory laid_out_copy(const dnnl::engine &engine, dnnl::stream &stream,
                           StaticArena &arena, const dnnl::memory::desc &md,
                           const float *src);

} // namespace quarry::runtime::cpu
