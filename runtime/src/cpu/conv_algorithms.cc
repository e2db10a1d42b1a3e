//===- conv_algorithms.cc - The ways a cpu convolution can run ------------===//
#include "conv_algorithms.h"

#include "dnnl_util.h"

#include <map>
#include <mutex>
#include <optional>

namespace quarry::runtime::cpu {

namespace {

bool ask_onednn(const ops::Conv2D::Geometry &g, const std::vector<int64_t> &s) {
  using dnnl::memory;
  const auto any = [](memory::dims d) {
    return memory::desc(d, memory::data_type::f32, memory::format_tag::any);
  };
  try {
    const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    const dnnl::convolution_forward::desc d(
        dnnl::prop_kind::forward_inference,
        dnnl::algorithm::convolution_winograd, any({g.n, g.c, g.h, g.w}),
        any({g.co, g.cw, g.kh, g.kw}), any({g.n, g.co, g.y.out, g.x.out}),
        {s[0], s[1]}, {g.dh - 1, g.dw - 1}, {g.y.pad_before, g.x.pad_before},
        {pad_after(g.h, g.eh, s[0], g.y.out, g.y.pad_before),
         pad_after(g.w, g.ew, s[1], g.x.out, g.x.pad_before)});
    const dnnl::convolution_forward::primitive_desc pd(d, engine);
    return !is_reference_impl(impl_name(pd));
  } catch (const dnnl::error &) {
    return false;
  }
}

/// The geometry of conv2d node `id`, where its operands' types are known.
std::optional<ops::Conv2D::Geometry> geometry_of(const Graph &g, int32_t id) {
  const Node &n = g.node(id);
  if (n.kind != OpKind::Conv2D || n.inputs.size() != 2)
    return std::nullopt;
  const TensorType *x = g.type(n.inputs[0]), *w = g.type(n.inputs[1]);
  if (!x || !w)
    return std::nullopt;
  return ops::Conv2D::geometry(n.attrs, x->shape, w->shape);
}

} // namespace

bool is_pixel_product(const ops::Conv2D::Geometry &g,
                      const std::vector<int64_t> &s) {
  return g.kh == 1 && g.kw == 1 && s[0] == 1 && s[1] == 1 && g.groups == 1 &&
         g.y.pad_before == 0 && g.x.pad_before == 0 && g.y.out == g.h &&
         g.x.out == g.w;
}

bool is_pixel_product(const Graph &g, int32_t id) {
  const auto geometry = geometry_of(g, id);
  return geometry && is_pixel_product(*geometry, g.node(id).attrs.list(
                                                     ops::Conv2D::kStride));
}

bool winograd_runs(const Graph &g, int32_t id) {
  const auto found = geometry_of(g, id);
  if (!found)
    return false;
  const Node &n = g.node(id);
  const auto &geometry = *found;
  // The conditions every oneDNN Winograd kernel has; the rest is asked.
  const auto &s = n.attrs.list(ops::Conv2D::kStride);
  if (geometry.groups != 1 || geometry.kh != 3 || geometry.kw != 3 ||
      s[0] != 1 || s[1] != 1 || geometry.dh != 1 || geometry.dw != 1)
    return false;
  static std::mutex mutex;
  static std::map<std::vector<int64_t>, bool> known;
  const std::vector<int64_t> key{geometry.n,
                                 geometry.c,
                                 geometry.h,
                                 geometry.w,
                                 geometry.co,
                                 geometry.y.pad_before,
                                 geometry.x.pad_before,
                                 geometry.y.out,
                                 geometry.x.out};
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = known.find(key);
  if (it == known.end())
    it = known.emplace(key, ask_onednn(geometry, s)).first;
  return it->second;
}

std::optional<dnnl::memory::format_tag>
forced_layout(const std::optional<dnnl::memory::format_tag> &backend,
              const Node &n) {
  if (backend)
    return backend;
  if (n.kind == OpKind::Conv2D && n.attrs.has(ops::Conv2D::kLayout))
    return activation_tag(ops::conv_layout_name(
        static_cast<ops::ConvLayout>(n.attrs.i(ops::Conv2D::kLayout))));
  return std::nullopt;
}

} // namespace quarry::runtime::cpu
