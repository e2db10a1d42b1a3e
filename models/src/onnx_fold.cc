//===- onnx_fold.cc - ONNX operators evaluated while importing ------------===//
//
// Values are computed as ONNX Runtime computes them: integer tensors in
// int64 (division truncates), float tensors rounded to float32 after each
// operator, comparisons giving bool. Constant keeps every value both as a
// double and as an int64, so each folder fills both.
//
//===----------------------------------------------------------------------===//
#include "onnx_fold.h"
#include "onnx_kept.h"
#include "onnx_kernels.h"

#include "quarry/core/ops/broadcast.h"
#include "quarry/core/ops/slice.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

namespace quarry::onnx_io {

namespace {

using I = Importer;
using Ints = std::vector<int64_t>;
using TP = onnx::TensorProto;
using Inputs = std::vector<const Constant *>;
using Folder = std::function<std::vector<Constant>(I &, const Inputs &)>;

/// The integers float32 holds exactly, and sums of them stay exact.
constexpr int64_t kExactInFloat = int64_t{1} << 24;
/// The most elements a value of a fold by reference may hold, where it
/// reads fewer.
constexpr int64_t kLargestFold = int64_t{1} << 20;

/// A constant of type `elem` from values given as doubles (rounded to
/// float32, float16 or bfloat16 for those, truncated for integer types).
Constant from_reals(int32_t elem, Shape shape, const std::vector<double> &v) {
  Constant c;
  c.elem = elem;
  c.shape = std::move(shape);
  c.reals.reserve(v.size());
  c.ints.reserve(v.size());
  for (double x : v) {
    double r = x;
    if (held_as_float(elem))
      r = static_cast<double>(round_to(elem, static_cast<float>(x)));
    else if (elem == TP::BOOL)
      r = x != 0 ? 1 : 0;
    else if (integral(elem))
      r = std::isfinite(x) ? std::trunc(x) : 0;
    c.reals.push_back(r);
    const double i = std::round(r);
    c.ints.push_back(std::abs(i) < 9.2e18 ? static_cast<int64_t>(i)
                                          : (i > 0 ? INT64_MAX : INT64_MIN));
  }
  return c;
}

Constant from_ints(int32_t elem, Shape shape, const Ints &v) {
  Constant c;
  c.elem = elem;
  c.shape = std::move(shape);
  c.ints = v;
  for (int64_t x : v)
    c.reals.push_back(static_cast<double>(x));
  return c;
}

Constant pick(const Constant &c, Shape shape, const Ints &from) {
  Constant r;
  r.elem = c.elem;
  r.shape = std::move(shape);
  r.reals.reserve(from.size());
  r.ints.reserve(from.size());
  for (int64_t i : from) {
    r.reals.push_back(c.reals[i]);
    r.ints.push_back(c.ints[i]);
  }
  return r;
}

/// ONNX's multidirectional broadcasting of `shapes`: core's rule
/// (ops::broadcast_shape), pairwise.
Shape broadcast_all(I &m, const std::vector<Shape> &shapes) {
  Shape out = shapes.at(0);
  try {
    for (size_t i = 1; i < shapes.size(); ++i)
      out = ops::broadcast_shape(m.node().op_type(), out, shapes[i]);
  } catch (const Error &e) {
    m.fail(e.what());
  }
  return out;
}

/// For each element of `out` (row-major), the element of `in` it reads
/// when `in` is broadcast to `out`.
Ints broadcast_index(const Shape &in, const Shape &out) {
  const Ints st = ops::broadcast_strides(in, out);
  Ints idx(out.numel()), pos(out.rank(), 0);
  for (int64_t k = 0; k < out.numel(); ++k) {
    int64_t src = 0;
    for (int i = 0; i < out.rank(); ++i)
      src += pos[i] * st[i];
    idx[k] = src;
    for (int i = out.rank() - 1; i >= 0; --i) {
      if (++pos[i] < out[i])
        break;
      pos[i] = 0;
    }
  }
  return idx;
}

/// An elementwise operator over broadcast inputs; `fn` sees each element's
/// values as doubles and, for integer inputs, as int64.
struct Elementwise {
  enum Result { SameAsInput, Bool };
  Result result = SameAsInput;
  std::function<double(const std::vector<double> &)> real;
  std::function<int64_t(const std::vector<int64_t> &)> integer; // optional
};

Folder elementwise(Elementwise e) {
  return [e](I &m, const Inputs &in) {
    std::vector<Shape> shapes;
    for (const Constant *c : in)
      shapes.push_back(c->shape);
    const Shape out = broadcast_all(m, shapes);
    std::vector<Ints> index;
    for (const Constant *c : in)
      index.push_back(broadcast_index(c->shape, out));
    // Where's operands are 1 and 2; its condition decides nothing here.
    const Constant &typed = *in[in.size() == 3 ? 1 : 0];
    const bool ints = integral(typed.elem) && e.integer;
    const int64_t n = out.numel();
    std::vector<double> reals(n);
    Ints exact(n);
    std::vector<double> rv(in.size());
    Ints iv(in.size());
    for (int64_t k = 0; k < n; ++k) {
      for (size_t j = 0; j < in.size(); ++j) {
        rv[j] = in[j]->reals[index[j][k]];
        iv[j] = in[j]->ints[index[j][k]];
      }
      if (ints)
        exact[k] = e.integer(iv);
      else
        reals[k] = e.real(rv);
    }
    const int32_t elem = e.result == Elementwise::Bool ? TP::BOOL : typed.elem;
    return std::vector<Constant>{ints ? from_ints(elem, out, exact)
                                      : from_reals(elem, out, reals)};
  };
}

/// `f` over the operands left to right: binary operators, and the
/// variadic Max and Min (one operand or many).
template <class F> Folder binary(F f) {
  Elementwise e;
  e.real = [f](const std::vector<double> &v) {
    double r = v.at(0);
    for (size_t i = 1; i < v.size(); ++i)
      r = f(r, v[i]);
    return r;
  };
  e.integer = [f](const Ints &v) {
    int64_t r = v.at(0);
    for (size_t i = 1; i < v.size(); ++i)
      r = f(r, v[i]);
    return r;
  };
  return elementwise(e);
}

template <class F> Folder compare(F f) {
  Elementwise e;
  e.result = Elementwise::Bool;
  e.real = [f](const std::vector<double> &v) { return f(v[0], v[1]) ? 1 : 0; };
  e.integer = [f](const Ints &v) -> int64_t { return f(v[0], v[1]) ? 1 : 0; };
  return elementwise(e);
}

template <class F> Folder unary(F f) {
  Elementwise e;
  e.real = [f](const std::vector<double> &v) { return f(v[0]); };
  return elementwise(e);
}

std::vector<Constant> fold_div(I &m, const Inputs &in) {
  if (integral(in[0]->elem))
    for (int64_t d : in[1]->ints)
      if (d == 0)
        m.fail("integer division by zero");
  return binary([](auto a, auto b) { return a / b; })(m, in);
}

std::vector<Constant> fold_mod(I &m, const Inputs &in) {
  const bool fmod = m.attr_int("fmod", 0) != 0;
  if (integral(in[0]->elem))
    for (int64_t d : in[1]->ints)
      if (d == 0)
        m.fail("integer modulo by zero");
  Elementwise e;
  e.real = [fmod](const std::vector<double> &v) {
    const double r = std::fmod(v[0], v[1]);
    return !fmod && r != 0 && (r < 0) != (v[1] < 0) ? r + v[1] : r;
  };
  e.integer = [fmod](const Ints &v) {
    const int64_t r = v[0] % v[1];
    return !fmod && r != 0 && (r < 0) != (v[1] < 0) ? r + v[1] : r;
  };
  return elementwise(e)(m, in);
}

std::vector<Constant> fold_where(I &m, const Inputs &in) {
  Elementwise e;
  e.real = [](const std::vector<double> &v) { return v[0] != 0 ? v[1] : v[2]; };
  e.integer = [](const Ints &v) { return v[0] != 0 ? v[1] : v[2]; };
  return elementwise(e)(m, in);
}

/// Cast, or CastLike (to the type of its input 1).
std::vector<Constant> fold_cast(I &m, const Inputs &in) {
  const auto to = in.size() > 1 && in[1]
                      ? in[1]->elem
                      : static_cast<int32_t>(m.attr_int("to", TP::FLOAT));
  if (integral(in[0]->elem) && integral(to) && to != TP::BOOL)
    return {from_ints(to, in[0]->shape, in[0]->ints)};
  return {from_reals(to, in[0]->shape, in[0]->reals)};
}

/// Shape (opset 15: `start` and `end`) of any input, constant or computed.
std::vector<Constant> fold_shape(I &m, const Inputs &) {
  const Shape s = m.input_shape(0);
  const int r = s.rank();
  auto clamp = [r](int64_t a) {
    return std::clamp<int64_t>(a < 0 ? a + r : a, 0, r);
  };
  const int64_t start = clamp(m.attr_int("start", 0));
  const int64_t end = clamp(m.attr_int("end", r));
  Ints dims;
  for (int64_t i = start; i < end; ++i)
    dims.push_back(s[static_cast<int>(i)]);
  const auto n = static_cast<int64_t>(dims.size());
  return {from_ints(TP::INT64, Shape{n}, dims)};
}

std::vector<Constant> fold_size(I &m, const Inputs &) {
  return {from_ints(TP::INT64, Shape{}, {m.input_shape(0).numel()})};
}

std::vector<Constant> fold_concat(I &m, const Inputs &in) {
  const Shape &s0 = in[0]->shape;
  const int axis = m.axis(m.attr_int("axis", m.opset() < 4 ? 1 : 0), s0.rank());
  Shape out = s0;
  out[axis] = 0;
  for (const Constant *c : in) {
    if (c->shape.rank() != s0.rank())
      m.fail("concat of ranks " + std::to_string(s0.rank()) + " and " +
             std::to_string(c->shape.rank()));
    for (int i = 0; i < s0.rank(); ++i)
      if (i != axis && c->shape[i] != s0[i])
        m.fail("concat of " + s0.str() + " and " + c->shape.str());
    out[axis] += c->shape[axis];
  }
  // Row-major: for each outer index, each input's block in turn.
  int64_t outer = 1;
  for (int i = 0; i < axis; ++i)
    outer *= s0[i];
  Constant r;
  r.elem = in[0]->elem;
  r.shape = out;
  for (int64_t o = 0; o < outer; ++o)
    for (const Constant *c : in) {
      const int64_t block = outer == 0 ? 0 : c->shape.numel() / outer;
      for (int64_t k = o * block; k < (o + 1) * block; ++k) {
        r.reals.push_back(c->reals[k]);
        r.ints.push_back(c->ints[k]);
      }
    }
  return {r};
}

std::vector<Constant> fold_gather(I &m, const Inputs &in) {
  const Shape &s = in[0]->shape;
  const int axis = m.axis(m.attr_int("axis", 0), s.rank());
  const Constant &idx = *in[1];
  Shape out;
  for (int i = 0; i < axis; ++i)
    out.dims.push_back(s[i]);
  for (int64_t d : idx.shape.dims)
    out.dims.push_back(d);
  for (int i = axis + 1; i < s.rank(); ++i)
    out.dims.push_back(s[i]);
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i)
    outer *= s[i];
  for (int i = axis + 1; i < s.rank(); ++i)
    inner *= s[i];
  Ints from;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j : idx.ints) {
      if (j < -s[axis] || j >= s[axis])
        m.fail("index " + std::to_string(j) + " out of range for axis " +
               std::to_string(axis) + " of " + s.str());
      const int64_t k = j < 0 ? j + s[axis] : j;
      for (int64_t i = 0; i < inner; ++i)
        from.push_back((o * s[axis] + k) * inner + i);
    }
  return {pick(*in[0], out, from)};
}

