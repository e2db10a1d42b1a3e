//===- onnx_builder.h - Writing small ONNX models in tests ------*- C++ -*-===//
#pragma once

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace quarry::testing {

using Ints = std::vector<int64_t>;

/// Builds a one-graph ONNX model through the protobuf API.
class OnnxModel {
public:
  explicit OnnxModel(int64_t opset = 13) {
    m_.set_ir_version(7);
    auto *op = m_.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    m_.mutable_graph()->set_name("test");
  }
  OnnxModel &input(const std::string &name, const Ints &shape,
                   int32_t elem = onnx::TensorProto::FLOAT) {
    value(m_.mutable_graph()->add_input(), name, shape, elem);
    return *this;
  }
  OnnxModel &output(const std::string &name) {
    auto *o = m_.mutable_graph()->add_output();
    o->set_name(name);
    o->mutable_type()->mutable_tensor_type()->set_elem_type(
        onnx::TensorProto::FLOAT);
    return *this;
  }
  OnnxModel &floats(const std::string &name, const Ints &shape,
                    const std::vector<float> &v) {
    auto *t = m_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : shape)
      t->add_dims(d);
    for (float x : v)
      t->add_float_data(x);
    return *this;
  }
  OnnxModel &ints(const std::string &name, const Ints &v) {
    return ints(name, Ints{static_cast<int64_t>(v.size())}, v);
  }
  /// An int64 initializer of `shape`.
  OnnxModel &ints(const std::string &name, const Ints &shape, const Ints &v) {
    auto *t = m_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    for (int64_t d : shape)
      t->add_dims(d);
    for (int64_t x : v)
      t->add_int64_data(x);
    return *this;
  }
  onnx::NodeProto &node(const std::string &type,
                        const std::vector<std::string> &in,
                        const std::vector<std::string> &out) {
    auto *n = m_.mutable_graph()->add_node();
    n->set_op_type(type);
    n->set_name(type + "_" + out.at(0));
    for (const auto &i : in)
      n->add_input(i);
    for (const auto &o : out)
      n->add_output(o);
    return *n;
  }
  std::string bytes() const { return m_.SerializeAsString(); }
  onnx::ModelProto &proto() { return m_; }

  static void value(onnx::ValueInfoProto *v, const std::string &name,
                    const Ints &shape,
                    int32_t elem = onnx::TensorProto::FLOAT) {
    v->set_name(name);
    auto *t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem);
    t->mutable_shape(); // a scalar has a shape without dimensions
    for (int64_t d : shape) {
      auto *dim = t->mutable_shape()->add_dim();
      if (d > 0)
        dim->set_dim_value(d);
      else
        dim->set_dim_param("N");
    }
  }

private:
  onnx::ModelProto m_;
};

/// Gives If node `n` its branch `attr` (then_branch or else_branch): one
/// `op` node reading `input` from the enclosing graph, its output named
/// `out` (`attr`_out by default: names an If's branches compute must
/// differ across the model) and declared of `shape`.
inline void add_branch(onnx::NodeProto &n, const std::string &attr,
                       const std::string &op, const std::string &input,
                       const Ints &shape, std::string out = "") {
  if (out.empty())
    out = attr + "_out";
  auto *a = n.add_attribute();
  a->set_name(attr);
  a->set_type(onnx::AttributeProto::GRAPH);
  onnx::GraphProto *g = a->mutable_g();
  g->set_name(attr);
  auto *inner = g->add_node();
  inner->set_op_type(op);
  inner->add_input(input);
  inner->add_output(out);
  OnnxModel::value(g->add_output(), out, shape);
}

inline void set_int(onnx::NodeProto &n, const char *name, int64_t v) {
  auto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
inline void set_float(onnx::NodeProto &n, const char *name, float v) {
  auto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}
inline void set_ints(onnx::NodeProto &n, const char *name, const Ints &v) {
  auto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v)
    a->add_ints(x);
}
inline void set_string(onnx::NodeProto &n, const char *name,
                       const std::string &v) {
  auto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

} // namespace quarry::testing
