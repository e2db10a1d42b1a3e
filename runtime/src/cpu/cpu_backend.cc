//===- cpu_backend.cc - Plan, build the program, run it -------------------===//
#include "quarry/runtime/cpu_backend.h"

#include "../identical_nodes.h"
#include "../stream_check.h"
#include "caches.h"
#include "conv_algorithms.h"
#include "denormals.h"
#include "program.h"
#include "quarry/core/flops.h"
#include "quarry/runtime/plan.h"
#include "threads.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <fstream>

namespace quarry::runtime {

using namespace cpu;

namespace {

/// The CPU model from /proc/cpuinfo, the thread count oneDNN will use and
/// oneDNN's version: all change op costs.
std::string cpu_name() {
  // A virtual machine may say no more than "AMD EPYC": its family, model
  // and vector extensions tell a Zen 4 from a Zen 5.
  std::string model = "unknown CPU", family, number, isa;
  std::ifstream info("/proc/cpuinfo");
  auto value = [](const std::string &line) {
    const size_t colon = line.find(':');
    return colon == std::string::npos || colon + 2 > line.size()
               ? std::string()
               : line.substr(colon + 2);
  };
  for (std::string line; std::getline(info, line) && line != "";) {
    if (line.rfind("model name", 0) == 0)
      model = value(line);
    else if (line.rfind("cpu family", 0) == 0)
      family = value(line);
    else if (line.rfind("model\t", 0) == 0)
      number = value(line);
    else if (line.rfind("flags", 0) == 0)
      for (const char *f : {"avx2", "avx512f", "avx512_bf16", "amx_tile"})
        if ((" " + value(line) + " ").find(std::string(" ") + f + " ") !=
            std::string::npos)
          isa += std::string(isa.empty() ? "" : " ") + f;
  }
  if (!family.empty())
    model += " (family " + family + " model " + number +
             (isa.empty() ? "" : ", " + isa) + ")";
  const dnnl_version_t *v = dnnl_version();
  return model + ", " + std::to_string(omp_get_max_threads()) +
         " threads, oneDNN " + std::to_string(v->major) + "." +
         std::to_string(v->minor) + "." + std::to_string(v->patch);
}

/// The layout oneDNN's convolutions choose for activations on this CPU,
/// asked of a typical 3x3 convolution left free to choose; nullopt when
/// that is plain nchw. Later convolutions keep the layout their input
/// arrives in, so a network's activations stay in this one.
std::optional<dnnl::memory::format_tag> preferred_activation_layout() {
  using dnnl::memory;
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  const auto any = [](memory::dims d) {
    return memory::desc(d, memory::data_type::f32, memory::format_tag::any);
  };
  const dnnl::convolution_forward::desc d(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
      any({1, 64, 56, 56}), any({64, 64, 3, 3}), any({1, 64, 56, 56}), {1, 1},
      {1, 1}, {1, 1});
  const auto layout = activation_tag(
      dnnl::convolution_forward::primitive_desc(d, engine).dst_desc());
  if (layout == memory::format_tag::nchw)
    return std::nullopt;
  return layout;
}

/// Raised whenever a kernel of quarry's own (gemv.h, the loops) changes
/// speed, so that a cost cache measured with the old one is measured anew:
/// 2 since products with 1536 columns and more stream four rows a pass, 3
/// since pointwise functions oneDNN lacks run as loops (pointwise_loops.h),
/// 4 since transposes into nhwc are views and pointwise functions post-ops,
/// 5 since concat, pad and resize copy in their operand's layout and
/// convolutions over their whole input are gemvs, 6 since softmax runs
/// line by line where oneDNN's is slow (softmax_lines.h), 7 since gemvs
/// stream their weights packed in panels and broadcasts by one value per
/// channel and batchnorms no convolution folds run as loops, 8 since a
/// trailing SiLU runs as a loop after its convolution or product, 9 since
/// resizes that keep the channels sum whole rows, arithmetic pointwise
/// functions vectorize and whole-tensor minima and maxima read nhwc, 10
/// since laid-out weights live in huge pages (huge_pages.h), 11 since
/// poolings take their chain (a sum, a bias, an activation) as post-ops,
/// 12 since denormals are taken as zero (denormals.h), 13 since rounding
/// (a quantization's) is a oneDNN post-op, 14 since a convolution or
/// product of a QDQ pair's result runs in int8 (kernels_int8.cc), 15 since
/// concatenations, splits and pads copy their runs inline (copy_run), 16
/// since concatenations of channel blocks the operands fill (nChw16c) copy
/// each image's blocks as runs, 17 since a convolution whose groups fill
/// no block runs oneDNN's kernel rather than its reference code in a
/// forced blocked layout.
constexpr int kKernelRevision = 18;

struct Layouts {
  /// Forced on every convolution (BackendOptions::layout), if at all.
  std::optional<dnnl::memory::format_tag> conv;
  /// The graph's 4-D inputs are reordered into this one first, if set.
  std::optional<dnnl::memory::format_tag> inputs;
  /// Where activations live (Context::activations).
  std::optional<dnnl::memory::format_tag> activations;
};

Context make_context(const Layouts &layouts, bool bf16) {
  Context c;
  c.conv_layout = layouts.conv;
  c.input_layout = layouts.inputs;
  c.activations = layouts.activations;
  c.bf16 = bf16;
  return c;
}

/// The calling thread's OpenMP regions run on `n` threads while it lives.
class OmpThreads {
public:
  explicit OmpThreads(int n) : saved_(omp_get_max_threads()) {
    omp_set_num_threads(n);
  }
  ~OmpThreads() { omp_set_num_threads(saved_); }
  OmpThreads(const OmpThreads &) = delete;
  OmpThreads &operator=(const OmpThreads &) = delete;

private:
  int saved_;
};

/// The threads a plan runs on (threads.h: the backend's, or one for a
/// small graph).
int threads_for(const Graph &g, const Plan &p) {
  int64_t flops = 0;
  for (int32_t id : p.steps)
    flops += node_flops(g, id);
  return cpu::threads_for_flops(flops, omp_get_max_threads());
}

class CpuExecutable : public Executable {
public:
  CpuExecutable(const Graph &g, const Bindings<float> &weights,
                const FusionPolicy &policy, const Layouts &layouts, bool bf16,
                bool denormals_as_zero)
      : graph_(with_identical_merged(g)),
        plan_(make_plan(graph_, weights, "cpu", cpu_supports)),
        threads_(threads_for(graph_, plan_)),
        denormals_as_zero_(denormals_as_zero),
        ctx_(make_context(layouts, bf16)) {
    // Primitives are made for the threads they will run on.
    const OmpThreads scope(threads_);
    program_.emplace(graph_, plan_, ctx_, policy);
  }