/// Transpose (perm defaults to reversing the axes).
std::vector<Constant> fold_transpose(I &m, const Inputs &in) {
  const Shape &s = in[0]->shape;
  Ints perm = m.attr_ints("perm").value_or(Ints{});
  if (perm.empty())
    for (int i = s.rank() - 1; i >= 0; --i)
      perm.push_back(i);
  if (static_cast<int>(perm.size()) != s.rank())
    m.fail("perm has " + std::to_string(perm.size()) + " axes for " + s.str());
  Shape out;
  for (int64_t p : perm)
    out.dims.push_back(s[m.axis(p, s.rank())]);
  const Ints strides = s.strides();
  Ints from, pos(s.rank(), 0);
  for (int64_t k = 0; k < out.numel(); ++k) {
    int64_t src = 0;
    for (int i = 0; i < s.rank(); ++i)
      src += pos[i] * strides[m.axis(perm[i], s.rank())];
    from.push_back(src);
    for (int i = s.rank() - 1; i >= 0; --i) {
      if (++pos[i] < out[i])
        break;
      pos[i] = 0;
    }
  }
  return {pick(*in[0], out, from)};
}

/// Slice by core's rule (ops::Slice::plan: ONNX's clamping), with the
/// attributes the importer's slice handler reads (slice_attrs).
std::vector<Constant> fold_slice(I &m, const Inputs &in) {
  const Shape &s = in[0]->shape;
  ops::Slice::Plan p;
  try {
    p = ops::Slice::plan(slice_attrs(m, s.rank()), s, true);
  } catch (const Error &e) {
    m.fail(e.what());
  }
  const Ints strides = s.strides();
  Ints from, pos(s.rank(), 0);
  for (int64_t k = 0; k < p.out.numel(); ++k) {
    int64_t src = 0;
    for (int i = 0; i < s.rank(); ++i)
      src += (p.start[i] + pos[i] * p.step[i]) * strides[i];
    from.push_back(src);
    for (int i = s.rank() - 1; i >= 0; --i) {
      if (++pos[i] < p.out[i])
        break;
      pos[i] = 0;
    }
  }
  return {pick(*in[0], p.out, from)};
}

