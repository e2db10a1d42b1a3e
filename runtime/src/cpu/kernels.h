//===- kernels.h - Which operators the cpu backend runs, and how -*- C++
//-*-===//
//
// CpuKernel<Def> lowers one node whose operator is `Def` (a core/ops struct)
// in two stages, because layouts are chosen before memory is:
//
//   make(): given each operand's type and the layout it is available in,
//           choose the primitive and say which layout each dynamic operand
//           must be in (the program inserts a reorder where it differs) and
//           which layout each result will have;
//   bind(): once every value has a buffer, return the step that runs.
//
// Kernels that only move data in row-major order ask for plain layouts;
// oneDNN kernels that work in any layout take the operand's as it is; a
// convolution lets oneDNN choose (blocked nChw8c/nChw16c where it is
// fastest). An operator without a specialization runs through
// ReferenceKernel: its float semantics over plain buffers.
//
// Anchors (conv2d, matmul) also take an epilogue (fusion.h): the post-ops
// to apply to their result, whose tensor operands follow the node's own
// operands in `in`.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "../fusion.h"
#include "dnnl_util.h"
#include "pointwise_loops.h"

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace quarry::runtime::cpu {

struct Context {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  /// When set, every convolution reads and writes this activation layout.
  std::optional<dnnl::memory::format_tag> conv_layout;
  /// When set, 4-D graph inputs are reordered into this layout before any
  /// kernel reads them (an operator measured as it runs in a network).
  std::optional<dnnl::memory::format_tag> input_layout;
  /// When set, the layout a network's activations live in (what oneDNN's
  /// convolutions choose on this CPU): a convolution whose input arrives
  /// in another one (a Winograd kernel's) returns to it, rather than
  /// carrying that layout through the rest of the network.
  std::optional<dnnl::memory::format_tag> activations;
  /// Convolutions and matrix products with static weights read their input
  /// and weights as bfloat16 (BackendOptions::precision "bf16"),
  /// accumulating and writing float32; a reorder converts the input.
  bool bf16 = false;
  /// Where static operands laid out for their kernels live (huge_pages.h):
  /// as long as the context, which outlives the program's steps.
  StaticArena statics;
};

/// An operand as a kernel sees it while lowering: its type, the layout it
/// is available in (plain for static values), and for static values their
/// floats (computed at prepare time, read-only, alive as long as the plan).
struct CpuOperand {
  const TensorType *type = nullptr;
  dnnl::memory::desc md;
  const float *static_data = nullptr;
  /// Set where the values lie on a quantization grid (a QDQ pair's result,
  /// composites.h): a convolution of them may run in int8. A computed zero
  /// point of the grid is then the last operand.
  std::optional<QuantizationGrid> grid;
  bool is_static() const { return static_data != nullptr; }
  const Shape &shape() const { return type->shape; }
};
using CpuOperands = std::span<const CpuOperand>;
using ResultTypes = std::span<const TensorType>;
using PostOps = std::span<const PostOp>;

/// Runs one lowered node (or fused chain) on the buffers given to bind().
using Step = std::function<void()>;

/// Where each operand and result lives once buffers are assigned (static
/// operands: their own floats).
struct Bound {
  std::vector<float *> in, out;
};

struct Lowered {
  /// The layout each operand must be in (static operands: ignored).
  std::vector<dnnl::memory::desc> in;
  /// The layout of each result.
  std::vector<dnnl::memory::desc> out;
  std::function<Step(const Bound &)> bind;
  /// The implementation, for reports: oneDNN's name ("brgconv:avx512_core")
  /// or "loops" / "reference".
  std::string impl;
  /// >= 0: result 0 is operand `alias` seen with another shape (no copy).
  int alias = -1;
  /// >= 0: result 0 is computed into operand `accumulate`'s buffer, which
  /// holds that operand when the step starts (an in-place residual sum).
  int accumulate = -1;
  /// Static operands make() copied into memory of its own (weights laid
  /// out for a primitive): never read at run time, so the plan's copy is
  /// let go once its last reader is lowered (Program).
  std::vector<int> copied_static;
};

template <class Def> struct CpuKernel {
  static constexpr bool supported = false;
};

#define QUARRY_CPU_KERNEL(Def)                                                 \
  template <> struct CpuKernel<Def> {                                          \
    static constexpr bool supported = true;                                    \
    static Lowered make(Context &c, const Node &n, CpuOperands in,             \
                        ResultTypes out, PostOps post);                        \
  };

// Through oneDNN primitives (kernels_dnnl.cc, kernels_float_only.cc).
QUARRY_CPU_KERNEL(ops::Conv2D)
QUARRY_CPU_KERNEL(ops::MatMul)
QUARRY_CPU_KERNEL(ops::Pool2DAvg)
QUARRY_CPU_KERNEL(ops::Pool2DMax)
QUARRY_CPU_KERNEL(ops::Relu)
QUARRY_CPU_KERNEL(ops::Sigmoid)
QUARRY_CPU_KERNEL(ops::Tanh)
QUARRY_CPU_KERNEL(ops::EwAdd)
QUARRY_CPU_KERNEL(ops::EwMul)
QUARRY_CPU_KERNEL(ops::ScalarMul)
QUARRY_CPU_KERNEL(ops::BatchNorm)
QUARRY_CPU_KERNEL(ops::Concat)
QUARRY_CPU_KERNEL(ops::Transpose)
QUARRY_CPU_KERNEL(ops::Softmax)
QUARRY_CPU_KERNEL(ops::Broadcast)
QUARRY_CPU_KERNEL(ops::Pointwise)
QUARRY_CPU_KERNEL(ops::Pool2DExplicit)
QUARRY_CPU_KERNEL(ops::ReduceMean)
QUARRY_CPU_KERNEL(ops::Reduce)
QUARRY_CPU_KERNEL(ops::ConvTranspose)
QUARRY_CPU_KERNEL(ops::LayerNorm)
// Direct loops over row-major memory (kernels_loops.cc).
QUARRY_CPU_KERNEL(ops::Split)
QUARRY_CPU_KERNEL(ops::Reshape)
QUARRY_CPU_KERNEL(ops::Slice)
QUARRY_CPU_KERNEL(ops::Pad)
QUARRY_CPU_KERNEL(ops::Resize)
QUARRY_CPU_KERNEL(ops::Where)

#undef QUARRY_CPU_KERNEL

/// A convolution, or a 2-D matrix product, of values on a quantization
/// grid by integer weights, in int8 (kernels_int8.cc); nullopt where it
/// does not apply.
std::optional<Lowered> int8_conv_lowered(Context &c, const Node &n,
                                         CpuOperands in, ResultTypes out,
                                         PostOps post);
std::optional<Lowered> int8_matmul_lowered(Context &c, CpuOperands in,
                                           ResultTypes out, PostOps post);

/// Any operator, through its float semantics (core's evaluate) over plain
/// buffers: what runs where no CpuKernel exists (enlarge, grid_sample, ...).
Lowered reference_kernel(const Node &n, CpuOperands in, ResultTypes out);

/// A concat along `axis` as copies of each operand's runs of elements,
/// every operand and the result in layout `layout`: plain or nhwc, where
/// the axes outside the concat axis' run are one stride apart, or
/// channel-blocked (nChw16c) along the channels where each operand's
/// channels fill whole blocks, so that an image's blocks of an operand
/// are one run.
Lowered concat_copies(int axis, dnnl::memory::format_tag layout, CpuOperands in,
                      ResultTypes out);

/// A 4-D value in nhwc or nchw as [outer, channels, inner], the form the
/// per-channel loops take (pointwise_loops.h): nhwc is n h w rows of
/// channels, nchw n images of planes. nullopt for any other layout or rank.
struct ChannelSpan {
  int64_t outer = 1, inner = 1;
};
inline std::optional<ChannelSpan> channel_span(const dnnl::memory::desc &md,
                                               const Shape &s) {
  const auto layout = activation_tag(md);
  if (s.rank() != 4)
    return std::nullopt;
  if (layout == dnnl::memory::format_tag::nhwc)
    return ChannelSpan{s[0] * s[2] * s[3], 1};
  if (layout == dnnl::memory::format_tag::nchw)
    return ChannelSpan{s[0], s[2] * s[3]};
  return std::nullopt;
}

/// A concat along the channels of 4-D values `parts`, each copied into
/// the nhwc result as a block of rows by `affine` (a batchnorm of static
/// statistics over the result's channels), then relu where `relu`: the
/// concatenation and its normalization in one pass. The step's operands
/// after the parts are the batchnorm's statics, read here only.
Lowered concat_affine_copies(CpuOperands in, size_t parts, ResultTypes out,
                             ChannelAffine affine, bool relu);

/// Result 0 is operand 0's memory, read in layout `in` and seen as `out`
/// (same bytes): no step runs.
inline Lowered view_of_operand(const dnnl::memory::desc &in,
                               const dnnl::memory::desc &out) {
  Lowered l;
  l.in = {in};
  l.out = {out};
  l.impl = "view";
  l.alias = 0;
  l.bind = [](const Bound &) -> Step { return {}; };
  return l;
}

/// Plain layouts for every operand and result.
std::vector<dnnl::memory::desc> plain_mds(CpuOperands in);
std::vector<dnnl::memory::desc> plain_mds(ResultTypes out);

} // namespace quarry::runtime::cpu
