//===- today_detectors.cc - Small detectors as exporters write them -------===//
//
// Two small detectors on a 128x128 image, their heads on one 16x16 level,
// their post-processing in the operators PyTorch's exporter writes for
// torchvision's RetinaNet and Faster R-CNN: a score threshold by NonZero,
// TopK of a count computed from a shape, box decoding against constant
// anchors, class-offset NonMaxSuppression, and (Faster R-CNN) RoiAlign over
// the kept proposals into a box head of linear layers. Their outputs'
// lengths depend on the values: what a detection model asks of a runtime.
//
//===----------------------------------------------------------------------===//
#include "today_net.h"

namespace quarry::bench {

namespace {

constexpr int64_t kSide = 16, kStride = 8, kImage = 128;

/// The anchors of the kSide x kSide grid, one square of each size per
/// cell centred on it, as (x1, y1, x2, y2) in the order (row, column,
/// anchor) torchvision's heads flatten them.
std::vector<float> grid_anchors(const std::vector<float> &sizes) {
  std::vector<float> a;
  for (int64_t y = 0; y < kSide; ++y)
    for (int64_t x = 0; x < kSide; ++x)
      for (float s : sizes) {
        const float cx = (static_cast<float>(x) + 0.5f) * kStride,
                    cy = (static_cast<float>(y) + 0.5f) * kStride;
        a.insert(a.end(), {cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2});
      }
  return a;
}

/// Three stride-2 convolutions with ReLU: [1,3,128,128] to [1,64,16,16].
std::string backbone(Net &n) {
  std::string x = n.op("Relu", {n.conv("input", 3, 16, 3, 2, 1)});
  x = n.op("Relu", {n.conv(x, 16, 32, 3, 2, 1)});
  return n.op("Relu", {n.conv(x, 32, 64, 3, 2, 1)});
}

/// A head's [1, A*K, H, W] as [1, H*W*A, K]: view, permute, reshape.
std::string per_anchor(Net &n, const std::string &x, int64_t a, int64_t k) {
  std::string y = n.reshape(x, {1, a, k, kSide, kSide});
  return n.reshape(n.transpose(y, {0, 3, 4, 1, 2}), {1, -1, k});
}

std::string gather(Net &n, const std::string &x, const std::string &at,
                   int64_t axis) {
  const std::string out = n.fresh("gather");
  set_int(n.node("Gather", {x, at}, out), "axis", axis);
  return out;
}

std::string slice(Net &n, const std::string &x, int64_t from, int64_t to,
                  int64_t axis) {
  return n.op("Slice", {x, n.ints({from}), n.ints({to}), n.ints({axis})});
}

/// torchvision's BoxCoder.decode_single, weights 1: deltas (dx, dy, dw,
/// dh) against boxes (x1, y1, x2, y2), dw and dh clamped at log(1000/16).
std::string decode(Net &n, const std::string &deltas,
                   const std::string &boxes) {
  const std::string wh =
      n.op("Sub", {slice(n, boxes, 2, 4, 1), slice(n, boxes, 0, 2, 1)});
  const std::string centre = n.op(
      "Add", {slice(n, boxes, 0, 2, 1), n.op("Mul", {wh, n.scalar(0.5f)})});
  const std::string c =
      n.op("Add", {n.op("Mul", {slice(n, deltas, 0, 2, 1), wh}), centre});
  const std::string dwh =
      n.op("Min", {slice(n, deltas, 2, 4, 1),
                   n.scalar(static_cast<float>(std::log(1000.0 / 16)))});
  const std::string half =
      n.op("Mul", {n.op("Mul", {n.op("Exp", {dwh}), wh}), n.scalar(0.5f)});
  const std::string box =
      n.concat({n.op("Sub", {c, half}), n.op("Add", {c, half})}, 1);
  return n.op("Clip",
              {box, n.scalar(0.0f), n.scalar(static_cast<float>(kImage))});
}

/// The scores over `threshold` (torch.where(scores > t)[0]), and of them
/// the `limit` best (det_utils._topk_min: TopK of min(limit, count), the
/// count read from the shape): (their scores, their indices in `scores`).
std::pair<std::string, std::string> best_over(Net &n, const std::string &scores,
                                              float threshold, int64_t limit) {
  const std::string keep =
      n.op("Squeeze",
           {n.op("NonZero", {n.op("Greater", {scores, n.scalar(threshold)})}),
            n.ints({0})});
  const std::string kept = gather(n, scores, keep, 0);
  const std::string k = n.fresh("k");
  auto &min = n.node(
      "ReduceMin", {n.concat({n.op("Shape", {kept}), n.ints({limit})}, 0)}, k);
  set_int(min, "keepdims", 1);
  const std::string top = n.fresh("top"), at = n.fresh("at");
  n.node("TopK", {kept, k}, top).add_output(at);
  return {top, gather(n, keep, at, 0)};
}

/// torchvision's batched_nms by the coordinate trick: each class's boxes
/// moved apart by (label * (largest coordinate + 1)), one
/// NonMaxSuppression over all; the kept positions, best first, at most
/// `limit`.
std::string batched_nms(Net &n, const std::string &boxes,
                        const std::string &scores, const std::string &labels,
                        int64_t limit) {
  const std::string largest = n.fresh("largest");
  set_int(n.node("ReduceMax", {boxes}, largest), "keepdims", 0);
  const std::string as_float = n.fresh("labels");
  set_int(n.node("Cast", {labels}, as_float), "to", onnx::TensorProto::FLOAT);
  const std::string offset =
      n.op("Mul", {as_float, n.op("Add", {largest, n.scalar(1.0f)})});
  const std::string moved =
      n.op("Add", {boxes, n.op("Unsqueeze", {offset, n.ints({1})})});
  const std::string selected =
      n.op("NonMaxSuppression", {n.op("Unsqueeze", {moved, n.ints({0})}),
                                 n.op("Unsqueeze", {scores, n.ints({0, 1})}),
                                 n.ints({1000}), n.constant({1}, {0.5f})});
  return slice(n, gather(n, selected, n.index(2), 1), 0, limit, 0);
}

} // namespace

void retinanet_s(const std::string &path) {
  Net n({1, 3, kImage, kImage});
  const int64_t a = 3, classes = 4;
  const std::string f = backbone(n);
  const std::string cls = n.conv(n.op("Relu", {n.conv(f, 64, 64, 3, 1, 1)}), 64,
                                 a * classes, 3, 1, 1);
  const std::string reg =
      n.conv(n.op("Relu", {n.conv(f, 64, 64, 3, 1, 1)}), 64, a * 4, 3, 1, 1);
  const std::string scores =
      n.reshape(n.op("Sigmoid", {per_anchor(n, cls, a, classes)}), {-1});
  const std::string deltas = n.reshape(per_anchor(n, reg, a, 4), {-1, 4});
  const auto [top, at] = best_over(n, scores, 0.05f, 1000);
  const std::string anchor = n.op("Div", {at, n.index(classes)});
  const std::string labels = n.op("Mod", {at, n.index(classes)});
  const std::string anchors =
      n.constant({kSide * kSide * a, 4}, grid_anchors({16, 24, 32}));
  const std::string boxes =
      decode(n, gather(n, deltas, anchor, 0), gather(n, anchors, anchor, 0));
  const std::string keep = batched_nms(n, boxes, top, labels, 300);
  n.write({{gather(n, boxes, keep, 0), "boxes", onnx::TensorProto::FLOAT},
           {gather(n, top, keep, 0), "scores", onnx::TensorProto::FLOAT},
           {gather(n, labels, keep, 0), "labels", onnx::TensorProto::INT64}},
          path);
}

void faster_rcnn_s(const std::string &path) {
  Net n({1, 3, kImage, kImage});
  const int64_t a = 3, classes = 5, hidden = 128;
  const std::string f = backbone(n);
  // The region proposal network: objectness and deltas per anchor.
  const std::string t = n.op("Relu", {n.conv(f, 64, 64, 3, 1, 1)});
  const std::string objectness = n.reshape(
      n.op("Sigmoid", {per_anchor(n, n.conv(t, 64, a, 1, 1, 0), a, 1)}), {-1});
  const std::string deltas =
      n.reshape(per_anchor(n, n.conv(t, 64, a * 4, 1, 1, 0), a, 4), {-1, 4});
  const auto [top, at] = best_over(n, objectness, 0.3f, 300);
  const std::string anchors =
      n.constant({kSide * kSide * a, 4}, grid_anchors({16, 32, 64}));
  const std::string proposals =
      decode(n, gather(n, deltas, at, 0), gather(n, anchors, at, 0));
  const std::string one_class =
      n.op("ConstantOfShape", {slice(n, n.op("Shape", {top}), 0, 1, 0)});
  const std::string rois =
      gather(n, proposals, batched_nms(n, proposals, top, one_class, 100), 0);
  // Every roi is of image 0 (int64 zeros, one per roi).
  const std::string batch = n.fresh("batch");
  auto &zeros = n.node("ConstantOfShape",
                       {slice(n, n.op("Shape", {rois}), 0, 1, 0)}, batch);
  auto *value = zeros.add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto::INT64);
  value->mutable_t()->add_dims(1);
  value->mutable_t()->add_int64_data(0);
  // The box head: RoiAlign (aligned=False), two linear layers.
  const std::string pooled = n.fresh("pooled");
  auto &align = n.node("RoiAlign", {f, rois, batch}, pooled);
  set_int(align, "output_height", 7);
  set_int(align, "output_width", 7);
  set_int(align, "sampling_ratio", 2);
  set_float(align, "spatial_scale", 1.0f / kStride);
  auto *mode = align.add_attribute();
  mode->set_name("coordinate_transformation_mode");
  mode->set_type(onnx::AttributeProto::STRING);
  mode->set_s("output_half_pixel");
  const std::string flat = n.fresh("flatten");
  set_int(n.node("Flatten", {pooled}, flat), "axis", 1);
  std::string h = n.op("Relu", {n.gemm(flat, 64 * 7 * 7, hidden)});
  h = n.op("Relu", {n.gemm(h, hidden, hidden)});
  const std::string scores = n.fresh("softmax");
  set_int(n.node("Softmax", {n.gemm(h, hidden, classes)}, scores), "axis", -1);
  const std::string boxes = decode(n, n.gemm(h, hidden, 4), rois);
  n.write({{boxes, "boxes", onnx::TensorProto::FLOAT},
           {scores, "scores", onnx::TensorProto::FLOAT}},
          path);
}

} // namespace quarry::bench
