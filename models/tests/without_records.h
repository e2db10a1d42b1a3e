//===- without_records.h - A model exported in quarry's forms --*- C++ -*-===//
#pragma once

#include "quarry/core/model.h"

#include <onnx/onnx_pb.h>

namespace quarry::testing {

/// `m` without import's records of the nodes export writes back as the
/// model had them (`quarry_restorable`, models/src/onnx_restorable.h):
/// export then writes every operator in quarry's forms, as it writes the
/// operators a rewrite made.
inline Model without_records(Model m) {
  onnx::ModelProto kept;
  kept.ParseFromString(m.kept_onnx);
  auto *fs = kept.mutable_functions();
  for (int i = fs->size() - 1; i >= 0; --i)
    if (fs->Get(i).name() == "quarry_restorable")
      fs->DeleteSubrange(i, 1);
  kept.SerializeToString(&m.kept_onnx);
  return m;
}

} // namespace quarry::testing
