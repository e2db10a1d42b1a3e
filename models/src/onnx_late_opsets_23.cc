//===- onnx_late_opsets_23.cc - Opset 23's new operators as opset 17 -----===//
//
// The operators opset 23 introduced that quarry has the semantics of,
// written as the opset-17 nodes that compute the same (onnx_late_opsets.h):
// RMSNormalization as its mean of squares; Attention as the products,
// scale, masks and softmax of scaled dot-product attention, its heads
// split from and joined back into a 3-D input's hidden axis, grouped
// key and value heads repeated for the query heads they serve, and past
// keys and values concatenated before the new ones; RotaryEmbedding as the
// slices, products and concatenations that rotate each pair of a head's
// first rotary_embedding_dim features (its two halves, or neighbours when
// interleaved) by the angle whose cosine and sine the caches hold.
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

  if (op == "RotaryEmbedding")
    return rotary_embedding(base);

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

Nodes Importer::rotary_embedding(const std::string &base) {
  // Over x as [batch, seq, heads, size], with c and s the cosines and
  // sines of positions [batch, seq] (gathered by position_ids, else the
  // caches as they are) for half = rotary_dim / 2 angles:
  //   x1, x2 = halves of x[..., :rotary_dim] (even and odd when interleaved)
  //   y = concat(c x1 - s x2, s x1 + c x2) (interleaved back), x[...,
  //   rotary_dim:]
  const onnx::NodeProto &n = *node_;
  Nodes out;
  auto value = [&](const std::string &hint) {
    return opset17_name(base + "/" + hint);
  };
  auto ints = [&](const std::string &hint, const Ints &v) {
    return opset17_ints(base + "/" + hint, v);
  };
  auto emit = [&](const std::string &type, const std::vector<std::string> &in,
                  const std::string &hint) {
    out.push_back(make_node(n, type, in, {value(hint)}));
    return out.back().output(0);
  };
  auto transposed = [&](const std::string &x, const Ints &perm,
                        const std::string &hint) {
    onnx::NodeProto t = make_node(n, "Transpose", {x}, {value(hint)});
    add_attr(t, "perm", perm);
    out.push_back(t);
    return t.output(0);
  };
  // x[..., from:to:step] along axis `axis`.
  auto slice = [&](const std::string &x, int64_t axis, int64_t from, int64_t to,
                   int64_t step, const std::string &hint) {
    return emit("Slice",
                {x, ints(hint + "_from", {from}), ints(hint + "_to", {to}),
                 ints(hint + "_axis", {axis}), ints(hint + "_step", {step})},
                hint);
  };
  for (int i : {0, 1, 2})
    if (!has_input(i))
      fail("input " + std::to_string(i) + " is missing");
  if (reads_untyped())
    fail("its opset-23 form needs the shapes of what it reads, which are not "
         "fixed");
  const Shape sx = input_shape(0), sc = input_shape(1), ss = input_shape(2);
  if (sx.rank() != 3 && sx.rank() != 4)
    fail("X " + sx.str() + " must be 3-D or 4-D");
  const int64_t batch = sx[0], seq = sx.rank() == 4 ? sx[2] : sx[1];
  int64_t heads = sx.rank() == 4 ? sx[1] : attr_int("num_heads", 0);
  if (sx.rank() == 3 && (heads < 1 || sx[2] % heads != 0))
    fail("num_heads " + std::to_string(heads) +
         " must split X's hidden axis of " + std::to_string(sx[2]));
  const int64_t size = sx.rank() == 4 ? sx[3] : sx[2] / heads;
  const int64_t rotary = attr_int("rotary_embedding_dim", 0) == 0
                             ? size
                             : attr_int("rotary_embedding_dim", 0);
  if (rotary < 2 || rotary > size || rotary % 2 != 0)
    fail("rotary_embedding_dim " + std::to_string(rotary) +
         " must be even and at most the head size " + std::to_string(size));
  const int64_t half = rotary / 2;
  const bool positions = has_input(3);
  // One angle per pair rotated, or per pair of the whole head (the first
  // ones then read).
  const std::string angles_per =
      half == size / 2
          ? std::to_string(half)
          : std::to_string(half) + " or " + std::to_string(size / 2);
  for (const Shape &cache : {sc, ss})
    if (cache.rank() != (positions ? 2 : 3) ||
        (cache[cache.rank() - 1] != half &&
         cache[cache.rank() - 1] != size / 2) ||
        (!positions && (cache[0] != batch || cache[1] != seq)))
      fail("cos_cache " + sc.str() + " and sin_cache " + ss.str() +
           " must be " +
           (positions ? "[positions, " + angles_per + "]"
                      : "[" + std::to_string(batch) + ", " +
                            std::to_string(seq) + ", " + angles_per + "]"));
  if (positions && input_shape(3) != (Shape{batch, seq}))
    fail("position_ids " + input_shape(3).str() + " must be [" +
         std::to_string(batch) + ", " + std::to_string(seq) + "]");
  const std::string x =
      sx.rank() == 4
          ? transposed(n.input(0), {0, 2, 1, 3}, "x")
          : emit("Reshape",
                 {n.input(0), ints("x_shape", {batch, seq, heads, size})}, "x");
  // [batch, seq, 1, half]: one angle per pair, the same for every head.
  auto angles = [&](int i, const std::string &hint) {
    std::string a = n.input(i);
    if (positions)
      a = emit("Gather", {a, n.input(3)}, hint + "_at");
    const Shape cache = input_shape(i);
    if (cache[cache.rank() - 1] != half)
      a = slice(a, 2, 0, half, 1, hint + "_half");
    return emit("Unsqueeze", {a, ints(hint + "_axis", {2})}, hint);
  };
  const std::string cos = angles(1, "cos"), sin = angles(2, "sin");
  const bool interleaved = attr_int("interleaved", 0) != 0;
  const std::string x1 = interleaved ? slice(x, 3, 0, rotary, 2, "x1")
                                     : slice(x, 3, 0, half, 1, "x1");
  const std::string x2 = interleaved ? slice(x, 3, 1, rotary, 2, "x2")
                                     : slice(x, 3, half, rotary, 1, "x2");
  const std::string real =
      emit("Sub",
           {emit("Mul", {cos, x1}, "cos_x1"), emit("Mul", {sin, x2}, "sin_x2")},
           "real");
  const std::string imag =
      emit("Add",
           {emit("Mul", {sin, x1}, "sin_x1"), emit("Mul", {cos, x2}, "cos_x2")},
           "imag");
  auto concat = [&](const std::vector<std::string> &parts, int64_t axis,
                    const std::string &hint) {
    onnx::NodeProto c = make_node(n, "Concat", parts, {value(hint)});
    add_attr(c, "axis", axis);
    out.push_back(c);
    return c.output(0);
  };
  std::string y;
  if (interleaved) {
    const std::string pairs =
        concat({emit("Unsqueeze", {real, ints("real_axis", {4})}, "real_pair"),
                emit("Unsqueeze", {imag, ints("imag_axis", {4})}, "imag_pair")},
               4, "pairs");
    y = emit("Reshape",
             {pairs, ints("pairs_shape", {batch, seq, heads, rotary})},
             "rotated");
  } else {
    y = concat({real, imag}, 3, "rotated");
  }
  if (rotary < size)
    y = concat({y, slice(x, 3, rotary, size, 1, "kept")}, 3, "y");
  onnx::NodeProto last =
      sx.rank() == 4 ? make_node(n, "Transpose", {y}, {n.output(0)})
                     : make_node(n, "Reshape", {y, ints("y_shape", sx.dims)},
                                 {n.output(0)});
  if (sx.rank() == 4)
    add_attr(last, "perm", Ints{0, 2, 1, 3});
  out.push_back(last);
  return out;
}

} // namespace quarry::onnx_io
