//===- onnx_import_recurrent.cc - RNN, GRU and LSTM, unrolled -------------===//
//
// With its input's shape fixed, a recurrent layer is a fixed number of steps
// over quarry's own operators: the input's contribution to every gate of
// every step is one matmul, and each step adds the state's contribution
// (a matmul), applies the gate functions and forms the next state. The
// outputs stack the states in time order. What is not unrolled (a clip,
// input_forget, other activation functions, shorter sequences per batch
// entry) is refused, naming it, and the node is kept as it is.
//
// Gates as ONNX orders them: RNN i; GRU z, r, h; LSTM i, o, f, c.
//
//===----------------------------------------------------------------------===//
#include "onnx_importer.h"

namespace quarry::onnx_io {

namespace {

using I = Importer;
using Ints = std::vector<int64_t>;
using ops::BroadcastFn;

enum class Cell { Rnn, Gru, Lstm };

int gate_count(Cell c) { return c == Cell::Rnn ? 1 : c == Cell::Gru ? 3 : 4; }

ValueRef concat(I &m, std::vector<ValueRef> parts, int64_t axis) {
  if (parts.size() == 1)
    return parts[0];
  return m.add(OpKind::Concat, make_attrs(OpKind::Concat, {{"axis", axis}}),
               std::move(parts));
}

ValueRef add(I &m, ValueRef x, ValueRef y) {
  return binary(m, BroadcastFn::Add, x, y);
}
ValueRef mul(I &m, ValueRef x, ValueRef y) {
  return binary(m, BroadcastFn::Mul, x, y);
}

/// Direction d's slice of a per-direction operand [num_dir, rows, cols]
/// as [rows, cols].
ValueRef of_direction(I &m, ValueRef x, int64_t d) {
  const Shape s = m.shape(x);
  return reshape_to(m, slice_along(m, x, 0, d, d + 1),
                    Ints(s.dims.begin() + 1, s.dims.end()));
}

/// The activation functions, per direction, in the order the cell applies
/// them (ONNX's defaults when the node names none).
std::vector<OpKind> activations(I &m, Cell cell, int64_t directions) {
  const size_t per = cell == Cell::Rnn ? 1 : cell == Cell::Gru ? 2 : 3;
  std::vector<std::string> names;
  if (const auto *a = m.attr("activations")) {
    names.assign(a->strings().begin(), a->strings().end());
    if (names.size() != per * static_cast<size_t>(directions))
      m.fail("activations must name " + std::to_string(per * directions) +
             " functions");
  } else {
    const std::vector<std::string> defaults =
        cell == Cell::Rnn ? std::vector<std::string>{"Tanh"}
        : cell == Cell::Gru
            ? std::vector<std::string>{"Sigmoid", "Tanh"}
            : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
    for (int64_t d = 0; d < directions; ++d)
      names.insert(names.end(), defaults.begin(), defaults.end());
  }
  if (m.attr("activation_alpha") || m.attr("activation_beta"))
    m.fail("activation_alpha and activation_beta are not supported");
  std::vector<OpKind> kinds;
  for (const std::string &n : names) {
    if (n == "Sigmoid")
      kinds.push_back(OpKind::Sigmoid);
    else if (n == "Tanh")
      kinds.push_back(OpKind::Tanh);
    else if (n == "Relu")
      kinds.push_back(OpKind::Relu);
    else
      m.fail("activation " + n + " is not supported (Sigmoid, Tanh, Relu are)");
  }
  return kinds;
}

/// What one direction's steps need.
struct Direction {
  ValueRef xw; ///< the input's part of every gate, [seq*batch, G*h]
  ValueRef rt; ///< R transposed, [h, G*h]
  std::optional<ValueRef> rb;   ///< R's bias, [G*h]
  std::optional<ValueRef> peep; ///< LSTM peepholes, [3*h] (i, o, f)
  ValueRef h, c;                ///< the state (c: LSTM only)
  const OpKind *f = nullptr;    ///< this direction's activations
};

/// One step: the state after reading xt ([batch, G*h]).
void step(I &m, Cell cell, Direction &d, ValueRef xt, int64_t hidden,
          bool linear_before_reset) {
  auto gate = [&](ValueRef v, int64_t k) {
    return slice_along(m, v, 1, k * hidden, (k + 1) * hidden);
  };
  auto act = [&](int which, ValueRef v) { return m.add(d.f[which], {v}); };
  ValueRef hr = m.add(OpKind::MatMul, {d.h, d.rt});
  if (d.rb)
    hr = add(m, hr, *d.rb);
  if (cell == Cell::Rnn) {
    d.h = act(0, add(m, xt, hr));
    return;
  }
  if (cell == Cell::Gru) {
    const ValueRef z = act(0, add(m, gate(xt, 0), gate(hr, 0)));
    const ValueRef r = act(0, add(m, gate(xt, 1), gate(hr, 1)));
    ValueRef recurrent;
    if (linear_before_reset) {
      recurrent = mul(m, r, gate(hr, 2));
    } else {
      // (r * h) R_h^T + Rb_h: the reset applies before the product.
      recurrent = m.add(
          OpKind::MatMul,
          {mul(m, r, d.h), slice_along(m, d.rt, 1, 2 * hidden, 3 * hidden)});
      if (d.rb)
        recurrent =
            add(m, recurrent, slice_along(m, *d.rb, 0, 2 * hidden, 3 * hidden));
    }
    const ValueRef candidate = act(1, add(m, gate(xt, 2), recurrent));
    // (1 - z) * candidate + z * h = candidate + z * (h - candidate)
    d.h = add(m, candidate,
              mul(m, z, binary(m, BroadcastFn::Sub, d.h, candidate)));
    return;
  }
  const ValueRef a = add(m, xt, hr);
  auto peephole = [&](ValueRef v, int64_t k, ValueRef c) {
    if (!d.peep)
      return v;
    return add(
        m, v,
        mul(m, slice_along(m, *d.peep, 0, k * hidden, (k + 1) * hidden), c));
  };
  const ValueRef i = act(0, peephole(gate(a, 0), 0, d.c));
  const ValueRef f = act(0, peephole(gate(a, 2), 2, d.c));
  const ValueRef candidate = act(1, gate(a, 3));
  d.c = add(m, mul(m, f, d.c), mul(m, i, candidate));
  const ValueRef o = act(0, peephole(gate(a, 1), 1, d.c));
  d.h = mul(m, o, act(2, d.c));
}

Handler recurrent(Cell cell) {
  return [cell](I &m) {
    const int64_t hidden = m.attr_int("hidden_size", 0);
    if (hidden < 1)
      m.fail("hidden_size must be positive");
    const std::string direction = m.attr_string("direction", "forward");
    if (direction != "forward" && direction != "reverse" &&
        direction != "bidirectional")
      m.fail("direction " + direction +
             " is not one of forward, reverse, "
             "bidirectional");
    const int64_t dirs = direction == "bidirectional" ? 2 : 1;
    if (m.attr("clip"))
      m.fail("clip is not supported");
    if (cell == Cell::Lstm && m.attr_int("input_forget", 0))
      m.fail("input_forget=1 is not supported");
    const bool batch_first = m.attr_int("layout", 0) != 0;
    const bool linear_before_reset = m.attr_int("linear_before_reset", 0) != 0;
    const std::vector<OpKind> f = activations(m, cell, dirs);

    ValueRef x = m.in(0);
    if (m.shape(x).rank() != 3)
      m.fail("the input must be 3-D, got " + m.shape(x).str());
    if (batch_first)
      x = transpose(m, x, {1, 0, 2});
    const Shape sx = m.shape(x);
    const int64_t seq = sx[0], batch = sx[1], width = sx[2];
    const int64_t g = gate_count(cell);
    auto expect = [&](int i, const Shape &want, const char *what) {
      if (m.shape(m.in(i)) != want)
        m.fail(std::string(what) + " must be " + want.str() + ", got " +
               m.shape(m.in(i)).str());
    };
    expect(1, Shape{dirs, g * hidden, width}, "W");
    expect(2, Shape{dirs, g * hidden, hidden}, "R");
    if (m.has_input(3))
      expect(3, Shape{dirs, 2 * g * hidden}, "B");
    if (m.has_input(4)) {
      // Every batch entry the full length is the same as no lengths.
      const Constant *lens = m.const_in(4);
      if (!lens)
        m.fail("sequence_lens must be a constant");
      for (float v : lens->as_float().data)
        if (v != static_cast<float>(seq))
          m.fail("sequence_lens other than the full length " +
                 std::to_string(seq) + " are not supported");
    }
    const Shape state =
        batch_first ? Shape{batch, dirs, hidden} : Shape{dirs, batch, hidden};
    auto initial = [&](int i, const char *what) -> std::optional<ValueRef> {
      if (!m.has_input(i))
        return std::nullopt;
      expect(i, state, what);
      return batch_first ? transpose(m, m.in(i), {1, 0, 2}) : m.in(i);
    };
    const auto h0 = initial(5, "initial_h");
    const auto c0 = cell == Cell::Lstm ? initial(6, "initial_c") : std::nullopt;
    if (cell == Cell::Lstm && m.has_input(7))
      expect(7, Shape{dirs, 3 * hidden}, "P");
    std::optional<ValueRef> zeros;
    auto zero_state = [&] {
      if (!zeros)
        zeros = m.constant_weight(m.node().name() + "_zeros",
                                  Tensor<float>(Shape{batch, hidden}, 0.0f));
      return *zeros;
    };

    const ValueRef rows = reshape_to(m, x, Ints{seq * batch, width});
    std::vector<ValueRef> ys, hs, cs;
    for (int64_t d = 0; d < dirs; ++d) {
      Direction dir;
      dir.f = f.data() + d * (f.size() / dirs);
      dir.xw = m.add(OpKind::MatMul,
                     {rows, transpose(m, of_direction(m, m.in(1), d), {1, 0})});
      dir.rt = transpose(m, of_direction(m, m.in(2), d), {1, 0});
      if (m.has_input(3)) {
        const ValueRef b = reshape_to(m, slice_along(m, m.in(3), 0, d, d + 1),
                                      Ints{2 * g * hidden});
        dir.xw = add(m, dir.xw, slice_along(m, b, 0, 0, g * hidden));
        dir.rb = slice_along(m, b, 0, g * hidden, 2 * g * hidden);
      }
      if (cell == Cell::Lstm && m.has_input(7))
        dir.peep = reshape_to(m, slice_along(m, m.in(7), 0, d, d + 1),
                              Ints{3 * hidden});
      dir.h = h0 ? of_direction(m, *h0, d) : zero_state();
      if (cell == Cell::Lstm)
        dir.c = c0 ? of_direction(m, *c0, d) : zero_state();
      const bool reverse = direction == "reverse" || d == 1;
      std::vector<ValueRef> states(seq);
      for (int64_t k = 0; k < seq; ++k) {
        const int64_t t = reverse ? seq - 1 - k : k;
        step(m, cell, dir,
             slice_along(m, dir.xw, 0, t * batch, (t + 1) * batch), hidden,
             linear_before_reset);
        states[t] = reshape_to(m, dir.h, Ints{1, 1, batch, hidden});
      }
      ys.push_back(states.size() == 1 ? states[0] : concat(m, states, 0));
      hs.push_back(dir.h);
      cs.push_back(dir.c);
    }
    // Y [seq, dirs, batch, h], Y_h and Y_c [dirs, batch, h]; batch first:
    // [batch, seq, dirs, h] and [batch, dirs, h]. Only those asked for.
    auto wanted = [&](int i) {
      return i < m.node().output_size() && !m.node().output(i).empty();
    };
    if (wanted(0)) {
      const ValueRef y = concat(m, ys, 1);
      m.set_output(0, batch_first ? transpose(m, y, {2, 0, 1, 3}) : y);
    }
    auto last_states = [&](int i, const std::vector<ValueRef> &of) {
      std::vector<ValueRef> parts;
      for (ValueRef v : of)
        parts.push_back(reshape_to(m, v, Ints{1, batch, hidden}));
      const ValueRef y = concat(m, parts, 0);
      m.set_output(i, batch_first ? transpose(m, y, {1, 0, 2}) : y);
    };
    if (wanted(1))
      last_states(1, hs);
    if (cell == Cell::Lstm && wanted(2))
      last_states(2, cs);
  };
}

} // namespace

void add_recurrent_handlers(
    std::map<std::string, Handler, std::less<>> &table) {
  table.emplace("RNN", recurrent(Cell::Rnn));
  table.emplace("GRU", recurrent(Cell::Gru));
  table.emplace("LSTM", recurrent(Cell::Lstm));
}

} // namespace quarry::onnx_io
