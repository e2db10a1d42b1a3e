//===- onnx_constants.cc - The constants import knows by name -------------===//
#include "onnx_constants.h"

#include "quarry/core/error.h"

#include <stdexcept>

namespace quarry::onnx_io {

void ConstantTable::add_unread(const onnx::TensorProto &t) {
  check_value_count(t);
  decoded_.erase(t.name());
  initializers_[t.name()] = &t;
}

void ConstantTable::set(const std::string &name, Constant c) {
  initializers_.erase(name);
  decoded_[name] = std::move(c);
}

void ConstantTable::erase(const std::string &name) {
  initializers_.erase(name);
  decoded_.erase(name);
}

bool ConstantTable::contains(const std::string &name) const {
  return decoded_.count(name) > 0 || initializers_.count(name) > 0;
}

const Constant *ConstantTable::find(const std::string &name) const {
  if (auto d = decoded_.find(name); d != decoded_.end())
    return &d->second;
  const onnx::TensorProto *t = initializer(name);
  if (!t)
    return nullptr;
  return &decoded_.emplace(name, decode_tensor(*t)).first->second;
}

const Constant &ConstantTable::at(const std::string &name) const {
  if (const Constant *c = find(name))
    return *c;
  throw std::out_of_range("no constant '" + name + "'");
}

Tensor<float> ConstantTable::as_float(const std::string &name) const {
  if (const onnx::TensorProto *t = initializer(name);
      t && !decoded_.count(name))
    return decode_float(*t);
  return at(name).as_float();
}

int32_t ConstantTable::elem(const std::string &name) const {
  if (const onnx::TensorProto *t = initializer(name))
    return t->data_type();
  return at(name).elem;
}

const onnx::TensorProto *
ConstantTable::initializer(const std::string &name) const {
  auto i = initializers_.find(name);
  return i == initializers_.end() ? nullptr : i->second;
}

} // namespace quarry::onnx_io
