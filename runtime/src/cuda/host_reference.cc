//===- host_reference.cc - Operators without a cuda kernel, on the host ---===//
//
// As the cpu backend runs an operator it has no kernel for by its reference
// semantics, the cuda backend does too, on the host between two copies:
// inputs to pinned host memory, the node evaluated in a host function,
// results back. All three are stream work, so the step is ordered like any
// kernel and a CUDA graph captures it (memcpy and host nodes). It costs two
// copies and a round trip through the host, which the cost model measures
// like any other step.
//
//===----------------------------------------------------------------------===//
#include "kernels.h"

#include "quarry/core/evaluate.h"
#include "quarry/core/float_domain.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>

namespace quarry::runtime::cuda {

namespace {

/// Page-locked host floats: copies to and from them are stream work that a
/// CUDA graph can hold.
class PinnedFloats {
public:
  explicit PinnedFloats(int64_t n) : n_(n) {
    if (n > 0)
      QUARRY_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void **>(&p_),
                                       sizeof(float) * static_cast<size_t>(n)));
  }
  ~PinnedFloats() { cudaFreeHost(p_); }
  PinnedFloats(const PinnedFloats &) = delete;
  PinnedFloats &operator=(const PinnedFloats &) = delete;
  float *data() const { return p_; }
  int64_t size() const { return n_; }
  size_t bytes() const { return sizeof(float) * static_cast<size_t>(n_); }

private:
  float *p_ = nullptr;
  int64_t n_ = 0;
};

/// What the host function needs: the node, its operands' host copies and
/// its results' types.
struct HostNode {
  Node node;
  std::vector<Shape> in_shapes;
  std::vector<TensorType> out_types;
  std::vector<std::unique_ptr<PinnedFloats>> in, out;

  /// Runs on a CUDA runtime thread, which must not see an exception: a
  /// failure (the plan admitted a node its semantics reject) writes NaN
  /// results and says so on stderr.
  static void CUDART_CB run(void *self) {
    auto &h = *static_cast<HostNode *>(self);
    try {
      std::vector<Tensor<float>> values;
      values.reserve(h.in.size());
      for (size_t i = 0; i < h.in.size(); ++i) {
        const float *p = h.in[i]->data();
        values.emplace_back(h.in_shapes[i],
                            std::vector<float>(p, p + h.in[i]->size()));
      }
      std::vector<const Tensor<float> *> ptrs;
      for (const auto &v : values)
        ptrs.push_back(&v);
      const auto results = detail::run_node<FloatDomain>(FloatDomain{}, h.node,
                                                         ptrs, h.out_types);
      for (size_t o = 0; o < results.size(); ++o)
        std::memcpy(h.out[o]->data(), results[o].data.data(),
                    h.out[o]->bytes());
    } catch (const std::exception &e) {
      std::fprintf(stderr, "backend cuda: node '%s' on the host: %s\n",
                   h.node.name.c_str(), e.what());
      for (auto &o : h.out)
        std::fill(o->data(), o->data() + o->size(),
                  std::numeric_limits<float>::quiet_NaN());
    }
  }
};

} // namespace

Step host_reference(Context &c, const Node &n, Operands in, Operands out) {
  auto h = std::make_shared<HostNode>();
  h->node = n;
  for (const Operand &o : in) {
    h->in_shapes.push_back(o.shape());
    h->in.push_back(std::make_unique<PinnedFloats>(o.shape().numel()));
  }
  for (const Operand &o : out) {
    h->out_types.push_back(*o.type);
    h->out.push_back(std::make_unique<PinnedFloats>(o.shape().numel()));
  }
  std::vector<const float *> from;
  for (const Operand &o : in)
    from.push_back(o.data);
  std::vector<float *> to;
  for (const Operand &o : out)
    to.push_back(o.data);
  return [&c, h, from, to] {
    for (size_t i = 0; i < from.size(); ++i)
      if (h->in[i]->size() > 0)
        QUARRY_CUDA_CHECK(cudaMemcpyAsync(h->in[i]->data(), from[i],
                                          h->in[i]->bytes(),
                                          cudaMemcpyDeviceToHost, c.stream));
    QUARRY_CUDA_CHECK(cudaLaunchHostFunc(c.stream, &HostNode::run, h.get()));
    for (size_t o = 0; o < to.size(); ++o)
      if (h->out[o]->size() > 0)
        QUARRY_CUDA_CHECK(cudaMemcpyAsync(to[o], h->out[o]->data(),
                                          h->out[o]->bytes(),
                                          cudaMemcpyHostToDevice, c.stream));
  };
}

} // namespace quarry::runtime::cuda
