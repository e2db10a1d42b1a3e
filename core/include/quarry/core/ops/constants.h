//===- ops/constants.h - TASO's constant tensors -------------*- C++ -*-===//
//
// Constants have no inputs; their shape is an attribute, absent in rule
// patterns (where the matcher fixes it) and required to evaluate.
//   const_pool[k=kh,kw]  [c, 1, kh, kw], every element 1/(kh*kw): a grouped
//                        conv2d with it is pool2d_avg.
//   const_iconv[k=kh,kw] [co, ci, kh, kw], 1 at the kernel centre where
//                        input channel i == o mod ci, else 0: conv2d with it
//                        (stride 1, same) is the identity.
//   const_imm            [n, n] identity matrix: matmul(x, const_imm) = x.
//   const_one            all ones: ewmul(x, const_one) = x.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/common.h"

namespace quarry::ops {

enum class ConstFn { Pool, IConv, Imm, One };

template <ConstFn Fn> struct Constant {
  static constexpr bool has_kernel =
      Fn == ConstFn::Pool || Fn == ConstFn::IConv;
  static constexpr std::string_view name = Fn == ConstFn::Pool ? "const_pool"
                                           : Fn == ConstFn::IConv
                                               ? "const_iconv"
                                           : Fn == ConstFn::Imm ? "const_imm"
                                                                : "const_one";
  static constexpr int min_inputs = 0, max_inputs = 0;
  // Kernel constants list k first; index constants follow the schema.
  static constexpr size_t kKernel = 0;
  static constexpr size_t kShape = has_kernel ? 1 : 0;
  static AttrSchema attrs() {
    static const AttrSpec kernel_specs[] = {kKernelSpec, kShapeSpec};
    static const AttrSpec plain_specs[] = {kShapeSpec};
    if constexpr (has_kernel)
      return kernel_specs;
    else
      return plain_specs;
  }
  static constexpr OpTraits traits{.constant = true};
  static int num_outputs(const Attrs &) { return 1; }

  static MaybeTypes infer(const Attrs &a, InTypes) {
    MaybeTypes t = types_from_shape_attr(name, a, kShape);
    if (!t)
      return t;
    const Shape &s = (*t)[0].shape;
    if constexpr (has_kernel) {
      const auto &k = a.list(kKernel);
      if (s.rank() != 4 || s[2] != k[0] || s[3] != k[1])
        fail(name, "shape ", s.str(), " must be [co,ci,", k[0], ",", k[1], "]");
    } else if constexpr (Fn == ConstFn::Imm) {
      if (s.rank() != 2 || s[0] != s[1])
        fail(name, "shape ", s.str(), " must be square [n,n]");
    }
    return t;
  }

  template <Domain D>
  static void evaluate(const D &d, const Attrs &a, OpInputs<D>,
                       OpOutputs<D> out) {
    auto &y = out[0];
    const Shape &s = y.shape;
    for (int64_t i = 0; i < y.numel(); ++i) {
      if constexpr (Fn == ConstFn::One) {
        y[i] = d.one();
      } else if constexpr (Fn == ConstFn::Imm) {
        y[i] = i / s[1] == i % s[1] ? d.one() : d.zero();
      } else if constexpr (Fn == ConstFn::Pool) {
        y[i] = d.div_int(d.one(), s[2] * s[3]);
      } else {
        const int64_t kx = i % s[3], ky = (i / s[3]) % s[2];
        const int64_t ci = (i / (s[2] * s[3])) % s[1];
        const int64_t co = i / (s[1] * s[2] * s[3]);
        const bool centre = ky == (s[2] - 1) / 2 && kx == (s[3] - 1) / 2;
        y[i] = centre && ci == co % s[1] ? d.one() : d.zero();
      }
    }
    (void)a;
  }
};

using ConstPool = Constant<ConstFn::Pool>;
using ConstIConv = Constant<ConstFn::IConv>;
using ConstImm = Constant<ConstFn::Imm>;
using ConstOne = Constant<ConstFn::One>;

} // namespace quarry::ops
