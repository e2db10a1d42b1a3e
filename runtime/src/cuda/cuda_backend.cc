//===- cuda_backend.cc - Plan, upload weights, lower steps, run on a stream
//===//
#include "quarry/runtime/cuda_backend.h"

#include "kernels.h"
#include "quarry/core/op_registry.h"
#include "quarry/runtime/plan.h"

#include <memory>

namespace quarry::runtime {

using namespace cuda;

namespace {

/// Device memory freed on destruction.
class DeviceBuffer {
public:
  explicit DeviceBuffer(size_t bytes) {
    if (bytes > 0)
      QUARRY_CUDA_CHECK(cudaMalloc(&p_, bytes));
  }
  ~DeviceBuffer() { cudaFree(p_); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  void *get() const { return p_; }
  float *floats() const { return static_cast<float *>(p_); }

private:
  void *p_ = nullptr;
};

/// The stream and library handles, created and destroyed together. A
/// backend makes them once and its executables share them: creating a
/// cuDNN handle costs tens of milliseconds, and the cost model prepares a
/// graph per operator configuration it measures. Executables of one
/// backend therefore run from one thread at a time.
class Handles {
public:
  Handles() {
    QUARRY_CUDA_CHECK(cudaSetDevice(0));
    QUARRY_CUDA_CHECK(cudaStreamCreate(&ctx.stream));
    QUARRY_CUDA_CHECK(cudnnCreate(&ctx.cudnn));
    QUARRY_CUDA_CHECK(cudnnSetStream(ctx.cudnn, ctx.stream));
    QUARRY_CUDA_CHECK(cublasCreate(&ctx.cublas));
    QUARRY_CUDA_CHECK(cublasSetStream(ctx.cublas, ctx.stream));
    QUARRY_CUDA_CHECK(cublasSetMathMode(ctx.cublas, CUBLAS_PEDANTIC_MATH));
  }
  ~Handles() {
    if (ctx.cublas)
      cublasDestroy(ctx.cublas);
    if (ctx.cudnn)
      cudnnDestroy(ctx.cudnn);
    if (ctx.stream)
      cudaStreamDestroy(ctx.stream);
  }
  Handles(const Handles &) = delete;
  Handles &operator=(const Handles &) = delete;
  Context ctx;
};

/// What cuDNN fuses into a convolution (kernels.h).
FusionPolicy cuda_fusion(bool enabled) {
  FusionPolicy p;
  p.enabled = enabled;
  p.matmul = false;
  p.accept = cudnn_fusable_prefix;
  return p;
}

class CudaExecutable : public Executable {
public:
  CudaExecutable(const Graph &g, const Bindings<float> &weights,
                 const BackendOptions &opts, std::shared_ptr<Handles> handles)
      : graph_(g), plan_(make_plan(graph_, weights, "cuda", cuda_supports)),
        fused_(fuse_steps(graph_, plan_, cuda_fusion(opts.fuse))),
        use_graph_(opts.cuda_graphs), handles_(std::move(handles)),
        ctx_(handles_->ctx) {
    // Fused steps run where their last node ran: buffers follow that order.
    assign_buffers(graph_, plan_, schedule_of(graph_, plan_, fused_));
    for (int64_t elems : plan_.buffer_elems)
      buffers_.push_back(std::make_unique<DeviceBuffer>(sizeof(float) * elems));
    upload_static_values();
    for (const FusedStep &s : fused_)
      steps_.push_back(lower(s));
    workspace_ = std::make_unique<DeviceBuffer>(ctx_.workspace_bytes);
    ctx_.workspace = workspace_->get();
  }

  ~CudaExecutable() override {
    if (graph_exec_)
      cudaGraphExecDestroy(graph_exec_);
    if (cuda_graph_)
      cudaGraphDestroy(cuda_graph_);
  }

