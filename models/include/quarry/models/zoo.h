//===- zoo.h - The networks TASO is evaluated on ----------------*- C++ -*-===//
//
// ResNet-50, ResNeXt-50, NASNet-A, NasRNN, BERT and Inception-v3, built with
// the shapes of TASO's examples (models/MODELS.md says where quarry differs).
// The batch size and the input extent are parameters so tests can evaluate
// every network at a small size; weights are seeded random values.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/model.h"

#include <span>
#include <string_view>

namespace quarry {

struct ModelOptions {
  int64_t batch = 1;
  /// Image height/width for the convolutional networks, sequence length for
  /// BERT, number of steps for NasRNN; 0 takes the network's own.
  int64_t size = 0;
  uint64_t seed = 1;
  /// false: build the structure only, with an empty weight table (fast).
  bool weight_values = true;
};

struct ModelInfo {
  std::string_view name;
  std::string_view description;
  int64_t default_size;
  /// The smallest size the network accepts.
  int64_t min_size;
  Model (*build)(const ModelOptions &);
};

/// Every network, in a fixed order.
std::span<const ModelInfo> model_list();

/// Builds the network called `name`; throws quarry::Error naming the known
/// networks when there is none, or when the options are out of range.
Model build_model(std::string_view name, const ModelOptions &opts = {});

// One builder per network (models/src/<name>.cc); `opts.size` is already
// resolved (never 0).
Model build_resnet50(const ModelOptions &opts);
Model build_resnext50(const ModelOptions &opts);
Model build_nasnet_a(const ModelOptions &opts);
Model build_nasrnn(const ModelOptions &opts);
Model build_bert(const ModelOptions &opts);
Model build_inception_v3(const ModelOptions &opts);

} // namespace quarry
