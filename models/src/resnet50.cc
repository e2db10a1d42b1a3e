//===- resnet50.cc - ResNet-50 as TASO's example builds it ----------------===//
//
// Four stages of bottleneck blocks (3, 4, 6, 3) on a [B,64,size,size] input
// (TASO starts after the stem): 1x1 -> 3x3 (strided) -> 1x1 convolutions
// with fused relu, a strided 1x1 shortcut where the shape changes, then
// relu(ewadd(shortcut, block)).
//
//===----------------------------------------------------------------------===//
#include "quarry/models/builder.h"
#include "quarry/models/zoo.h"

namespace quarry {

namespace {
ValueRef bottleneck(NetBuilder &b, ValueRef x, int64_t s, int64_t channels,
                    int64_t expansion, int64_t groups) {
  ValueRef t =
      b.conv(x, channels, {1, 1}, {1, 1}, Padding::Same, Activation::Relu);
  t = b.conv(t, channels, {3, 3}, {s, s}, Padding::Same, Activation::Relu,
             groups);
  t = b.conv(t, expansion * channels, {1, 1});
  if (s > 1 || b.shape(x)[1] != expansion * channels)
    x = b.conv(x, expansion * channels, {1, 1}, {s, s}, Padding::Same,
               Activation::Relu);
  return b.op(OpKind::Relu, {b.op(OpKind::EwAdd, {x, t})});
}
} // namespace

/// The four stages shared by ResNet-50 and ResNeXt-50.
ValueRef bottleneck_stages(NetBuilder &b, ValueRef x, int64_t base,
                           int64_t expansion, int64_t groups) {
  const int blocks[] = {3, 4, 6, 3};
  for (int stage = 0; stage < 4; ++stage)
    for (int i = 0; i < blocks[stage]; ++i)
      x = bottleneck(b, x, stage > 0 && i == 0 ? 2 : 1, base << stage,
                     expansion, groups);
  return x;
}

Model build_resnet50(const ModelOptions &o) {
  NetBuilder b(o.seed, o.weight_values);
  ValueRef x = b.input("x", Shape{o.batch, 64, o.size, o.size});
  return b.finish(bottleneck_stages(b, x, 64, 4, 1));
}

} // namespace quarry
