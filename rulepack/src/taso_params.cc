//===- taso_params.cc - TASO operator types and parameters ----------------===//
#include "taso_params.h"

#include "quarry/core/error.h"

#include <array>
#include <map>
#include <optional>

namespace quarry::taso {

namespace {

/// TASO's OpType numbers for the operators quarry has.
constexpr std::pair<int, OpKind> kOpTypes[] = {
    {3, OpKind::Conv2D},      {6, OpKind::Pool2DMax}, {7, OpKind::Pool2DAvg},
    {8, OpKind::Relu},        {9, OpKind::Sigmoid},   {10, OpKind::Tanh},
    {12, OpKind::Concat},     {13, OpKind::Split},    {15, OpKind::Transpose},
    {16, OpKind::EwAdd},      {17, OpKind::EwMul},    {18, OpKind::MatMul},
    {19, OpKind::ScalarMul},  {20, OpKind::Enlarge},  {22, OpKind::ConstImm},
    {23, OpKind::ConstIConv}, {24, OpKind::ConstOne}, {25, OpKind::ConstPool},
};

/// TASO's PMParameter keys.
enum Key : int {
  kNumInputs = 1,
  kNumOutputs = 2,
  kGroup = 3,
  kKernelH = 4,
  kKernelW = 5,
  kStrideH = 6,
  kStrideW = 7,
  kPad = 8,
  kActi = 9,
  kNumDim = 10,
  kAxis = 11,
  kPerm = 12,
  kOutShuffle = 13,
};

constexpr std::array<const char *, 14> kKeyNames = {
    "",         "num_inputs", "num_outputs", "group",     "kernel_h",
    "kernel_w", "stride_h",   "stride_w",    "pad",       "acti",
    "numdim",   "axis",       "perm",        "outshuffle"};

std::string key_name(int key) {
  return std::string(kKeyNames[key]) + " [" + std::to_string(key) + "]";
}

/// TASO's ActiMode (none, sigmoid, relu, tanh) in quarry's numbering.
constexpr Activation kActivations[] = {Activation::None, Activation::Sigmoid,
                                       Activation::Relu, Activation::Tanh};

/// An operator's parameters by key; every key must be used (taken or
/// deliberately dropped) or finish() rejects it.
class Params {
public:
  explicit Params(const ParamList &list) {
    for (const auto &p : list) {
      if (p.key() < 1 || p.key() >= static_cast<int>(kKeyNames.size()))
        throw Error("unknown parameter key " + std::to_string(p.key()));
      if (!values_.emplace(p.key(), p.value()).second)
        throw Error("parameter " + key_name(p.key()) + " given twice");
    }
  }

  std::optional<int64_t> take(int key) {
    auto it = values_.find(key);
    if (it == values_.end())
      return std::nullopt;
    int64_t v = it->second;
    values_.erase(it);
    return v;
  }

  /// A parameter quarry derives from shapes instead.
  void drop(int key) { values_.erase(key); }

