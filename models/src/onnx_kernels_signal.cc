//===- onnx_kernels_signal.cc - Window functions --------------------------===//
//
// HannWindow, HammingWindow and BlackmanWindow (opset 17): `size` samples
// of a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), N the size where the
// window is periodic (the default) and one less where it is symmetric,
// computed in double and rounded once to output_datatype (float32 by
// default), as ONNX's reference computes them. A spectrogram's window is
// usually a constant, which folds; these run where its size is computed
// or fed.
//
//===----------------------------------------------------------------------===//
#include "onnx_kernels_impl.h"
#include "onnx_tensor.h"

#include "quarry/core/error.h"

#include <cmath>
#include <numbers>

namespace quarry::onnx_io::kernels {

std::vector<HeldValue> window(const onnx::NodeProto &n, const Inputs &in,
                              double a0, double a1, double a2) {
  check_input_count(in, 1);
  const int64_t size = single_int(required_input(in, 0, "size"), "size");
  if (size < 0)
    throw Error("size " + std::to_string(size) + " is negative");
  const int32_t elem =
      elem_attr(n, "output_datatype", onnx::TensorProto::FLOAT);
  const bool periodic = int_attr(n, "periodic", 1) != 0;
  const double period = static_cast<double>(periodic ? size : size - 1);
  std::vector<float> out(static_cast<size_t>(output_elements({size})));
  for (int64_t i = 0; i < size; ++i) {
    const double angle = 2 * std::numbers::pi * static_cast<double>(i) / period;
    const double v = a0 - a1 * std::cos(angle) + a2 * std::cos(2 * angle);
    out[i] = round_to(elem, static_cast<float>(v));
  }
  return {make_value(Shape{size}, std::move(out), elem)};
}

} // namespace quarry::onnx_io::kernels
