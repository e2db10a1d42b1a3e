//===- onnx_kernels_impl.h - What quarry's ONNX kernels share -*- C++ -*-===//
//
// The kernels of onnx_kernels.h live in one file per family: NonZero and
// TopK with the dispatch (onnx_kernels.cc), the detection operators
// (onnx_kernels_detection.cc), and the index and mask operators
// (onnx_kernels_index.cc, onnx_kernels_masks.cc), determinants
// (onnx_kernels_linalg.cc), window functions (onnx_kernels_signal.cc), the
// classification losses
// (onnx_kernels_loss.cc), Cast, Gather and integer arithmetic
// (onnx_kernels_arith.cc), scatters (onnx_kernels_scatter.cc), MaxPool
// with its indices (onnx_kernels_pool.cc). This declares the
// helpers they share for reading attributes and operands, and each
// family's entry points for the dispatch.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "onnx_attrs.h"
#include "quarry/models/onnx_stages.h"

#include <onnx/onnx_pb.h>

#include <string>
#include <string_view>
#include <vector>

namespace quarry::onnx_io::kernels {

using Inputs = std::vector<const HeldValue *>;

constexpr int32_t kInt64 = onnx::TensorProto::INT64;
constexpr int32_t kBool = onnx::TensorProto::BOOL;

/// The most elements a kernel's output may hold (2^31): more is refused
/// before anything is allocated.
constexpr int64_t kMostOutputElements = int64_t{1} << 31;

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

int64_t int_attr(const onnx::NodeProto &n, std::string_view name,
                 int64_t fallback);
float float_attr(const onnx::NodeProto &n, std::string_view name,
                 float fallback);
std::string string_attr(const onnx::NodeProto &n, std::string_view name,
                        const std::string &fallback);
/// Attribute `name`'s integers; empty where it is absent.
std::vector<int64_t> ints_attr(const onnx::NodeProto &n, std::string_view name);
/// An ONNX element type given as attribute `name` (EyeLike's dtype, a
/// window's output_datatype), `fallback` where absent; refused where it is
/// no type quarry holds.
int32_t elem_attr(const onnx::NodeProto &n, std::string_view name,
                  int32_t fallback);

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

/// Input `i` of `in`, or nullptr where the node leaves it out; throws
/// where its data is not the size its shape says.
const HeldValue *optional_input(const Inputs &in, size_t i);
/// Input `i` of `in`, which the node must give (`name` says which).
const HeldValue &required_input(const Inputs &in, size_t i, const char *name);
void check_input_count(const Inputs &in, size_t most);

/// `v` as a message shows it: "3", "0.5", "nan".
std::string number(float v);
/// `v`, an integer held as float32, as an int64; saturating, since a float
/// of 2^63 (how int64's largest value rounds) does not fit.
int64_t saturate_int(float v);
/// The one value of `v`, an integer operand such as K.
int64_t single_int(const HeldValue &v, const char *name);

/// `axis` of `name` (of shape `shape`) counted from the front, a negative
/// one counting from the back where `negative` allows it: "axis 2 is out
/// of range for X of [3,4]" where it is outside the rank.
int normalized_axis(int64_t axis, const Shape &shape, const char *name,
                    bool negative = true);

/// The elements of an output of dimensions `dims` (none negative),
/// refusing more than kMostOutputElements.
int64_t output_elements(const std::vector<int64_t> &dims);

/// The product of dims [first, last) of `s`.
int64_t span_elements(const Shape &s, int first, int last);

HeldValue make_value(Shape shape, std::vector<float> data, int32_t elem);

//===----------------------------------------------------------------------===//
// Families (onnx_kernels_detection.cc, onnx_kernels_index.cc,
// onnx_kernels_masks.cc, onnx_kernels_linalg.cc, onnx_kernels_signal.cc,
// onnx_kernels_loss.cc, onnx_kernels_arith.cc, onnx_kernels_scatter.cc,
// onnx_kernels_pool.cc)
//===----------------------------------------------------------------------===//

std::vector<HeldValue> non_max_suppression(const onnx::NodeProto &n,
                                           const Inputs &in);
std::vector<HeldValue> roi_align(const onnx::NodeProto &n, int64_t opset,
                                 const Inputs &in);

/// ArgMax (`largest`) or ArgMin.
std::vector<HeldValue> arg_extreme(const onnx::NodeProto &n, int64_t opset,
                                   const Inputs &in, bool largest);
std::vector<HeldValue> gather_nd(const onnx::NodeProto &n, const Inputs &in);
std::vector<HeldValue> compress(const onnx::NodeProto &n, int64_t opset,
                                const Inputs &in);
std::vector<HeldValue> one_hot(const onnx::NodeProto &n, int64_t opset,
                               const Inputs &in);
std::vector<HeldValue> unique(const onnx::NodeProto &n, const Inputs &in);

std::vector<HeldValue> cum_sum(const onnx::NodeProto &n, const Inputs &in);
std::vector<HeldValue> trilu(const onnx::NodeProto &n, const Inputs &in);
std::vector<HeldValue> eye_like(const onnx::NodeProto &n, const Inputs &in);
std::vector<HeldValue> is_inf(const onnx::NodeProto &n, const Inputs &in);
std::vector<HeldValue> is_nan(const Inputs &in);
std::vector<HeldValue> reverse_sequence(const onnx::NodeProto &n,
                                        const Inputs &in);

/// The determinants of X's square matrices (its last two axes).
std::vector<HeldValue> det(const Inputs &in);

/// `size` samples of a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N): Hann,
/// Hamming and Blackman windows by their coefficients.
std::vector<HeldValue> window(const onnx::NodeProto &n, const Inputs &in,
                              double a0, double a1, double a2);

std::vector<HeldValue> negative_log_likelihood_loss(const onnx::NodeProto &n,
                                                    const Inputs &in);
/// The loss, then the log-probabilities (computed whether or not the node
/// names its second output).
std::vector<HeldValue> softmax_cross_entropy_loss(const onnx::NodeProto &n,
                                                  const Inputs &in);

/// Cast, or CastLike (`like`: the type of input 1).
std::vector<HeldValue> cast(const onnx::NodeProto &n, const Inputs &in,
                            bool like);
std::vector<HeldValue> gather(const onnx::NodeProto &n, const Inputs &in);
/// Add, Sub, Mul, Div, Mod and BitShift, broadcasting.
std::vector<HeldValue> binary(const onnx::NodeProto &n, const Inputs &in);

/// ScatterElements (and Scatter), ScatterND and MaxUnpool at computed
/// indices.
std::vector<HeldValue> scatter_elements(const onnx::NodeProto &n, int64_t opset,
                                        const Inputs &in);
std::vector<HeldValue> scatter_nd(const onnx::NodeProto &n, int64_t opset,
                                  const Inputs &in);
std::vector<HeldValue> max_unpool(const onnx::NodeProto &n, const Inputs &in);

/// MaxPool over any number of spatial axes, with its Indices output (flat
/// over the whole input, row- or, for storage_order 1, column-major).
std::vector<HeldValue> max_pool(const onnx::NodeProto &n, const Inputs &in);

} // namespace quarry::onnx_io::kernels