  void set_inputs(const Bindings<float> &inputs) override {
    check_inputs(graph_, plan_, inputs, "cpu");
    for (int32_t id : plan_.inputs) {
      const auto &t = inputs.find(graph_.node(id).name)->second;
      std::memcpy(program_->input_data(id), t.data.data(),
                  sizeof(float) * t.numel());
    }
  }

  void execute() override {
    const OmpThreads scope(threads_);
    const cpu::DenormalsAsZero denormals(denormals_as_zero_, threads_);
    program_->run();
  }

  std::vector<Tensor<float>> outputs() override {
    std::vector<Tensor<float>> out;
    for (ValueRef v : graph_.outputs()) {
      const PlannedValue &pv = plan_.value(v);
      if (pv.is_static) {
        out.push_back(plan_.static_values[v.node][v.output]);
        continue;
      }
      const float *p = program_->output_data(v);
      out.emplace_back(pv.type.shape,
                       std::vector<float>(p, p + pv.type.shape.numel()));
    }
    return out;
  }

  std::vector<StepInfo> steps() const override {
    std::vector<StepInfo> out;
    for (const Instruction &ins : program_->instructions()) {
      StepInfo s;
      s.label = ins.label;
      s.impl = ins.impl;
      s.layout =
          ins.out.empty() ? "" : layout_name(program_->slots()[ins.out[0]].md);
      s.reorder = ins.reorder;
      if (ins.reorder)
        s.from_layout = layout_name(program_->slots()[ins.in[0]].md);
      s.nodes = ins.nodes;
      out.push_back(std::move(s));
    }
    return out;
  }