  void set_inputs(const Bindings<float> &inputs) override {
    check_inputs(graph_, plan_, inputs, "cuda");
    for (int32_t id : plan_.inputs) {
      const auto &t = inputs.find(graph_.node(id).name)->second;
      QUARRY_CUDA_CHECK(cudaMemcpyAsync(data({id, 0}), t.data.data(),
                                        sizeof(float) * t.numel(),
                                        cudaMemcpyHostToDevice, ctx_.stream));
    }
    QUARRY_CUDA_CHECK(cudaStreamSynchronize(ctx_.stream));
  }

  void execute() override {
    cudaStream_t stream = ctx_.stream;
    if (use_graph_ && !graph_exec_ && !capture())
      use_graph_ = false;
    if (graph_exec_) {
      QUARRY_CUDA_CHECK(cudaGraphLaunch(graph_exec_, stream));
    } else {
      for (auto &s : steps_)
        s();
    }
    QUARRY_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  std::vector<StepInfo> steps() const override {
    StepInfo s;
    s.label = use_graph_ ? "graph (one CUDA graph launch)"
                         : "graph (steps launched one by one)";
    s.layout = "nchw";
    int kernels = 0;
    for (const FusedStep &f : fused_)
      kernels += f.fused() ? 1 : 0;
    s.impl = std::to_string(fused_.size()) + " steps, " +
             std::to_string(kernels) + " fused by cuDNN";
    if (host_steps_ > 0)
      s.impl += ", " + std::to_string(host_steps_) +
                " by reference semantics on the host";
    return {s};
  }

  std::vector<Tensor<float>> outputs() override {
    std::vector<Tensor<float>> out;
    for (ValueRef v : graph_.outputs()) {
      const Shape &s = plan_.value(v).type.shape;
      Tensor<float> t(s, 0.0f);
      QUARRY_CUDA_CHECK(cudaMemcpy(t.data.data(), data(v),
                                   sizeof(float) * t.numel(),
                                   cudaMemcpyDeviceToHost));
      out.push_back(std::move(t));
    }
    return out;
  }

private:
  /// Static values that a step reads or the graph outputs go to the device
  /// once.
  void upload_static_values() {
    std::vector<ValueRef> needed(graph_.outputs());
    for (int32_t id : plan_.steps)
      for (ValueRef v : graph_.node(id).inputs)
        needed.push_back(v);
    for (ValueRef v : needed) {
      if (!plan_.value(v).is_static || static_data_.count(v))
        continue;
      const auto &t = plan_.static_values[v.node][v.output];
      auto buf = std::make_unique<DeviceBuffer>(sizeof(float) * t.numel());
      QUARRY_CUDA_CHECK(cudaMemcpy(buf->get(), t.data.data(),
                                   sizeof(float) * t.numel(),
                                   cudaMemcpyHostToDevice));
      static_data_.emplace(v, std::move(buf));
    }
  }

  float *data(ValueRef v) const {
    const PlannedValue &pv = plan_.value(v);
    if (pv.is_static)
      return static_data_.at(v)->floats();
    return buffers_[pv.buffer]->floats();
  }

  Step lower(const FusedStep &s) {
    const int32_t id = s.anchor;
    try {
      auto operand = [&](ValueRef v) {
        const PlannedValue &pv = plan_.value(v);
        return Operand{&pv.type, data(v), pv.is_static};
      };
      const Node &n = graph_.node(id);
      if (!s.fused() && !has_kernel<CudaKernel>(n.kind)) {
        ++host_steps_;
        std::vector<Operand> in, out;
        for (ValueRef v : n.inputs)
          in.push_back(operand(v));
        for (int o = 0; o < static_cast<int>(plan_.values[id].size()); ++o)
          out.push_back(operand({id, o}));
        return host_reference(ctx_, n, in, out);
      }
      if (!s.fused())
        return lower_node<CudaKernel>(ctx_, graph_, plan_, id,
                                      [this](ValueRef v) { return data(v); });
      std::vector<Operand> in;
      for (ValueRef v : graph_.node(id).inputs)
        in.push_back(operand(v));
      for (const PostOp &op : s.post)
        if (op.kind == PostOp::Kind::Binary)
          in.push_back(operand(op.operand));
      const std::vector<Operand> out{operand(s.result())};
      return fused_conv(ctx_, graph_.node(id), in, out, s.post);
    } catch (const Error &e) {
      throw Error(std::string(e.what()) + " (" + describe_node(graph_, id) +
                  ")");
    }
  }

  /// Records every step's work on the stream into one CUDA graph, so a run
  /// is one launch instead of one per kernel. False (and the stream left
  /// as it was) when some step cannot be captured: then steps run one by
  /// one.
  bool capture() {
    cudaStream_t stream = ctx_.stream;
    if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) !=
        cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    bool ok = true;
    try {
      for (auto &s : steps_)
        s();
    } catch (const Error &) {
      ok = false;
    }
    cudaGraph_t g = nullptr;
    ok = cudaStreamEndCapture(stream, &g) == cudaSuccess && ok && g;
    if (ok && cudaGraphInstantiate(&graph_exec_, g, 0) != cudaSuccess) {
      graph_exec_ = nullptr;
      ok = false;
    }
    if (!ok) {
      if (g)
        cudaGraphDestroy(g);
      cudaGetLastError(); // clear the sticky error of the failed capture
      return false;
    }
    cuda_graph_ = g;
    return true;
  }

