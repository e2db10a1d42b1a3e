//===- onnx_kernels_linalg.cc - Determinants
//-------------------------------===//
//
// Det: the determinant of each square matrix of X's last two axes, by LU
// decomposition with partial pivoting in double, rounded once to X's
// element type; a singular matrix's is 0.
//
//===----------------------------------------------------------------------===//
#include "onnx_kernels_impl.h"
#include "onnx_tensor.h"

#include "quarry/core/error.h"

#include <cmath>
#include <utility>

namespace quarry::onnx_io::kernels {

std::vector<HeldValue> det(const Inputs &in) {
  check_input_count(in, 1);
  const HeldValue &xv = required_input(in, 0, "X");
  const Shape &s = xv.value.shape;
  const int r = s.rank();
  if (r < 2 || s[r - 1] != s[r - 2])
    throw Error("X of " + s.str() +
                " does not end in square matrices [..., M, M]");
  const int64_t n = s[r - 1];
  const std::vector<int64_t> batch(s.dims.begin(), s.dims.end() - 2);
  const int64_t count = output_elements(batch);
  std::vector<float> out(static_cast<size_t>(count));
  std::vector<double> a(static_cast<size_t>(n * n));
  for (int64_t b = 0; b < count; ++b) {
    for (int64_t i = 0; i < n * n; ++i)
      a[i] = xv.value.data[b * n * n + i];
    double d = 1;
    for (int64_t c = 0; c < n && d != 0; ++c) {
      int64_t pivot = c;
      for (int64_t i = c + 1; i < n; ++i)
        if (std::fabs(a[i * n + c]) > std::fabs(a[pivot * n + c]))
          pivot = i;
      if (a[pivot * n + c] == 0) {
        d = 0;
        break;
      }
      if (pivot != c) {
        for (int64_t j = 0; j < n; ++j)
          std::swap(a[c * n + j], a[pivot * n + j]);
        d = -d;
      }
      d *= a[c * n + c];
      for (int64_t i = c + 1; i < n; ++i) {
        const double f = a[i * n + c] / a[c * n + c];
        for (int64_t j = c; j < n; ++j)
          a[i * n + j] -= f * a[c * n + j];
      }
    }
    out[b] = round_to(xv.elem, static_cast<float>(d));
  }
  return {make_value(Shape(batch), std::move(out), xv.elem)};
}

} // namespace quarry::onnx_io::kernels
