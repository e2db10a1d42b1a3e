//===- onnx_constants.cc - The constants import knows by name -------------===//
#include "onnx_constants.h"

#include "quarry/core/error.h"

#include <stdexcept>

namespace quarry::onnx_io {

void ConstantTable::add_unread(const onnx::TensorProto &t) {
  check_value_count(t);
  decoded_.erase(t.name());
  unread_[t.name()] = &t;
  initializers_[t.name()] = &t;
}

void ConstantTable::set(const std::string &name, Constant c) {
  unread_.erase(name);
  initializers_.erase(name);
  decoded_[name] = std::move(c);
}

void ConstantTable::erase(const std::string &name) {
  unread_.erase(name);
  initializers_.erase(name);
  decoded_.erase(name);
}

bool ConstantTable::contains(const std::string &name) const {
  return decoded_.count(name) > 0 || unread_.count(name) > 0;
}

const Constant *ConstantTable::find(const std::string &name) const {
  if (auto d = decoded_.find(name); d != decoded_.end())
    return &d->second;
  auto u = unread_.find(name);
  if (u == unread_.end())
    return nullptr;
  Constant c = decode_tensor(*u->second);
  unread_.erase(u);
  return &decoded_.emplace(name, std::move(c)).first->second;
}

const Constant &ConstantTable::at(const std::string &name) const {
  if (const Constant *c = find(name))
    return *c;
  throw std::out_of_range("no constant '" + name + "'");
}

Tensor<float> ConstantTable::as_float(const std::string &name) const {
  if (auto u = unread_.find(name); u != unread_.end())
    return decode_float(*u->second);
  return at(name).as_float();
}

int32_t ConstantTable::elem(const std::string &name) const {
  if (auto u = unread_.find(name); u != unread_.end())
    return u->second->data_type();
  return at(name).elem;
}

const onnx::TensorProto *
ConstantTable::initializer(const std::string &name) const {
  auto i = initializers_.find(name);
  return i == initializers_.end() ? nullptr : i->second;
}

} // namespace quarry::onnx_io
