//===- tensor_hash.h - Hashing exact tensors -------------------*- C++ -*-===//
#pragma once

#include "quarry/field/prime_field.h"

#include <span>

namespace quarry {

/// A stable 64-bit hash of a field tensor's shape and values.
uint64_t hash_tensor(const Tensor<Fp> &t);

/// A stable 64-bit hash of several outputs, in order.
uint64_t hash_tensors(std::span<const Tensor<Fp>> ts);

} // namespace quarry
