//===- result_json.h - One rule's result as JSON --------------*- C++ -*-===//
//-*-===//
//
// The form a RuleResult takes in a verification report and in the proof
// cache, so that both read and write it alike.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/verify/verifier.h"

#include <nlohmann/json.hpp>

#include <string>

namespace quarry::verify {

/// 16 lower-case hexadecimal digits.
std::string hash_hex(uint64_t v);
/// The inverse of hash_hex; throws quarry::Error naming `what`.
uint64_t hash_from_hex(const std::string &text, const std::string &what);

nlohmann::json result_json(const RuleResult &r);
/// Throws quarry::Error or nlohmann::json::exception on a malformed entry.
RuleResult result_from_json(const nlohmann::json &j);

} // namespace quarry::verify