  std::vector<StepInfo> profile(int warmup, int runs) override {
    std::vector<StepInfo> out = steps();
    const OmpThreads scope(threads_);
    const cpu::DenormalsAsZero denormals(denormals_as_zero_, threads_);
    const std::vector<double> ms = program_->time_instructions(warmup, runs);
    for (size_t i = 0; i < out.size(); ++i)
      out[i].ms = ms[i];
    return out;
  }

private:
  Graph graph_;
  Plan plan_;
  int threads_;
  bool denormals_as_zero_;
  Context ctx_;
  std::optional<Program> program_;
};

class CpuBackend : public Backend {
public:
  explicit CpuBackend(const BackendOptions &opts)
      : streams_(opts.streams), bf16_(opts.precision == "bf16"),
        denormals_as_zero_(opts.denormals_as_zero) {
    if (opts.precision != "fp32" && !bf16_)
      throw Error("backend cpu: precision '" + opts.precision +
                  "' is not supported (fp32, or bf16 where the processor "
                  "has avx512_bf16)");
    if (bf16_ &&
        dnnl::get_effective_cpu_isa() < dnnl::cpu_isa::avx512_core_bf16)
      throw Error("backend cpu: precision bf16 needs a processor with "
                  "avx512_bf16 (" +
                  cpu_name() + " has none)");
    omp_set_num_threads(cpu::thread_count(opts.threads));
    policy_.enabled = opts.fuse;
    policy_.pointwise = [](ops::PointwiseFn fn) {
      return cpu::pointwise_algorithm(fn, 0.0f, 0.0f).has_value();
    };
    // oneDNN's batch normalization applies a relu after itself, nothing
    // else.
    policy_.batchnorm = true;
    policy_.batchnorm_folds = true;
    // A concatenation along channels applies its batchnorm, and the relu
    // after it, as it copies (concat_affine_copies).
    policy_.concat = true;
    // oneDNN's pooling applies the sum after it (a cell's branches joined)
    // as it writes its result.
    policy_.pool2d = true;
    policy_.accept = [](const Node &anchor, const std::vector<PostOp> &post) {
      // A pooling that is the identity is a view of its operand: nothing
      // runs that could take a chain.
      if ((anchor.kind == OpKind::Pool2DAvg &&
           ops::Pool2DAvg::is_identity(anchor.attrs)) ||
          (anchor.kind == OpKind::Pool2DMax &&
           ops::Pool2DMax::is_identity(anchor.attrs)))
        return size_t{0};
      if (anchor.kind == OpKind::Concat)
        return size_t{1} + (post.size() > 1 &&
                            post[1].kind == PostOp::Kind::Unary &&
                            post[1].unary == UnaryFn::Relu);
      // oneDNN's Winograd kernels take no full-tensor operand (a residual
      // sum): the chain stops before one, so that the convolution runs by
      // the algorithm chosen for it and the sum on its own.
      if (anchor.kind == OpKind::Conv2D &&
          ops::Conv2D::algorithm(anchor.attrs) == ops::ConvAlgorithm::Winograd)
        return static_cast<size_t>(
            std::find_if(post.begin(), post.end(),
                         [](const PostOp &p) {
                           return p.kind == PostOp::Kind::Binary &&
                                  p.spread == Spread::Full;
                         }) -
            post.begin());
      if (anchor.kind != OpKind::BatchNorm)
        return post.size();
      return size_t{post[0].kind == PostOp::Kind::Unary &&
                    post[0].unary == UnaryFn::Relu};
    };
    if (!opts.layout.empty()) {
      conv_layout_ = activation_tag(opts.layout);
      if (!conv_layout_)
        throw Error("backend cpu: unknown layout '" + opts.layout +
                    "' (nchw, nhwc, nChw8c, nChw16c)");
    }
    activations_ = conv_layout_ ? *conv_layout_ : preferred_activation_layout();
  }
  std::string_view name() const override { return "cpu"; }
  /// Includes the revision of quarry's own kernels and the layout
  /// operators are measured in (prepare_operator), so that costs measured
  /// with other kernels or in another layout are not taken for these.
  /// With streams other than 1 (graphs checked on host threads, by
  /// reference code) it says so, so that no cost measured so is taken for
  /// the kernels'.
  std::string device_name() const override {
    return cpu_name() + ", kernels r" + std::to_string(kKernelRevision) +
           ", activations " +
           layout_name(activations_.value_or(dnnl::memory::format_tag::nchw)) +
           (bf16_ ? ", bf16 products" : "") +
           (denormals_as_zero_ ? "" : ", denormals kept") +
           (streams_ != 1 ? ", streams checked on host threads" : "");
  }
  /// With streams other than 1, the plan a GPU would run on them, checked
  /// on host threads (stream_check.h): oneDNN's primitives share one
  /// scratchpad and cannot run at once, so its steps are reference code.
  std::unique_ptr<Executable> prepare(const Graph &g,
                                      const Bindings<float> &weights) override {
    if (streams_ != 1)
      return make_stream_check(g, weights, streams_, "cpu");
    return std::make_unique<CpuExecutable>(
        g, weights, policy_, Layouts{conv_layout_, {}, activations_}, bf16_,
        denormals_as_zero_);
  }
  std::unique_ptr<Executable>
  prepare_operator(const Graph &g, const Bindings<float> &weights) override {
    return std::make_unique<CpuExecutable>(
        g, weights, policy_, Layouts{conv_layout_, activations_, activations_},
        bf16_, denormals_as_zero_);
  }
  std::vector<bool> fused_away(const Graph &g) const override {
    return absorbed_nodes(g, policy_);
  }
  const FusionPolicy *fusion_policy() const override { return &policy_; }
  /// Winograd for the convolutions oneDNN has it for, and oneDNN's matrix
  /// product for 1x1 ones where activations are channels-last (its bytes
  /// are the convolution's there); not in bf16 (the kernels are float32)
  /// nor on host threads (reference code).
  std::vector<Attrs> implementations(const Graph &g,
                                     int32_t id) const override {
    const Node &n = g.node(id);
    if (bf16_ || streams_ != 1 || n.kind != OpKind::Conv2D ||
        n.attrs.has(ops::Conv2D::kAlgorithm))
      return {};
    ops::ConvAlgorithm way;
    if (cpu::winograd_runs(g, id))
      way = ops::ConvAlgorithm::Winograd;
    else if (activations_ == dnnl::memory::format_tag::nhwc &&
             cpu::is_pixel_product(g, id))
      way = ops::ConvAlgorithm::Matmul;
    else
      return {};
    Attrs chosen = n.attrs;
    chosen.set(ops::Conv2D::kAlgorithm, static_cast<int64_t>(way));
    return {chosen};
  }
  /// Channels in blocks of the vector width (16 floats with AVX-512, else
  /// 8) where activations are channels-last by choice: not with a layout
  /// forced, in bf16 or on host threads.
  std::vector<ops::ConvLayout> graph_layouts() const override {
    if (conv_layout_ || bf16_ || streams_ != 1 ||
        activations_ != dnnl::memory::format_tag::nhwc)
      return {};
    return {dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core
                ? ops::ConvLayout::Blocked16
                : ops::ConvLayout::Blocked8};
  }
  size_t cache_bytes() const override { return last_level_cache_bytes(); }
  void evict_caches() override { cpu::evict_caches(cache_bytes()); }

private:
  int streams_ = 1;
  bool bf16_ = false;
  bool denormals_as_zero_ = true;
  FusionPolicy policy_;
  std::optional<dnnl::memory::format_tag> conv_layout_;
  /// Where a network's activations live: what operators are measured in.
  std::optional<dnnl::memory::format_tag> activations_;
};

} // namespace

bool cpu_supports(OpKind kind) { return !op_info(kind).traits.variable; }

bool cpu_has_kernel(OpKind kind) {
  return dispatch(kind, [](auto def) {
    return CpuKernel<typename decltype(def)::type>::supported;
  });
}

std::unique_ptr<Backend> make_cpu_backend(const BackendOptions &opts) {
  return std::make_unique<CpuBackend>(opts);
}

} // namespace quarry::runtime
