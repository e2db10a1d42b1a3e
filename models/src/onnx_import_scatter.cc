//===- onnx_import_scatter.cc - Scatters at constant indices --------------===//
//
// ScatterElements, ScatterND and Scatter write the updates into a copy of
// the data at positions the indices give, MaxUnpool its input into zeros. With
// the indices constant, every written position is known: the updates are
// gathered to their places (Gather of the flattened updates, slices of
// consecutive runs), and a constant mask takes them there and the data
// elsewhere (where). Later updates of one position win, as ONNX Runtime applies
// them in order, or under a reduction combine with what is there one after
// another (onnx_scatter.h).
//
//===----------------------------------------------------------------------===//
#include "onnx_importer.h"
#include "onnx_scatter.h"

namespace quarry::onnx_io {

namespace {

using I = Importer;
using Ints = std::vector<int64_t>;

/// The most separate runs of consecutive updates one round may write.
constexpr int64_t kMostRuns = 4096;
/// The most updates one position may combine (rounds of a reduction).
constexpr size_t kMostRounds = 8;

/// The updates `positions` write in one round, where the round holds
/// `source[p]`, the update that position p takes, or -1: -1s are made
/// whatever keeps a run of consecutive updates going, so that the
/// updates gather in few slices; the mask of the written positions.
Tensor<float> fill_round(I &m, Ints &source, int64_t updates, const Shape &sd) {
  Tensor<float> mask(sd, 0.0f);
  int64_t runs = 0;
  for (int64_t p = 0; p < sd.numel(); ++p) {
    const int64_t prev = p > 0 ? source[static_cast<size_t>(p - 1)] : -1;
    if (source[p] < 0) // not written: whatever keeps the run going
      source[p] = prev + 1 < updates ? prev + 1 : std::max<int64_t>(prev, 0);
    else
      mask[p] = 1.0f;
    runs += p == 0 || source[p] != prev + 1;
  }
  if (runs > kMostRuns)
    m.fail("its updates go to " + std::to_string(runs) +
           " separate runs of the data, more than " +
           std::to_string(kMostRuns));
  return mask;
}

/// `data` with its element at flat position `positions[k]` replaced by
/// (or, under reduction `r`, combined with) element k of `updates` (both
/// flattened in row-major order), in the order of k. Round j applies each
/// position's j-th update: all of them at once, gathered and masked. `sd`
/// is the result's shape, to which `data` broadcasts.
ValueRef scatter_flat(I &m, ValueRef data, const Shape &sd, ValueRef updates,
                      const Ints &positions, ScatterReduction r) {
  const int64_t n = sd.numel(), u = static_cast<int64_t>(positions.size());
  if (u == 0)
    return data;
  std::vector<Ints> rounds;
  Ints seen(static_cast<size_t>(n), 0);
  for (int64_t k = 0; k < u; ++k) {
    const auto p = static_cast<size_t>(positions[static_cast<size_t>(k)]);
    // Without a reduction the last update is all that counts.
    const auto j = static_cast<size_t>(r ? seen[p]++ : 0);
    if (j == rounds.size()) {
      if (j == kMostRounds)
        m.fail("it combines more than " + std::to_string(kMostRounds) +
               " updates into one element");
      rounds.emplace_back(static_cast<size_t>(n), -1);
    }
    rounds[j][p] = k;
  }
  const std::string base = m.node().output(0) + "#scatter";
  m.define(base + "updates", reshape_to(m, updates, {u}));
  ValueRef out = data;
  for (size_t j = 0; j < rounds.size(); ++j) {
    const std::string tag = base + std::to_string(j);
    Tensor<float> mask = fill_round(m, rounds[j], u, sd);
    Constant at;
    at.elem = onnx::TensorProto::INT64;
    at.shape = Shape{n};
    at.ints = rounds[j];
    at.reals.assign(rounds[j].begin(), rounds[j].end());
    m.define_const(tag + "at", std::move(at));
    const ValueRef placed = reshape_to(
        m,
        run_node(m, "Gather", {base + "updates", tag + "at"}, tag + "placed"),
        sd.dims);
    out =
        m.add(OpKind::Where, {m.constant_weight(tag + "mask", std::move(mask)),
                              r ? binary(m, *r, out, placed) : placed, out});
  }
  return out;
}

/// The node's reduction attribute, failing the node where it is unknown.
ScatterReduction reduction(I &m) {
  const std::string name = m.attr_string("reduction", "none");
  try {
    return scatter_reduction(name, m.opset());
  } catch (const Error &e) {
    m.fail(e.what());
  }
}

/// ScatterElements (and Scatter before opset 11): updates[i] goes where
/// data's coordinate along `axis` is indices[i], the others i's own.
void scatter_elements(I &m) {
  const ScatterReduction r = reduction(m);
  const ValueRef data = m.in(0), updates = m.in(2);
  const Constant &idx = m.need_const(1, "indices");
  const int64_t axis = m.attr_int("axis", 0);
  Ints positions;
  try {
    positions = scatter_elements_positions(m.shape(data), m.shape(updates),
                                           idx.shape, idx.ints, axis);
  } catch (const Error &e) {
    m.fail(e.what());
  }
  m.set_output(0, scatter_flat(m, data, m.shape(data), updates, positions, r));
}

/// ScatterND: each index tuple (indices' last axis, q values) picks a slice
/// data[t..., :] that the matching updates slice replaces.
void scatter_nd(I &m) {
  const ScatterReduction r = reduction(m);
  const ValueRef data = m.in(0), updates = m.in(2);
  const Constant &idx = m.need_const(1, "indices");
  Ints positions;
  try {
    positions = scatter_nd_positions(m.shape(data), m.shape(updates), idx.shape,
                                     idx.ints);
  } catch (const Error &e) {
    m.fail(e.what());
  }
  m.set_output(0, scatter_flat(m, data, m.shape(data), updates, positions, r));
}

/// MaxUnpool: X's elements written into zeros at the flat positions I
/// gives (MaxPool's Indices), in an output of output_shape where given,
/// else of the windows' extent: (in - 1) * stride + kernel - pads.
void max_unpool(I &m) {
  const ValueRef x = m.in(0);
  const Shape sx = m.shape(x);
  const Constant &idx = m.need_const(1, "indices");
  if (idx.shape != sx)
    m.fail("indices " + idx.shape.str() + " must have X's shape " + sx.str());
  std::vector<int64_t> dims;
  if (m.has_input(2)) {
    dims = m.need_const(2, "output_shape").ints;
    if (static_cast<int>(dims.size()) != sx.rank())
      m.fail("output_shape holds " + std::to_string(dims.size()) +
             " dimensions for X " + sx.str());
  } else {
    const Ints kernel = m.attr_ints("kernel_shape").value_or(Ints{});
    const Ints strides = m.attr_ints("strides").value_or(Ints{});
    const Ints pads = m.attr_ints("pads").value_or(Ints{});
    try {
      dims = unpool_dims(sx, kernel, strides, pads);
    } catch (const Error &e) {
      m.fail(e.what());
    }
  }
  for (int64_t d : dims)
    if (d < 1)
      m.fail("the output " + Shape(dims).str() + " has an empty axis");
  const Shape out(dims);
  Ints positions;
  try {
    positions = unpool_positions(out.numel(), idx.ints);
  } catch (const Error &e) {
    m.fail(e.what());
  }
  const ValueRef zero = m.constant_weight(m.node().output(0) + "#zero",
                                          Tensor<float>(Shape{1}, 0.0f));
  m.set_output(0, scatter_flat(m, zero, out, x, positions, std::nullopt));
}

} // namespace

void add_scatter_handlers(std::map<std::string, Handler, std::less<>> &table) {
  table.emplace("ScatterElements", scatter_elements);
  table.emplace("Scatter", scatter_elements);
  table.emplace("ScatterND", scatter_nd);
  table.emplace("MaxUnpool", max_unpool);
}

} // namespace quarry::onnx_io