std::vector<Constant> fold_constant_of_shape(I &m, const Inputs &in) {
  Constant value = from_reals(TP::FLOAT, Shape{1}, {0.0});
  if (const auto *a = m.attr("value")) {
    try {
      value = decode_tensor(a->t());
    } catch (const Error &e) {
      m.fail(e.what());
    }
    if (value.reals.size() != 1)
      m.fail("value must hold one element");
  }
  for (int64_t d : in[0]->ints)
    if (d < 0)
      m.fail("negative dimension " + std::to_string(d));
  const Shape out(in[0]->ints);
  const int64_t n = out.numel();
  if (n > (int64_t{1} << 26))
    m.fail("a constant of " + out.str() + " is too large to fold");
  Constant r;
  r.elem = value.elem;
  r.shape = out;
  r.reals.assign(n, value.reals[0]);
  r.ints.assign(n, value.ints[0]);
  return {r};
}

/// The most elements a folded Range may have.
constexpr int64_t kMaxRangeElements = int64_t{1} << 26;

std::vector<Constant> fold_range(I &m, const Inputs &in) {
  for (const Constant *c : in)
    if (c->reals.size() != 1)
      m.fail("start, limit and delta must be scalars");
  const bool ints = integral(in[0]->elem);
  if (ints) {
    const int64_t start = in[0]->ints[0], limit = in[1]->ints[0],
                  delta = in[2]->ints[0];
    if (delta == 0)
      m.fail("delta 0");
    // In 128 bits: the span of two 64-bit bounds may not fit in 64.
    const __int128 span = static_cast<__int128>(limit) - start;
    const __int128 count =
        std::max<__int128>(0, (span + delta + (delta > 0 ? -1 : 1)) / delta);
    if (count > kMaxRangeElements)
      m.fail("a range of more than " + std::to_string(kMaxRangeElements) +
             " elements is too large");
    const auto n = static_cast<int64_t>(count);
    Ints v;
    for (int64_t k = 0; k < n; ++k)
      v.push_back(start + k * delta);
    return {from_ints(in[0]->elem, Shape{n}, v)};
  }
  const double start = in[0]->reals[0], limit = in[1]->reals[0],
               delta = in[2]->reals[0];
  if (delta == 0)
    m.fail("delta 0");
  // Compared before the conversion, which a count past int64 (or NaN,
  // which max makes 0) would make undefined.
  const double count = std::max(0.0, std::ceil((limit - start) / delta));
  if (!(count <= static_cast<double>(kMaxRangeElements)))
    m.fail("a range of more than " + std::to_string(kMaxRangeElements) +
           " elements is too large");
  const auto n = static_cast<int64_t>(count);
  std::vector<double> v;
  for (int64_t k = 0; k < n; ++k)
    v.push_back(start + static_cast<double>(k) * delta);
  return {from_reals(in[0]->elem, Shape{n}, v)};
}

