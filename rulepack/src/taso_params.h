//===- taso_params.h - TASO operator types and parameters -----*- C++ -*-===//
//
// Private to the rules library: the translation of one TASO operator (its
// type number and PMParameter key/value list) into a quarry operator and
// attributes. The mapping is documented in quarry/rulepack/taso_import.h.
// Errors are quarry::Errors without position; the caller adds the file, rule
// and operator.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/graph.h"
#include "taso_rules.pb.h"

namespace quarry::taso {

using ParamList = google::protobuf::RepeatedPtrField<GraphSubst::Parameter>;

/// The quarry operator for TASO operator type `type`.
OpKind op_kind(int type);

/// Attributes for `kind` from TASO's parameters of an operator with
/// `num_operands` operands; rejects keys that are unknown or do not apply.
Attrs convert_params(OpKind kind, const ParamList &params, int num_operands);

} // namespace quarry::taso
