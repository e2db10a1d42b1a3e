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

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace quarry::runtime {

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
};

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
};

/// set_inputs, execute, outputs.
std::vector<Tensor<float>> run_once(Executable &e,
                                    const Bindings<float> &inputs);

} // namespace quarry::runtime