  void finish(OpKind kind) const {
    if (!values_.empty())
      throw Error("parameter " + key_name(values_.begin()->first) +
                  " does not apply to " + std::string(op_name(kind)));
  }

private:
  std::map<int, int64_t> values_;
};

int64_t positive(int key, int64_t v) {
  if (v < 1)
    throw Error(key_name(key) + " must be positive, got " + std::to_string(v));
  return v;
}

/// A (height, width) pair from two keys, each defaulting to `def`'s entry.
std::vector<int64_t> pair_of(Params &p, int key_h, int key_w,
                             const std::vector<int64_t> &def) {
  auto h = p.take(key_h), w = p.take(key_w);
  return {h ? positive(key_h, *h) : def[0], w ? positive(key_w, *w) : def[1]};
}

void take_pad(Params &p, Attrs &a, size_t idx) {
  if (auto v = p.take(kPad)) {
    if (*v != 0 && *v != 1) // TASO: same 0, valid 1, as quarry's Padding
      throw Error(key_name(kPad) + " must be 0 (same) or 1 (valid), got " +
                  std::to_string(*v));
    a.set(idx, *v);
  }
}

Activation take_acti(Params &p) {
  auto v = p.take(kActi);
  if (!v)
    return Activation::None;
  if (*v < 0 || *v > 3)
    throw Error(key_name(kActi) + " value " + std::to_string(*v) +
                " is not an activation (0-3)");
  return kActivations[*v];
}

/// TASO encodes a permutation p of n axes as the integer whose base-n
/// digits, most significant first, are p[0], ..., p[n-1].
std::vector<int64_t> decode_perm(int64_t code, int64_t n) {
  if (n < 1 || n > 16)
    throw Error(key_name(kNumDim) + " " + std::to_string(n) + " out of range");
  const std::string bad = key_name(kPerm) + " " + std::to_string(code) +
                          " is not a permutation of " + std::to_string(n) +
                          " axes";
  if (code < 0)
    throw Error(bad);
  std::vector<int64_t> perm(n);
  std::vector<bool> seen(n, false);
  for (int64_t i = n - 1; i >= 0; --i, code /= n) {
    perm[i] = code % n;
    if (seen[perm[i]])
      throw Error(bad);
    seen[perm[i]] = true;
  }
  if (code != 0)
    throw Error(bad);
  return perm;
}

} // namespace

OpKind op_kind(int type) {
  for (const auto &[t, kind] : kOpTypes)
    if (t == type)
      return kind;
  throw Error("unknown operator type " + std::to_string(type));
}

Attrs convert_params(OpKind kind, const ParamList &params, int num_operands) {
  Params p(params);
  Attrs a = make_attrs(kind);
  switch (kind) {
  case OpKind::Conv2D:
    // Kernel size and group count follow from the weight's shape.
    p.drop(kKernelH);
    p.drop(kKernelW);
    p.drop(kGroup);
    a.set(ops::Conv2D::kStride,
          pair_of(p, kStrideH, kStrideW, a.list(ops::Conv2D::kStride)));
    take_pad(p, a, ops::Conv2D::kPad);
    a.set(ops::Conv2D::kAct, static_cast<int64_t>(take_acti(p)));
    break;
  case OpKind::Pool2DAvg:
  case OpKind::Pool2DMax: {
    using Pool = ops::Pool2DAvg; // both share the schema
    a.set(Pool::kKernel, pair_of(p, kKernelH, kKernelW, a.list(Pool::kKernel)));
    a.set(Pool::kStride, pair_of(p, kStrideH, kStrideW, a.list(Pool::kStride)));
    take_pad(p, a, Pool::kPad);
    if (take_acti(p) != Activation::None)
      throw Error("a fused activation on pooling is not supported");
    break;
  }
  case OpKind::MatMul:
    a.set(ops::MatMul::kAct, static_cast<int64_t>(take_acti(p)));
    break;
  case OpKind::Concat:
    p.drop(kNumDim); // the rank follows from the operands
    if (auto n = p.take(kNumInputs); n && *n != num_operands)
      throw Error(key_name(kNumInputs) + " is " + std::to_string(*n) +
                  " but the operator has " + std::to_string(num_operands) +
                  " operands");
    if (auto axis = p.take(kAxis))
      a.set(ops::Concat::kAxis, *axis);
    break;
  case OpKind::Split:
    p.drop(kNumDim);
    if (auto n = p.take(kNumOutputs); n && *n != 2)
      throw Error(key_name(kNumOutputs) + " must be 2, got " +
                  std::to_string(*n));
    if (auto axis = p.take(kAxis))
      a.set(ops::Split::kAxis, *axis);
    break;
  case OpKind::Transpose: {
    const int64_t n = p.take(kNumDim).value_or(2);
    auto code = p.take(kPerm);
    if (!code)
      throw Error("transpose needs " + key_name(kPerm));
    a.set(ops::Transpose::kPerm, decode_perm(*code, n));
    if (auto s = p.take(kOutShuffle)) {
      if (*s != 0 && *s != 1)
        throw Error(key_name(kOutShuffle) + " must be 0 or 1, got " +
                    std::to_string(*s));
      a.set(ops::Transpose::kShuffle, *s);
    }
    break;
  }
  case OpKind::Enlarge:
  case OpKind::ConstPool:
  case OpKind::ConstIConv:
    // All three keep the kernel first in their schema.
    static_assert(ops::Enlarge::kKernel == 0 && ops::ConstPool::kKernel == 0 &&
                  ops::ConstIConv::kKernel == 0);
    a.set(0, pair_of(p, kKernelH, kKernelW, a.list(0)));
    break;
  default:
    break;
  }
  p.finish(kind);
  return a;
}

} // namespace quarry::taso
