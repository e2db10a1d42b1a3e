//===- cuda_backend.cc - Plan, upload weights, lower steps, run on a stream
//===//
#include "quarry/runtime/cuda_backend.h"

#include "../identical_nodes.h"
#include "kernels.h"
#include "quarry/core/op_registry.h"
#include "quarry/runtime/plan.h"
#include "quarry/runtime/streams.h"

#include <deque>
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

/// A stream and the library handles on it, created and destroyed together.
class StreamHandles {
public:
  explicit StreamHandles(bool tf32) {
    ctx.tf32 = tf32;
    QUARRY_CUDA_CHECK(cudaSetDevice(0));
    QUARRY_CUDA_CHECK(cudaStreamCreate(&ctx.stream));
    QUARRY_CUDA_CHECK(cudnnCreate(&ctx.cudnn));
    QUARRY_CUDA_CHECK(cudnnSetStream(ctx.cudnn, ctx.stream));
    QUARRY_CUDA_CHECK(cublasCreate(&ctx.cublas));
    QUARRY_CUDA_CHECK(cublasSetStream(ctx.cublas, ctx.stream));
    QUARRY_CUDA_CHECK(cublasSetMathMode(
        ctx.cublas, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_PEDANTIC_MATH));
  }
  ~StreamHandles() {
    if (ctx.cublas)
      cublasDestroy(ctx.cublas);
    if (ctx.cudnn)
      cudnnDestroy(ctx.cudnn);
    if (ctx.stream)
      cudaStreamDestroy(ctx.stream);
  }
  StreamHandles(const StreamHandles &) = delete;
  StreamHandles &operator=(const StreamHandles &) = delete;
  Context ctx;
};

/// The streams with their handles. A backend makes them as its
/// executables first need them and its executables share them: creating a
/// cuDNN handle costs tens of milliseconds, and the cost model prepares a
/// graph per operator configuration it measures. Executables of one
/// backend therefore run from one thread at a time.
class Handles {
public:
  explicit Handles(bool tf32) : tf32_(tf32) {}
  /// Stream `i`'s context (without a workspace), made on first use.
  const Context &ctx(int i) {
    while (static_cast<int>(streams_.size()) <= i)
      streams_.emplace_back(tf32_);
    return streams_[static_cast<size_t>(i)].ctx;
  }

private:
  bool tf32_;
  std::deque<StreamHandles> streams_; ///< deque: contexts do not move
};

