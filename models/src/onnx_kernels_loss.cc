//===- onnx_kernels_loss.cc - Classification losses -----------------------===//
//
// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, the losses of
// exported training graphs: both pick, for each sample (and each position
// of its extra axes), minus the log-probability its integer target names,
// weighted per class where a weight is given and left out where the target
// is ignore_index, then keep, sum or average them (reduction). Softmax
// cross entropy is the same loss of the scores' log-softmax over axis 1,
// which it can also return. Sums are taken in double and rounded once to
// the input's element type; a mean divides by the summed weights of the
// targets counted (by their count without weights), as ONNX's reference
// does.
//
//===----------------------------------------------------------------------===//
#include "onnx_kernels_impl.h"
#include "onnx_tensor.h"

#include "quarry/core/error.h"

#include <cmath>
#include <optional>
#include <string>

namespace quarry::onnx_io::kernels {

namespace {

/// What both losses read besides the (log-)probabilities.
struct LossOperands {
  const HeldValue *target = nullptr;
  const HeldValue *weight = nullptr;
  std::string reduction;
  std::optional<int64_t> ignore_index;
};

LossOperands loss_operands(const onnx::NodeProto &n, const Inputs &in,
                           const char *target_name) {
  check_input_count(in, 3);
  LossOperands o;
  o.target = &required_input(in, 1, target_name);
  o.weight = optional_input(in, 2);
  o.reduction = string_attr(n, "reduction", "mean");
  if (o.reduction != "none" && o.reduction != "sum" && o.reduction != "mean")
    throw Error("reduction '" + o.reduction +
                "' is none of 'none', 'sum' and 'mean'");
  for (const auto &a : n.attribute())
    if (a.name() == "ignore_index")
      o.ignore_index = a.i();
  return o;
}

/// The loss of log-probabilities `logp` ([N, C, d1, ..., dk]) for the
/// operands `o`, in `elem`: [N, d1, ..., dk] unreduced, else a scalar.
HeldValue nll(const Tensor<float> &logp, const LossOperands &o, int32_t elem,
              const char *input_name, const char *target_name) {
  const Shape &x = logp.shape;
  if (x.rank() < 2)
    throw Error(std::string(input_name) + " of " + x.str() +
                " has no class axis: it needs rank 2 or more");
  const Tensor<float> &t = o.target->value;
  std::vector<int64_t> want{x[0]};
  for (int d = 2; d < x.rank(); ++d)
    want.push_back(x[d]);
  if (t.shape.dims != want)
    throw Error(std::string(target_name) + " of " + t.shape.str() +
                " does not match " + input_name + " of " + x.str() +
                " (it needs " + Shape(want).str() + ")");
  const int64_t classes = x[1];
  if (o.weight && o.weight->value.shape.dims != std::vector<int64_t>{classes})
    throw Error("weight of " + o.weight->value.shape.str() + " is not [" +
                std::to_string(classes) + "], one per class");
  const int64_t samples = x[0];
  const int64_t inner = span_elements(x, 2, x.rank());
  std::vector<float> loss(static_cast<size_t>(t.numel()), 0.0f);
  double sum = 0, weights = 0;
  for (int64_t s = 0; s < samples; ++s)
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t at = s * inner + i;
      const int64_t c = saturate_int(t.data[at]);
      if (o.ignore_index && c == *o.ignore_index)
        continue;
      if (c < 0 || c >= classes)
        throw Error(std::string(target_name) + " holds " + std::to_string(c) +
                    ", not a class of 0 to " + std::to_string(classes - 1) +
                    (o.ignore_index ? " nor ignore_index " +
                                          std::to_string(*o.ignore_index)
                                    : std::string()));
      const double w = o.weight ? o.weight->value.data[c] : 1.0;
      const double l = -w * logp.data[(s * classes + c) * inner + i];
      loss[at] = round_to(elem, static_cast<float>(l));
      sum += l;
      weights += w;
    }
  if (o.reduction == "none")
    return make_value(t.shape, std::move(loss), elem);
  // Without weights or ignore_index, ONNX's mean counts every position.
  const double count =
      o.weight || o.ignore_index ? weights : static_cast<double>(loss.size());
  const double r = o.reduction == "sum" ? sum : sum / count;
  return make_value(Shape{}, {round_to(elem, static_cast<float>(r))}, elem);
}

} // namespace

std::vector<HeldValue> negative_log_likelihood_loss(const onnx::NodeProto &n,
                                                    const Inputs &in) {
  const HeldValue &x = required_input(in, 0, "input");
  const LossOperands o = loss_operands(n, in, "target");
  return {nll(x.value, o, x.elem, "input", "target")};
}

std::vector<HeldValue> softmax_cross_entropy_loss(const onnx::NodeProto &n,
                                                  const Inputs &in) {
  const HeldValue &scores = required_input(in, 0, "scores");
  const LossOperands o = loss_operands(n, in, "labels");
  const Shape &x = scores.value.shape;
  if (x.rank() < 2)
    throw Error("scores of " + x.str() +
                " has no class axis: it needs rank 2 or more");
  // log_softmax over axis 1, in double: x - max - log(sum(exp(x - max))).
  const int64_t classes = x[1];
  const int64_t inner = span_elements(x, 2, x.rank());
  Tensor<float> logp(x, 0.0f);
  for (int64_t s = 0; s < x[0]; ++s)
    for (int64_t i = 0; i < inner; ++i) {
      const float *p = scores.value.data.data() + s * classes * inner + i;
      double top = -INFINITY;
      for (int64_t c = 0; c < classes; ++c)
        top = std::fmax(top, p[c * inner]);
      double total = 0;
      for (int64_t c = 0; c < classes; ++c)
        total += std::exp(p[c * inner] - top);
      const double log_total = std::log(total);
      for (int64_t c = 0; c < classes; ++c)
        logp.data[(s * classes + c) * inner + i] = round_to(
            scores.elem, static_cast<float>(p[c * inner] - top - log_total));
    }
  std::vector<HeldValue> out{nll(logp, o, scores.elem, "scores", "labels")};
  out.push_back(make_value(x, std::move(logp.data), scores.elem));
  return out;
}

} // namespace quarry::onnx_io::kernels
