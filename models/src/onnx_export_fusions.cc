//===- onnx_export_fusions.cc - ONNX operators export writes whole --------===//
#include "onnx_export_fusions.h"

#include "quarry/core/ops/broadcast.h"
#include "quarry/core/ops/conv2d.h"
#include "quarry/core/ops/matmul.h"
#include "quarry/core/ops/transpose.h"

namespace quarry::onnx_io {

namespace {

class Finder {
public:
  Finder(const Graph &g, const std::set<int32_t> &taken)
      : g_(g), uses_(g.use_counts()), taken_(taken) {}

  ExportFusions run() {
    for (int32_t id = 0; id < g_.num_nodes(); ++id) {
      const Node &n = g_.node(id);
      if (n.kind != OpKind::Broadcast ||
          static_cast<ops::BroadcastFn>(n.attrs.i(ops::Broadcast::kFn)) !=
              ops::BroadcastFn::Add ||
          !g_.type({id, 0}) || taken_.count(id) ||
          taken_.count(n.inputs[0].node))
        continue;
      if (!conv_bias(id, n))
        gemm(id, n);
    }
    return std::move(f_);
  }

private:
  /// Read only by one node, and typed.
  bool single_use(ValueRef v) const {
    return uses_[v.node] == 1 && g_.type(v) != nullptr;
  }

  bool conv_bias(int32_t id, const Node &add) {
    const ValueRef y = add.inputs[0], b = add.inputs[1];
    const Node &conv = g_.node(y.node), &bias = g_.node(b.node);
    if (conv.kind != OpKind::Conv2D || conv.attrs.i(ops::Conv2D::kAct) ||
        bias.kind != OpKind::Weight || !single_use(y) || !single_use(b))
      return false;
    const int64_t c = g_.type(y)->shape[1];
    if (g_.type(b)->shape != Shape{c, 1, 1})
      return false;
    f_.conv_bias.emplace(y.node, id);
    f_.conv_bias_weights.insert(b.node);
    f_.absorbed.insert(id);
    return true;
  }

  /// `v` read through a transpose of a matrix that only it reads: the
  /// transposed value (and the transpose is absorbed).
  bool through_transpose(ValueRef &v, std::set<int32_t> &absorbed) const {
    const Node &t = g_.node(v.node);
    if (t.kind != OpKind::Transpose ||
        t.attrs.list(ops::Transpose::kPerm) != std::vector<int64_t>{1, 0} ||
        !single_use(v) || taken_.count(v.node))
      return false;
    absorbed.insert(v.node);
    v = t.inputs[0];
    return true;
  }

  void gemm(int32_t id, const Node &add) {
    const ValueRef y = add.inputs[0];
    const Node &mm = g_.node(y.node);
    if (mm.kind != OpKind::MatMul || mm.attrs.i(ops::MatMul::kAct) ||
        !single_use(y) || g_.type(y)->shape.rank() != 2)
      return;
    // Gemm's C broadcasts one way to [M,N].
    const Shape &out = g_.type({id, 0})->shape;
    const TensorType *c = g_.type(add.inputs[1]);
    if (out != g_.type(y)->shape || !c || c->shape.rank() > 2)
      return;
    for (int i = 0; i < c->shape.rank(); ++i) {
      const int64_t d = c->shape[i], o = out[out.rank() - c->shape.rank() + i];
      if (d != 1 && d != o)
        return;
    }
    GemmGroup group{mm.inputs[0], mm.inputs[1], add.inputs[1]};
    std::set<int32_t> absorbed{y.node, id};
    group.trans_a = through_transpose(group.a, absorbed);
    group.trans_b = through_transpose(group.b, absorbed);
    if (g_.type(group.a)->shape.rank() != 2 ||
        g_.type(group.b)->shape.rank() != 2)
      return;
    absorbed.erase(id);
    f_.absorbed.insert(absorbed.begin(), absorbed.end());
    f_.gemm.emplace(id, group);
  }

  const Graph &g_;
  std::vector<int> uses_;
  const std::set<int32_t> &taken_;
  ExportFusions f_;
};

} // namespace

ExportFusions find_export_fusions(const Graph &g,
                                  const std::set<int32_t> &taken) {
  return Finder(g, taken).run();
}

} // namespace quarry::onnx_io