  Graph graph_;
  Plan plan_;
  std::vector<FusedStep> fused_;
  bool use_graph_ = true;
  cudaGraph_t cuda_graph_ = nullptr;
  cudaGraphExec_t graph_exec_ = nullptr;
  std::shared_ptr<Handles> handles_;
  Context ctx_; ///< the shared handles with this executable's workspace
  std::vector<std::unique_ptr<DeviceBuffer>> buffers_;
  std::map<ValueRef, std::unique_ptr<DeviceBuffer>> static_data_;
  std::unique_ptr<DeviceBuffer> workspace_;
  std::vector<Step> steps_;
  int host_steps_ = 0; ///< nodes without a cuda kernel (host_reference)
};

class CudaBackend : public Backend {
public:
  explicit CudaBackend(const BackendOptions &opts) : opts_(opts) {}
  std::string_view name() const override { return "cuda"; }
  std::string device_name() const override {
    cudaDeviceProp p{};
    QUARRY_CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
    return std::string(p.name) + ", sm_" + std::to_string(p.major) +
           std::to_string(p.minor);
  }
  std::unique_ptr<Executable> prepare(const Graph &g,
                                      const Bindings<float> &weights) override {
    if (cuda_device_count() == 0)
      throw Error("backend cuda: no CUDA device found");
    if (!handles_)
      handles_ = std::make_shared<Handles>();
    return std::make_unique<CudaExecutable>(g, weights, opts_, handles_);
  }
  std::vector<bool> fused_away(const Graph &g) const override {
    return absorbed_nodes(g, policy_);
  }
  const FusionPolicy *fusion_policy() const override { return &policy_; }

private:
  BackendOptions opts_;
  FusionPolicy policy_ = cuda_fusion(opts_.fuse);
  std::shared_ptr<Handles> handles_; ///< made at the first prepare
};

} // namespace

int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess)
    return 0;
  return n;
}

bool cuda_supports(OpKind kind) { return !op_info(kind).traits.variable; }

std::unique_ptr<Backend> make_cuda_backend(const BackendOptions &opts) {
  if (cuda_device_count() == 0)
    throw Error("backend cuda: no CUDA device found");
  return std::make_unique<CudaBackend>(opts);
}

std::unique_ptr<Backend>
make_cuda_backend_without_device(const BackendOptions &opts) {
  return std::make_unique<CudaBackend>(opts);
}

} // namespace quarry::runtime
