//===- backend.h - The one interface every runtime backend implements -*- C++
//-*-===//
//
// A Backend turns a Graph into an Executable once (allocates buffers, picks
// algorithms, lays weights out in the form its kernels want) and the
// Executable then runs as often as asked. Inputs are copied in with
// set_inputs(), execute() runs the graph to completion, outputs() copies the
// results back: on a GPU only execute() touches the device clock, so timing
// it measures device-resident inputs, as TASO's cost model does.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/evaluate.h"
#include "quarry/runtime/fusion_policy.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace quarry::runtime {

/// One step of a prepared graph as its backend runs it: a kernel (one
/// node, or several fused into one) or a change of layout between kernels.
struct StepInfo {
  /// "node 'y' (conv2d) +add(full) +relu", "reorder 'x' nchw -> nChw16c".
  std::string label;
  /// The implementation, e.g. oneDNN's "brgconv:avx512_core".
  std::string impl;
  /// The layout of its (first) result, e.g. "nChw16c" or "plain".
  std::string layout;
  bool reorder = false;
  /// The graph nodes it runs (none for a reorder).
  std::vector<int32_t> nodes;
  /// Median milliseconds, when timed (Executable::profile).
  double ms = 0;
  /// For a reorder, the layout it reads.
  std::string from_layout = {};
};

/// A graph prepared on one backend.
class Executable {
public:
  virtual ~Executable() = default;
  /// Copies the values of the graph's `input` variables (by name) to the
  /// backend. Every input must be bound with its declared shape; extra
  /// bindings (weights, say) are ignored. Throws quarry::Error otherwise.
  virtual void set_inputs(const Bindings<float> &inputs) = 0;
  /// Runs the graph once on the inputs last set; returns when it is done.
  virtual void execute() = 0;
  /// The graph's outputs as computed by the last execute(), in order.
  virtual std::vector<Tensor<float>> outputs() = 0;

  /// The steps execute() runs, in order. A backend that does not break its
  /// run down reports one step for the whole graph.
  virtual std::vector<StepInfo> steps() const;
  /// steps() with each step timed on its own (inputs must be set): the
  /// median of `runs` after `warmup`. The sum can exceed execute()'s time
  /// by the cost of the timing itself.
  virtual std::vector<StepInfo> profile(int warmup, int runs);
};

/// How many steps are reorders, and how many graph nodes run fused into
/// another node's kernel.
struct StepCounts {
  int kernels = 0, reorders = 0, fused_nodes = 0;
};
StepCounts count_steps(const std::vector<StepInfo> &steps);

class Backend {
public:
  virtual ~Backend() = default;
  /// "reference", "cpu" or "cuda".
  virtual std::string_view name() const = 0;
  /// The machine it runs on, e.g. the CPU model or the GPU's name; part of
  /// every cost-cache key.
  virtual std::string device_name() const = 0;
  /// Prepares `g`, whose variables must have shapes, with the values of its
  /// `weight` variables taken from `weights` (by name; extra entries are
  /// ignored). Throws quarry::Error naming the backend for a missing weight
  /// or an operator the backend cannot run.
  virtual std::unique_ptr<Executable>
  prepare(const Graph &g, const Bindings<float> &weights) = 0;
  /// Prepares a one-operator graph (single_op_graph) as that operator runs
  /// inside a network: its computed operands arrive in the layout the
  /// backend's kernels keep activations in, so that its kernel's time is
  /// the time it takes there. Getting the graph's own inputs into that
  /// layout is a reorder step of its own. Default: prepare().
  virtual std::unique_ptr<Executable>
  prepare_operator(const Graph &g, const Bindings<float> &weights) {
    return prepare(g, weights);
  }

  /// Per node of `g` (types known): whether this backend would run it
  /// inside another node's kernel (an activation or sum fused into a
  /// convolution, say), so that it costs nothing of its own. Decided from
  /// shapes alone, without preparing; safe from several threads. Empty:
  /// the backend fuses nothing.
  virtual std::vector<bool> fused_away(const Graph &g) const;
  /// The rule fused_away() follows, for asking it of a graph not built
  /// (fusion_policy.h); nullptr: the backend fuses nothing.
  virtual const FusionPolicy *fusion_policy() const { return nullptr; }

  /// The ways other than its default this backend can run node `id` of
  /// `g` (types known), each as the node's attributes with the way named
  /// (a conv2d's `alg`): the choices the optimizer weighs
  /// (optimizer/implementations.h). Safe from several threads. Default:
  /// none.
  virtual std::vector<Attrs> implementations(const Graph &g, int32_t id) const;

  /// The activation layouts other than its own choice this backend can run
  /// every convolution of a graph in (a conv2d's `layout`): a choice that
  /// pays only for a whole graph, where a layout changed on one
  /// convolution costs a reorder on each side of it, so the optimizer
  /// times it on the graph it chose (optimize.h). Default: none.
  virtual std::vector<ops::ConvLayout> graph_layouts() const { return {}; }

  /// Bytes of the device's last-level cache: a network whose weights
  /// exceed it reads every weight from memory on every run. 0: the backend
  /// models no cache.
  virtual size_t cache_bytes() const { return 0; }
  /// Pushes what the device's caches hold out to memory, so that the
  /// kernel run next reads its operands from memory, as it does inside a
  /// network whose weights exceed cache_bytes(). Default: nothing.
  virtual void evict_caches() {}
};

/// set_inputs, execute, outputs.
std::vector<Tensor<float>> run_once(Executable &e,
                                    const Bindings<float> &inputs);

} // namespace quarry::runtime