std::vector<Constant> fold_expand(I &m, const Inputs &in) {
  const Shape out = broadcast_all(m, {in[0]->shape, Shape(in[1]->ints)});
  if (out.numel() > (int64_t{1} << 26))
    m.fail("a constant of " + out.str() + " is too large to fold");
  return {pick(*in[0], out, broadcast_index(in[0]->shape, out))};
}

const std::map<std::string, Folder, std::less<>> &folders() {
  static const std::map<std::string, Folder, std::less<>> table = {
      {"Shape", fold_shape},
      {"Size", fold_size},
      {"Cast", fold_cast},
      {"CastLike", fold_cast},
      {"Concat", fold_concat},
      {"Gather", fold_gather},
      {"Slice", fold_slice},
      {"Transpose", fold_transpose},
      {"ConstantOfShape", fold_constant_of_shape},
      {"Range", fold_range},
      {"Expand", fold_expand},
      {"Where", fold_where},
      {"Add", binary([](auto a, auto b) { return a + b; })},
      {"Sub", binary([](auto a, auto b) { return a - b; })},
      {"Mul", binary([](auto a, auto b) { return a * b; })},
      {"Div", fold_div},
      {"Pow",
       [](I &m, const Inputs &in) {
         Elementwise e;
         e.real = [](const std::vector<double> &v) {
           return std::pow(v[0], v[1]);
         };
         return elementwise(e)(m, in);
       }},
      {"Mod", fold_mod},
      {"Max", binary([](auto a, auto b) { return std::max(a, b); })},
      {"Min", binary([](auto a, auto b) { return std::min(a, b); })},
      {"Equal", compare([](auto a, auto b) { return a == b; })},
      {"Less", compare([](auto a, auto b) { return a < b; })},
      {"LessOrEqual", compare([](auto a, auto b) { return a <= b; })},
      {"Greater", compare([](auto a, auto b) { return a > b; })},
      {"GreaterOrEqual", compare([](auto a, auto b) { return a >= b; })},
      {"And", compare([](auto a, auto b) { return a != 0 && b != 0; })},
      {"Or", compare([](auto a, auto b) { return a != 0 || b != 0; })},
      {"Not",
       [](I &m, const Inputs &in) {
         Elementwise e;
         e.result = Elementwise::Bool;
         e.real = [](const std::vector<double> &v) { return v[0] == 0; };
         e.integer = [](const Ints &v) -> int64_t { return v[0] == 0; };
         return elementwise(e)(m, in);
       }},
      {"Neg", unary([](double a) { return -a; })},
      {"Abs", unary([](double a) { return std::abs(a); })},
      {"Floor", unary([](double a) { return std::floor(a); })},
      {"Ceil", unary([](double a) { return std::ceil(a); })},
      {"Sqrt", unary([](double a) { return std::sqrt(a); })},
  };
  return table;
}

