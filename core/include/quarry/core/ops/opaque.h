//===- ops/opaque.h - An operator kept from an imported model ---*- C++ -*-===//
//
// opaque[id=K shapes=R1,d..,R2,d.. types=T1,T2](x1, ..., xn) stands for an
// operator of an imported model that quarry cannot express: an unknown
// operator, control flow (If, Loop, Scan), or one that reads integer
// tensors. The importer keeps the original node beside the graph (by id K)
// and export writes it back unchanged. Its inputs are the values it reads;
// its outputs have the shapes listed (each rank followed by its dimensions)
// and the ONNX element types listed (1 is float32). It has no semantics
// here: nothing evaluates it, folds it or rewrites through it, and running
// a graph that holds one is an error naming the node.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/common.h"

namespace quarry::ops {

struct Opaque {
  static constexpr std::string_view name = "opaque";
  static constexpr int min_inputs = 0, max_inputs = kVariadic;
  enum : size_t { kId, kShapes, kTypes };
  static AttrSchema attrs() {
    static const AttrSpec specs[] = {
        {"id", AttrKind::Int, int64_t{0}},
        {"shapes", AttrKind::IntList, std::vector<int64_t>{0}},
        {"types", AttrKind::IntList, std::vector<int64_t>{1}}};
    return specs;
  }
  static constexpr OpTraits traits{.float_only = true, .uninterpreted = true};
  static int num_outputs(const Attrs &a) {
    return static_cast<int>(a.list(kTypes).size());
  }

  /// The attribute value `shapes` for these output shapes.
  static std::vector<int64_t> encode_shapes(const std::vector<Shape> &shapes);
  static MaybeTypes infer(const Attrs &a, InTypes in);

  template <Domain D>
  static void evaluate(const D &, const Attrs &a, OpInputs<D>, OpOutputs<D>) {
    fail(name, "operator #", a.i(kId),
         " is kept from the imported model as it is; quarry cannot run it");
  }
};

} // namespace quarry::ops
