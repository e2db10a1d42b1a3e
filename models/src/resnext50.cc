//===- resnext50.cc - ResNeXt-50 (32x4d) as TASO's example builds it ------===//
//
// A 7x7/2 stem and 3x3/2 max pool on [B,3,size,size], then ResNet-50's four
// stages with widths 128..1024, 32-group 3x3 convolutions and expansion 2.
//
//===----------------------------------------------------------------------===//
#include "quarry/models/builder.h"
#include "quarry/models/zoo.h"

namespace quarry {

ValueRef bottleneck_stages(NetBuilder &b, ValueRef x, int64_t base,
                           int64_t expansion, int64_t groups);

Model build_resnext50(const ModelOptions &o) {
  NetBuilder b(o.seed, o.weight_values);
  ValueRef x = b.input("x", Shape{o.batch, 3, o.size, o.size});
  x = b.conv(x, 64, {7, 7}, {2, 2}, Padding::Same, Activation::Relu);
  x = b.pool(OpKind::Pool2DMax, x, {3, 3}, {2, 2});
  return b.finish(bottleneck_stages(b, x, 128, 2, 32));
}

} // namespace quarry