/// An operator the algebra has no form of but quarry has a kernel for
/// (TopK, CumSum, ArgMax, NonZero: onnx_kernels.h), its inputs all
/// constants: the kernel's outputs, as it would compute them between
/// stages. Integers take part where float32 holds them exactly.
bool fold_by_kernel(I &m) {
  const onnx::NodeProto &n = m.node();
  if (!default_domain(n.domain()) || !has_kernel(n.op_type()))
    return false;
  std::vector<HeldValue> held;
  held.reserve(static_cast<size_t>(m.num_inputs()));
  int64_t read = 0;
  for (int i = 0; i < m.num_inputs(); ++i) {
    if (!m.has_input(i)) {
      held.emplace_back();
      continue;
    }
    const Constant *c = m.const_in(i);
    if (!c || (integral(c->elem) &&
               std::any_of(c->ints.begin(), c->ints.end(), [](int64_t v) {
                 return std::abs(v) > kExactInFloat;
               })))
      return false;
    held.push_back(HeldValue{c->as_float(), c->elem});
    read += c->shape.numel();
  }
  std::vector<const HeldValue *> in;
  for (int i = 0; i < m.num_inputs(); ++i)
    in.push_back(m.has_input(i) ? &held[static_cast<size_t>(i)] : nullptr);
  std::vector<HeldValue> out;
  try {
    out = run_kernel(n, m.opset(), in);
  } catch (const Error &e) {
    m.fail(e.what());
  }
  std::vector<Constant> results;
  for (const HeldValue &v : out) {
    // A result much larger than what it is made of stays computed.
    if (v.value.numel() > std::max(read, kLargestFold))
      return false;
    results.push_back(from_reals(
        v.elem, v.value.shape,
        std::vector<double>(v.value.data.begin(), v.value.data.end())));
  }
  for (size_t i = 0;
       i < results.size() && i < static_cast<size_t>(n.output_size()); ++i)
    m.set_output_const(static_cast<int>(i), std::move(results[i]));
  return true;
}

