//===- result_json.h - One rule's result as JSON --------------*- C++ -*-===//
//
// The form a RuleResult takes in a verification report and in the proof
// cache, so that both read and write it alike.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/hash.h"
#include "quarry/core/json_field.h"
#include "quarry/verify/verifier.h"

#include <nlohmann/json.hpp>

#include <string>

namespace quarry::verify {

nlohmann::json result_json(const RuleResult &r);
/// Throws quarry::Error naming the file and field on a malformed entry.
RuleResult result_from_json(const JsonField &f);

} // namespace quarry::verify