/// A CUDA event for ordering streams, destroyed with its owner.
class Event {
public:
  Event() {
    QUARRY_CUDA_CHECK(cudaEventCreateWithFlags(&e_, cudaEventDisableTiming));
  }
  ~Event() { cudaEventDestroy(e_); }
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;
  cudaEvent_t get() const { return e_; }

private:
  cudaEvent_t e_ = nullptr;
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
      : graph_(with_identical_merged(g)),
        plan_(make_plan(graph_, weights, "cuda", cuda_supports)),
        fused_(fuse_steps(graph_, plan_, cuda_fusion(opts.fuse))),
        use_graph_(opts.cuda_graphs), handles_(std::move(handles)) {
    // Fused steps run where their last node ran: buffers follow that
    // order, and what the streams let run at once.
    const std::vector<ScheduledStep> schedule =
        schedule_of(graph_, plan_, fused_);
    streams_ = assign_streams(schedule, opts.streams);
    assign_buffers(graph_, plan_, schedule,
                   streams_.streams > 1 ? &streams_.happens_before : nullptr);
    for (int64_t elems : plan_.buffer_elems)
      buffers_.push_back(std::make_unique<DeviceBuffer>(sizeof(float) * elems));
    // Each stream has its own handles and workspace; steps keep a
    // reference to their stream's context, which therefore never moves.
    contexts_.resize(static_cast<size_t>(streams_.streams));
    for (int i = 0; i < streams_.streams; ++i)
      contexts_[static_cast<size_t>(i)] = handles_->ctx(i);
    upload_static_values();
    for (size_t k = 0; k < fused_.size(); ++k)
      steps_.push_back(lower(
          fused_[k], contexts_[static_cast<size_t>(streams_.stream_of[k])]));
    for (Context &c : contexts_) {
      workspaces_.push_back(std::make_unique<DeviceBuffer>(c.workspace_bytes));
      c.workspace = workspaces_.back()->get();
    }
    for (size_t k = 0; k < fused_.size(); ++k)
      if (streams_.signals[k])
        done_.emplace(static_cast<int>(k), std::make_unique<Event>());
    if (streams_.streams > 1)
      for (int i = 0; i < streams_.streams; ++i)
        fork_join_.push_back(std::make_unique<Event>());
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
                                        cudaMemcpyHostToDevice, origin()));
    }
    QUARRY_CUDA_CHECK(cudaStreamSynchronize(origin()));
  }

  void execute() override {
    if (use_graph_ && !graph_exec_ && !capture())
      use_graph_ = false;
    if (graph_exec_)
      QUARRY_CUDA_CHECK(cudaGraphLaunch(graph_exec_, origin()));
    else
      issue();
    QUARRY_CUDA_CHECK(cudaStreamSynchronize(origin()));
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
    if (streams_.streams > 1)
      s.impl += ", on " + std::to_string(streams_.streams) + " streams in " +
                std::to_string(streams_.waves) + " waves";
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

  cudaStream_t origin() const { return contexts_.front().stream; }

  Step lower(const FusedStep &s, Context &ctx) {
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
        return host_reference(ctx, n, in, out);
      }
      if (!s.fused())
        return lower_node<CudaKernel>(ctx, graph_, plan_, id,
                                      [this](ValueRef v) { return data(v); });
      std::vector<Operand> in;
      for (ValueRef v : graph_.node(id).inputs)
        in.push_back(operand(v));
      for (const PostOp &op : s.post)
        if (op.kind == PostOp::Kind::Binary)
          in.push_back(operand(op.operand));
      const std::vector<Operand> out{operand(s.result())};
      return fused_conv(ctx, graph_.node(id), in, out, s.post);
    } catch (const Error &e) {
      throw Error(std::string(e.what()) + " (" + describe_node(graph_, id) +
                  ")");
    }
  }

  /// Queues every step on its stream, in waves: the other streams
  /// first wait for the origin stream (the inputs are there), each step for
  /// the events of its producers on other streams, and the origin for the
  /// other streams at the end, so that waiting on the origin waits for all.
  void issue() {
    fork();
    issue_steps();
    join();
  }

  void fork() {
    if (streams_.streams == 1)
      return;
    QUARRY_CUDA_CHECK(cudaEventRecord(fork_join_[0]->get(), origin()));
    for (int i = 1; i < streams_.streams; ++i)
      QUARRY_CUDA_CHECK(
          cudaStreamWaitEvent(contexts_[i].stream, fork_join_[0]->get(), 0));
  }

  void issue_steps() {
    for (int i : streams_.order) {
      const size_t k = static_cast<size_t>(i);
      cudaStream_t stream = contexts_[streams_.stream_of[k]].stream;
      for (int p : streams_.waits[k])
        QUARRY_CUDA_CHECK(cudaStreamWaitEvent(stream, done_.at(p)->get(), 0));
      steps_[k]();
      if (streams_.signals[k])
        QUARRY_CUDA_CHECK(
            cudaEventRecord(done_.at(static_cast<int>(k))->get(), stream));
    }
  }

  void join() {
    for (int i = 1; i < streams_.streams; ++i) {
      cudaEvent_t e = fork_join_[static_cast<size_t>(i)]->get();
      QUARRY_CUDA_CHECK(cudaEventRecord(e, contexts_[i].stream));
      QUARRY_CUDA_CHECK(cudaStreamWaitEvent(origin(), e, 0));
    }
  }

  /// Records every step's work on the streams into one CUDA graph, so a
  /// run is one launch instead of one per kernel; the other streams join
  /// the capture through the origin's events. False (and the streams left
  /// as they were) when some step cannot be captured: then steps are
  /// issued one by one.
  bool capture() {
    cudaStream_t stream = origin();
    if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) !=
        cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    bool ok = true;
    try {
      fork();
      issue_steps();
    } catch (const Error &) {
      ok = false;
    }
    // Every stream rejoins the origin, also after a failure, so that the
    // capture ends rather than leaving streams captured.
    try {
      join();
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
  StreamPlan streams_;
  /// Per stream: the shared handles with this executable's workspace.
  std::vector<Context> contexts_;
  std::vector<std::unique_ptr<DeviceBuffer>> buffers_;
  std::map<ValueRef, std::unique_ptr<DeviceBuffer>> static_data_;
  std::vector<std::unique_ptr<DeviceBuffer>> workspaces_;
  std::map<int, std::unique_ptr<Event>> done_; ///< by step that signals
  /// [0]: the origin's fork; [i], i > 0: stream i's join.
  std::vector<std::unique_ptr<Event>> fork_join_;
  std::vector<Step> steps_;
  int host_steps_ = 0; ///< nodes without a cuda kernel (host_reference)
};

class CudaBackend : public Backend {
public:
  explicit CudaBackend(const BackendOptions &opts) : opts_(opts) {
    if (opts.precision != "fp32" && opts.precision != "tf32")
      throw Error("backend cuda: precision '" + opts.precision +
                  "' is not supported (fp32, tf32)");
  }
  std::string_view name() const override { return "cuda"; }
  std::string device_name() const override {
    cudaDeviceProp p{};
    QUARRY_CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
    return std::string(p.name) + ", sm_" + std::to_string(p.major) +
           std::to_string(p.minor) +
           (opts_.precision == "tf32" ? ", tf32" : "");
  }
  std::unique_ptr<Executable> prepare(const Graph &g,
                                      const Bindings<float> &weights) override {
    if (cuda_device_count() == 0)
      throw Error("backend cuda: no CUDA device found");
    if (!handles_)
      handles_ = std::make_shared<Handles>(opts_.precision == "tf32");
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