/// Any other operator quarry imports, its inputs all constants: the
/// reference evaluation of what its handler builds. Integers take part
/// where float32 holds them and the results exactly (data movement,
/// sums); a non-integral result of integers is not folded.
bool fold_by_reference(I &m) {
  const auto &handlers = onnx_handlers();
  const auto h = handlers.find(m.node().op_type());
  if (h == handlers.end())
    return fold_by_kernel(m);
  if (m.num_inputs() == 0)
    return false;
  for (int i = 0; i < m.num_inputs(); ++i) {
    if (!m.has_input(i))
      continue;
    const Constant *c = m.const_in(i);
    if (!c || m.is_bool(i))
      return false;
    if (integral(c->elem) &&
        std::any_of(c->ints.begin(), c->ints.end(),
                    [](int64_t v) { return std::abs(v) > kExactInFloat; }))
      return false;
  }
  // A constant much larger than what it is made of (a Tile, a Resize)
  // would bloat the model: the graph computes it instead.
  int64_t read = 0;
  for (int i = 0; i < m.num_inputs(); ++i)
    if (m.has_input(i))
      read += m.const_in(i)->shape.numel();
  const auto evaluated =
      m.evaluate_handler(h->second, std::max(read, kLargestFold));
  if (!evaluated)
    return false;
  std::vector<Constant> out;
  // An output has its operands' type (an integer Split, a mean of
  // integers that must stay one), unless the handler gives it another (a
  // quantized one) or the operator makes floats of integers.
  const int32_t first = m.const_in(0) ? m.const_in(0)->elem : TP::FLOAT;
  const bool to_float = m.node().op_type() == "DequantizeLinear";
  for (size_t k = 0; k < evaluated->values.size(); ++k) {
    const Tensor<float> &t = evaluated->values[k];
    const int32_t elem = evaluated->elems.at(k) != TP::FLOAT
                             ? evaluated->elems[k]
                         : to_float ? TP::FLOAT
                                    : first;
    std::vector<double> reals(t.data.begin(), t.data.end());
    if (integral(elem) && std::any_of(reals.begin(), reals.end(), [](double v) {
          return v != std::trunc(v) || std::abs(v) > kExactInFloat;
        }))
      return false;
    out.push_back(from_reals(elem, t.shape, reals));
  }
  for (size_t i = 0; i < out.size(); ++i)
    m.set_output_const(static_cast<int>(i), std::move(out[i]));
  return true;
}

} // namespace

bool fold_node(Importer &m) {
  const auto &table = folders();
  const auto it = table.find(m.node().op_type());
  if (it == table.end())
    return fold_by_reference(m);
  const bool shape_only =
      m.node().op_type() == "Shape" || m.node().op_type() == "Size";
  Inputs in;
  for (int i = 0; i < m.num_inputs(); ++i) {
    const Constant *c = m.const_in(i);
    if (!c && m.has_input(i) && !shape_only)
      return false;
    in.push_back(c);
  }
  if (!shape_only && (in.empty() || !in[0]))
    return false;
  std::vector<Constant> out = it->second(m, in);
  for (size_t i = 0; i < out.size(); ++i)
    m.set_output_const(static_cast<int>(i), std::move(out[i]));
  return true;
}

std::vector<std::string> foldable_operators() {
  std::vector<std::string> names;
  for (const auto &[name, folder] : folders())
    names.push_back(name);
  return names;
}

} // namespace quarry::onnx_io
