//===- ops/reshape.h - Same elements, new shape --------------*- C++ -*-===//
//
// reshape[shape=d0,...](x): row-major order is kept; one dimension may be -1
// and is then inferred from the element count.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/common.h"

namespace quarry::ops {

struct Reshape {
  static constexpr std::string_view name = "reshape";
  static constexpr int min_inputs = 1, max_inputs = 1;
  enum : size_t { kShape };
  static AttrSchema attrs() {
    static const AttrSpec specs[] = {
        {"shape", AttrKind::IntList, std::vector<int64_t>{}}};
    return specs;
  }
  static constexpr OpTraits traits{};
  static int num_outputs(const Attrs &) { return 1; }

  static MaybeTypes infer(const Attrs &a, InTypes in) {
    std::vector<int64_t> dims = a.list(kShape);
    int64_t known = 1;
    int infer_at = -1;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] == -1 && infer_at < 0)
        infer_at = static_cast<int>(i);
      else if (dims[i] < 1)
        fail(name, "dimension ", dims[i], " is not positive (one -1 allowed)");
      else
        known *= dims[i];
    }
    const int64_t n = in[0].shape.numel();
    if (infer_at >= 0 && known > 0 && n % known == 0)
      dims[infer_at] = n / known;
    if (Shape(dims).numel() != n || (infer_at >= 0 && dims[infer_at] < 1))
      fail(name, "cannot reshape ", in[0].shape.str(), " (", n,
           " elements) to ", Shape(a.list(kShape)).str());
    return Types{TensorType(Shape(dims))};
  }

  template <Domain D>
  static void evaluate(const D &, const Attrs &, OpInputs<D> in,
                       OpOutputs<D> out) {
    out[0].data = in[0]->data;
  }
};

} // namespace quarry::ops
