//===- onnx_interface.h - An imported model's interface, restored -*- C++
//-*-===//
//
// Export names what it writes by quarry's names; these give the written
// model the interface the imported one declared (Model::kept_onnx,
// onnx_kept.h), so that it can replace it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <set>
#include <string>
#include <string_view>

namespace quarry::onnx_io {

/// The serialized model `bytes`; throws quarry::Error naming it as the
/// `which` model ("A", "original") where it is no ONNX model.
onnx::ModelProto parse_model(std::string_view bytes, const char *which);

/// Gives `model` (written from a graph whose kept parts are `kept`, with
/// `prefix` before the names of quarry's values that kept nodes would
/// clash with) the imported model's metadata, and each graph input and
/// output the name it had where quarry named it otherwise. A value of
/// quarry's that holds a name the interface needs is renamed out of its
/// way; a name a subgraph reads from the main graph is not moved. An
/// output that is also a graph input or another output becomes an
/// Identity of it.
void restore_interface(onnx::ModelProto &model, const onnx::ModelProto &kept,
                       const std::string &prefix);

/// Renames each value of `g` named by a key of `values` to its value there
/// (an intermediate or initializer the imported model named), and gives
/// the node computing a renamed value the name `nodes` has for it, where
/// the name is free: nothing else in `g` holds it, no other rename takes
/// it, and no subgraph reads the value by its old name. A name of
/// `derived` (name -> base, suffix: what export added to write its base)
/// follows its base: renamed base + suffix, where that is free.
void restore_names(
    onnx::GraphProto &g, const std::map<std::string, std::string> &values,
    const std::map<std::string, std::string> &nodes,
    const std::map<std::string, std::pair<std::string, std::string>> &derived =
        {});

/// Drops each Identity of `g` whose output is among `naming` (one export
/// added only so that a kept node or subgraph finds a value under the
/// name it reads it by): the value it copies takes that name instead,
/// where a node of `g` computes that value (no graph input or
/// initializer), it is no graph output, and no subgraph reads it by its
/// own name. Returns how many were dropped.
int elide_naming_identities(onnx::GraphProto &g,
                            const std::set<std::string> &naming);

} // namespace quarry::onnx_io
