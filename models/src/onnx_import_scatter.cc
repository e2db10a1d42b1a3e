//===- onnx_import_scatter.cc - Scatters at constant indices --------------===//
//
// ScatterElements, ScatterND and Scatter write the updates into a copy of
// the data at positions the indices give. With the indices constant, every
// written position is known: the updates are gathered to their places
// (Gather of the flattened updates, slices of consecutive runs), and a
// constant mask takes them there and the data elsewhere (where). Later
// updates of one position win, as ONNX Runtime applies them in order;
// reductions other than none are not supported.
//
//===----------------------------------------------------------------------===//
#include "onnx_importer.h"

namespace quarry::onnx_io {

namespace {

using I = Importer;
using Ints = std::vector<int64_t>;

/// The most separate runs of consecutive updates a scatter may write.
constexpr int64_t kMostRuns = 4096;

/// `data` with its element at flat position `positions[k]` replaced by the
/// element k of `updates` (both flattened in row-major order).
ValueRef scatter_flat(I &m, ValueRef data, ValueRef updates,
                      const Ints &positions) {
  const Shape sd = m.shape(data);
  const int64_t n = sd.numel(), u = static_cast<int64_t>(positions.size());
  if (u == 0)
    return data;
  Ints source(static_cast<size_t>(n), -1);
  for (int64_t k = 0; k < u; ++k)
    source[static_cast<size_t>(positions[k])] = k;
  Tensor<float> mask(sd, 0.0f);
  int64_t runs = 0;
  for (int64_t p = 0; p < n; ++p) {
    const int64_t prev = p > 0 ? source[static_cast<size_t>(p - 1)] : -1;
    if (source[p] < 0) // not written: whatever keeps the run going
      source[p] = prev + 1 < u ? prev + 1 : std::max<int64_t>(prev, 0);
    else
      mask[p] = 1.0f;
    runs += p == 0 || source[p] != prev + 1;
  }
  if (runs > kMostRuns)
    m.fail("its updates go to " + std::to_string(runs) +
           " separate runs of the data, more than " +
           std::to_string(kMostRuns));
  const std::string base = m.node().output(0) + "#scatter";
  m.define(base + "updates", reshape_to(m, updates, {u}));
  Constant at;
  at.elem = onnx::TensorProto::INT64;
  at.shape = Shape{n};
  at.ints = source;
  at.reals.assign(source.begin(), source.end());
  m.define_const(base + "at", std::move(at));
  const ValueRef placed = reshape_to(
      m,
      run_node(m, "Gather", {base + "updates", base + "at"}, base + "placed"),
      sd.dims);
  return m.add(
      OpKind::Where,
      {m.constant_weight(base + "mask", std::move(mask)), placed, data});
}

void no_reduction(I &m) {
  const std::string r = m.attr_string("reduction", "none");
  if (r != "none")
    m.fail("reduction '" + r + "' is not supported (none is)");
}

/// ScatterElements (and Scatter before opset 11): updates[i] goes where
/// data's coordinate along `axis` is indices[i], the others i's own.
void scatter_elements(I &m) {
  no_reduction(m);
  const ValueRef data = m.in(0), updates = m.in(2);
  const Shape sd = m.shape(data), su = m.shape(updates);
  const Constant &idx = m.need_const(1, "indices");
  if (idx.shape != su || su.rank() != sd.rank())
    m.fail("indices " + idx.shape.str() + " and updates " + su.str() +
           " must have one shape, of data's rank " + std::to_string(sd.rank()));
  const int axis = m.axis(m.attr_int("axis", 0), sd.rank());
  const auto strides = sd.strides();
  Ints coord(static_cast<size_t>(su.rank()), 0), positions;
  for (int64_t k = 0; k < su.numel(); ++k) {
    int64_t flat = 0;
    for (int d = 0; d < su.rank(); ++d) {
      int64_t c = coord[static_cast<size_t>(d)];
      if (d == axis) {
        c = idx.ints[static_cast<size_t>(k)];
        if (c < -sd[d] || c >= sd[d])
          m.fail("index " + std::to_string(c) + " out of range for axis " +
                 std::to_string(d) + " of " + sd.str());
        c = c < 0 ? c + sd[d] : c;
      } else if (c >= sd[d]) {
        m.fail("updates " + su.str() + " exceed data " + sd.str());
      }
      flat += c * strides[static_cast<size_t>(d)];
    }
    positions.push_back(flat);
    for (int d = su.rank() - 1; d >= 0; --d) {
      if (++coord[static_cast<size_t>(d)] < su[d])
        break;
      coord[static_cast<size_t>(d)] = 0;
    }
  }
  m.set_output(0, scatter_flat(m, data, updates, positions));
}

/// ScatterND: each index tuple (indices' last axis, q values) picks a slice
/// data[t..., :] that the matching updates slice replaces.
void scatter_nd(I &m) {
  no_reduction(m);
  const ValueRef data = m.in(0), updates = m.in(2);
  const Shape sd = m.shape(data), su = m.shape(updates);
  const Constant &idx = m.need_const(1, "indices");
  const int ir = idx.shape.rank();
  if (ir < 1)
    m.fail("indices must have at least one axis");
  const int64_t q = idx.shape[ir - 1];
  if (q < 1 || q > sd.rank())
    m.fail("index tuples of " + std::to_string(q) + " values for data " +
           sd.str());
  int64_t inner = 1;
  for (int d = static_cast<int>(q); d < sd.rank(); ++d)
    inner *= sd[d];
  const int64_t tuples = idx.shape.numel() / q;
  if (su.numel() != tuples * inner)
    m.fail("updates " + su.str() + " hold " + std::to_string(su.numel()) +
           " values for " + std::to_string(tuples) + " slices of " +
           std::to_string(inner));
  const auto strides = sd.strides();
  Ints positions;
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t base = 0;
    for (int64_t j = 0; j < q; ++j) {
      int64_t c = idx.ints[static_cast<size_t>(t * q + j)];
      const int64_t extent = sd[static_cast<int>(j)];
      if (c < -extent || c >= extent)
        m.fail("index " + std::to_string(c) + " out of range for axis " +
               std::to_string(j) + " of " + sd.str());
      base += (c < 0 ? c + extent : c) * strides[static_cast<size_t>(j)];
    }
    for (int64_t o = 0; o < inner; ++o)
      positions.push_back(base + o);
  }
  m.set_output(0, scatter_flat(m, data, updates, positions));
}

} // namespace

void add_scatter_handlers(std::map<std::string, Handler, std::less<>> &table) {
  table.emplace("ScatterElements", scatter_elements);
  table.emplace("Scatter", scatter_elements);
  table.emplace("ScatterND", scatter_nd);
}

} // namespace quarry::onnx_io
