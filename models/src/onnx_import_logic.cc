//===- onnx_import_logic.cc - Comparisons, logic and Where ----------------===//
//
// ONNX's booleans are float32 0 and 1 in quarry's graph: a comparison is
// broadcast[eq|ne|lt|le|gt|ge], Not, And, Or and Xor are arithmetic on 0
// and 1, a Cast to BOOL is x != 0, IsNaN is x != x, and Where is
// where(c, x, y). The
// importer remembers which values ONNX types as bool (Importer::is_bool):
// export casts a model output back to its declared type, and a kept node
// reading one reads it cast to BOOL.
//
//===----------------------------------------------------------------------===//
#include "onnx_importer.h"

namespace quarry::onnx_io {

namespace {

using I = Importer;
using ops::BroadcastFn;

/// A comparison of two operands (broadcast), a bool.
Handler compare(BroadcastFn fn) {
  return [fn](I &m) {
    m.set_output(0, binary(m, fn, m.in(0), m.in(1)));
    m.set_bool_output(0);
  };
}

/// Operands and result are bools held as 0 and 1.
Handler logic(BroadcastFn fn) {
  return [fn](I &m) {
    for (int i = 0; i < m.num_inputs(); ++i)
      if (!m.is_bool(i))
        m.fail("operand " + std::to_string(i) + " is not a bool");
    m.set_output(0, binary(m, fn, m.in(0), m.in(1)));
    m.set_bool_output(0);
  };
}

void logical_not(I &m) {
  if (!m.is_bool(0))
    m.fail("its operand is not a bool");
  const ValueRef zero = m.constant_weight("zero", Tensor<float>(Shape{}, 0.0f));
  m.set_output(0, binary(m, BroadcastFn::Eq, m.in(0), zero));
  m.set_bool_output(0);
}

/// IsNaN(x) is x != x, which holds for NaN alone.
void is_nan(I &m) {
  m.set_output(0, binary(m, BroadcastFn::Ne, m.in(0), m.in(0)));
  m.set_bool_output(0);
}

void where(I &m) {
  if (!m.is_bool(0))
    m.fail("its condition is not a bool");
  m.set_output(0, m.add(OpKind::Where, {m.in(0), m.in(1), m.in(2)}));
  if (m.is_bool(1))
    m.set_bool_output(0);
}

} // namespace

void add_logic_handlers(std::map<std::string, Handler, std::less<>> &table) {
  table["Equal"] = compare(BroadcastFn::Eq);
  table["Less"] = compare(BroadcastFn::Lt);
  table["LessOrEqual"] = compare(BroadcastFn::Le);
  table["Greater"] = compare(BroadcastFn::Gt);
  table["GreaterOrEqual"] = compare(BroadcastFn::Ge);
  // On 0 and 1: and is the product, or the larger, xor the inequality.
  table["And"] = logic(BroadcastFn::Mul);
  table["Or"] = logic(BroadcastFn::Max);
  table["Xor"] = logic(BroadcastFn::Ne);
  table["Not"] = logical_not;
  table["IsNaN"] = is_nan;
  table["Where"] = where;
}

} // namespace quarry::onnx_io
