//===- zoo.cc - The list of networks --------------------------------------===//
#include "quarry/models/zoo.h"

namespace quarry {

std::span<const ModelInfo> model_list() {
  static const ModelInfo list[] = {
      {"resnet50", "ResNet-50 bottleneck stages, input [B,64,56,56]", 56, 1,
       build_resnet50},
      {"resnext50", "ResNeXt-50 (32 groups), input [B,3,224,224]", 224, 32,
       build_resnext50},
      {"nasnet_a", "NASNet-A normal/reduction cells, input [B,128,56,56]", 56,
       1, build_nasnet_a},
      {"nasrnn", "NasRNN cell unrolled over 5 steps, hidden 512", 5, 1,
       build_nasrnn},
      {"bert", "8 BERT attention layers, 16 heads, hidden 1024, seq 64", 64, 1,
       build_bert},
      {"inception_v3", "Inception-v3, input [B,3,299,299]", 299, 75,
       build_inception_v3},
  };
  return list;
}

Model build_model(std::string_view name, const ModelOptions &opts) {
  for (const ModelInfo &m : model_list()) {
    if (m.name != name)
      continue;
    ModelOptions o = opts;
    if (o.size == 0)
      o.size = m.default_size;
    if (o.batch < 1)
      throw Error("models: batch must be positive, got " +
                  std::to_string(o.batch));
    if (o.size < m.min_size)
      throw Error("models: " + std::string(name) +
                  " needs size >= " + std::to_string(m.min_size) + ", got " +
                  std::to_string(o.size));
    return m.build(o);
  }
  std::string known;
  for (const ModelInfo &m : model_list())
    known += (known.empty() ? "" : ", ") + std::string(m.name);
  throw Error("models: unknown network '" + std::string(name) +
              "' (known: " + known + ")");
}

} // namespace quarry
