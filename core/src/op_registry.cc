//===- op_registry.cc - Tables generated from QUARRY_OPS ------------------===//
#include "quarry/core/op_registry.h"

#include <array>

namespace quarry {

namespace {
const std::array<OpInfo, kNumOps> &table() {
  static const std::array<OpInfo, kNumOps> infos = {{
#define QUARRY_INFO(kind, def)                                                 \
  OpInfo{OpKind::kind,    def::name,    def::min_inputs,                       \
         def::max_inputs, def::attrs(), def::traits},
      QUARRY_OPS(QUARRY_INFO)
#undef QUARRY_INFO
  }};
  return infos;
}
} // namespace

const OpInfo &op_info(OpKind kind) {
  return table()[static_cast<size_t>(kind)];
}

std::optional<OpKind> op_from_name(std::string_view name) {
  for (const auto &info : table())
    if (info.name == name)
      return info.kind;
  return std::nullopt;
}

int op_num_outputs(OpKind kind, const Attrs &attrs) {
  return dispatch(
      kind, [&](auto def) { return decltype(def)::type::num_outputs(attrs); });
}

ops::MaybeTypes infer_types(OpKind kind, const Attrs &attrs,
                            std::span<const TensorType> inputs) {
  return dispatch(kind, [&](auto def) {
    return decltype(def)::type::infer(attrs, inputs);
  });
}

} // namespace quarry
