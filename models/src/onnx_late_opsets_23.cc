//===- onnx_late_opsets_23.cc - RMSNormalization and Attention as opset 17
//-===//
//
// The operators opset 23 introduced that quarry has the semantics of,
// written as the opset-17 nodes that compute the same (onnx_late_opsets.h):
// RMSNormalization as its mean of squares, and Attention as the products,
// scale, masks and softmax of scaled dot-product attention, its heads
// split from and joined back into a 3-D input's hidden axis, grouped
// key and value heads repeated for the query heads they serve, and past
// keys and values concatenated before the new ones.
//
//===----------------------------------------------------------------------===//
#include "onnx_attrs.h"
#include "onnx_importer.h"
#include "onnx_late_opsets.h"

#include <cmath>
#include <limits>

namespace quarry::onnx_io {

namespace {

using Ints = std::vector<int64_t>;
using Nodes = std::vector<onnx::NodeProto>;

} // namespace

std::optional<Nodes> Importer::opset23_form() {
  const onnx::NodeProto &n = *node_;
  const std::string &op = n.op_type();
  const std::string base = n.output(0) + "/opset17";
  auto value = [&](const std::string &hint) {
    return opset17_name(base + "/" + hint);
  };
  auto ints = [&](const std::string &hint, const Ints &v) {
    return opset17_ints(base + "/" + hint, v);
  };
  auto input = [&](int i) -> const std::string & {
    if (!has_input(i))
      fail("input " + std::to_string(i) + " is missing");
    return n.input(i);
  };
  auto shape_of = [&](int i) -> Shape {
    input(i);
    if (reads_untyped())
      fail("its opset-23 form needs the shapes of what it reads, which are "
           "not fixed");
    return input_shape(i);
  };
  Nodes out;
  auto emit = [&](const std::string &type, const std::vector<std::string> &in,
                  const std::string &to) {
    out.push_back(make_node(n, type, in, {to}));
    return to;
  };

  if (op == "RMSNormalization") {
    // x / sqrt(mean(x^2 over axis..last) + epsilon) * scale
    const std::string &x = input(0), &scale = input(1);
    const Shape sx = shape_of(0);
    const int first = axis(attr_int("axis", -1), sx.rank());
    Ints axes;
    for (int a = first; a < sx.rank(); ++a)
      axes.push_back(a);
    const std::string sq = emit("Mul", {x, x}, value("square"));
    onnx::NodeProto mean = make_node(n, "ReduceMean", {sq}, {value("mean")});
    add_attr(mean, "axes", axes);
    add_attr(mean, "keepdims", int64_t{1});
    out.push_back(mean);
    const std::string eps = opset17_floats(base + "/epsilon", Shape{},
                                           attr_float("epsilon", 1e-5f));
    const std::string var = emit("Add", {mean.output(0), eps}, value("var"));
    const std::string rms = emit("Sqrt", {var}, value("rms"));
    const std::string normal = emit("Div", {x, rms}, value("normal"));
    emit("Mul", {normal, scale}, n.output(0));
    return out;
  }

  // Attention: softmax(Q K^T scale + mask) V over [batch, heads, seq, size].
  if (n.output_size() > 3 && !n.output(3).empty())
    fail("its qk_matmul_output (output 3) is not supported");
  if (attr_float("softcap", 0.0f) != 0.0f)
    fail("softcap other than 0 is not supported");
  const Shape sq = shape_of(0), sk = shape_of(1), sv = shape_of(2);
  const bool flat = sq.rank() == 3;
  if (sq.rank() != sk.rank() || sq.rank() != sv.rank() ||
      (sq.rank() != 3 && sq.rank() != 4))
    fail("Q, K and V must all be 3-D or all 4-D, not " + sq.str() + ", " +
         sk.str() + " and " + sv.str());
  const int64_t batch = sq[0];
  int64_t q_heads = flat ? attr_int("q_num_heads", 0) : sq[1];
  int64_t kv_heads = flat ? attr_int("kv_num_heads", 0) : sk[1];
  if (q_heads < 1 || kv_heads < 1 || q_heads % kv_heads != 0)
    fail("q_num_heads " + std::to_string(q_heads) +
         " must be a multiple of kv_num_heads " + std::to_string(kv_heads));
  if (flat &&
      (sq[2] % q_heads != 0 || sk[2] % kv_heads != 0 || sv[2] % kv_heads != 0))
    fail("the hidden sizes of Q " + sq.str() + ", K " + sk.str() + " and V " +
         sv.str() + " must split into their heads");
  const int64_t size = flat ? sq[2] / q_heads : sq[3];
  const int64_t v_size = flat ? sv[2] / kv_heads : sv[3];
  // [batch, seq, heads * size] as [batch, heads, seq, size].
  auto heads_of = [&](const std::string &v, int64_t heads, int64_t each,
                      const std::string &hint) {
    if (!flat)
      return v;
    const std::string split =
        emit("Reshape", {v, ints(hint + "_shape", {batch, 0, heads, each})},
             value(hint + "_split"));
    onnx::NodeProto t = make_node(n, "Transpose", {split}, {value(hint)});
    add_attr(t, "perm", Ints{0, 2, 1, 3});
    out.push_back(t);
    return t.output(0);
  };
  const std::string q = heads_of(input(0), q_heads, size, "q");
  std::string k = heads_of(input(1), kv_heads, size, "k");
  std::string v = heads_of(input(2), kv_heads, v_size, "v");
  // Past keys and values, then the new ones; the present outputs.
  auto with_past = [&](std::string now, int past, int present,
                       const std::string &hint) {
    if (has_input(past)) {
      onnx::NodeProto cat =
          make_node(n, "Concat", {input(past), now}, {value(hint + "_total")});
      add_attr(cat, "axis", int64_t{2});
      out.push_back(cat);
      now = cat.output(0);
    }
    if (n.output_size() > present && !n.output(present).empty())
      emit("Identity", {now}, n.output(present));
    return now;
  };
  k = with_past(k, 4, 1, "k");
  v = with_past(v, 5, 2, "v");
  const int64_t total =
      (has_input(4) ? input_shape(4)[2] : 0) + (flat ? sk[1] : sk[2]);
  const int64_t q_seq = flat ? sq[1] : sq[2];
  // Each key and value head serves q_heads / kv_heads query heads in turn.
  auto repeated = [&](const std::string &x, int64_t each,
                      const std::string &hint) {
    if (q_heads == kv_heads)
      return x;
    const int64_t group = q_heads / kv_heads;
    const std::string one =
        emit("Unsqueeze", {x, ints(hint + "_axis", {2})}, value(hint + "_one"));
    const std::string wide =
        emit("Expand",
             {one, ints(hint + "_wide", {batch, kv_heads, group, total, each})},
             value(hint + "_wide"));
    return emit("Reshape",
                {wide, ints(hint + "_heads", {batch, q_heads, total, each})},
                value(hint + "_heads"));
  };
  k = repeated(k, size, "k");
  v = repeated(v, v_size, "v");
  onnx::NodeProto kt = make_node(n, "Transpose", {k}, {value("kt")});
  add_attr(kt, "perm", Ints{0, 1, 3, 2});
  out.push_back(kt);
  const std::string qk = emit("MatMul", {q, kt.output(0)}, value("qk"));
  const double scale = find_attr(n, "scale")
                           ? attr_float("scale", 1.0f)
                           : 1.0 / std::sqrt(static_cast<double>(size));
  std::string scores =
      emit("Mul", {qk, opset17_floats(base + "/scale", Shape{}, scale)},
           value("scaled"));
  const double minus_inf = -std::numeric_limits<double>::infinity();
  if (has_input(3)) {
    const Shape sm = input_shape(3);
    if (sm.rank() < 1 || sm[sm.rank() - 1] != total)
      fail("attn_mask " + sm.str() + " must cover the " +
           std::to_string(total) + " keys on its last axis");
    std::string bias = input(3);
    if (is_bool(3)) // true attends: 0 there, -inf elsewhere
      bias = emit("Where",
                  {bias, opset17_floats(base + "/zero", Shape{}, 0.0),
                   opset17_floats(base + "/minus_inf", Shape{}, minus_inf)},
                  value("mask_bias"));
    scores = emit("Add", {scores, bias}, value("masked"));
  }
  if (attr_int("is_causal", 0) != 0) {
    // Query i attends to keys 0..i (aligned at the upper left).
    Constant c;
    c.shape = Shape{q_seq, total};
    c.reals.resize(static_cast<size_t>(q_seq * total));
    for (int64_t i = 0; i < q_seq; ++i)
      for (int64_t j = 0; j < total; ++j)
        c.reals[static_cast<size_t>(i * total + j)] = j <= i ? 0.0 : minus_inf;
    c.ints.assign(c.reals.size(), 0);
    scores =
        emit("Add", {scores, opset17_constant(base + "/causal", std::move(c))},
             value("causal"));
  }
  onnx::NodeProto soft = make_node(n, "Softmax", {scores}, {value("weights")});
  add_attr(soft, "axis", int64_t{-1});
  out.push_back(soft);
  if (!flat) {
    emit("MatMul", {soft.output(0), v}, n.output(0));
    return out;
  }
  const std::string y = emit("MatMul", {soft.output(0), v}, value("y"));
  onnx::NodeProto back = make_node(n, "Transpose", {y}, {value("y_seq")});
  add_attr(back, "perm", Ints{0, 2, 1, 3});
  out.push_back(back);
  emit("Reshape",
       {back.output(0), ints("y_shape", {batch, q_seq, q_heads * v_size})},
       n.output(0));
  return out;
}

} // namespace quarry::onnx_io
