//===- cmd_run.cc - quarry run: execute a graph on a backend --------------===//
#include "commands.h"
#include "run_flags.h"

#include "quarry/models/onnx.h"
#include "quarry/models/onnx_stages.h"
#include "quarry/models/tensor_file.h"
#include "quarry/runtime/backends.h"
#include "quarry/runtime/measure.h"
#include "quarry/runtime/plan.h"
#include "quarry/runtime/run_inputs.h"
#include "quarry/staged/staged_executable.h"

#include <algorithm>
#include <cstdio>
#include <memory>

namespace quarry::cli {

namespace {

struct RunOptions : RunFlags {
  std::vector<std::string> inputs; ///< NAME=FILE
  std::string save_outputs;
  bool check = false;
  bool profile = false;
  double tolerance = -1; ///< unset: runtime::precision_tolerance's
};

/// Writes `outputs` to `dir` (save_output_files) named and typed as the
/// model declares them: under the model's own names where it runs in
/// stages (an untyped tail computes some), else the graph's; in the
/// element types an imported model declares (an index, a mask) unless a
/// rewrite or a builder changed its outputs, else float32.
std::vector<std::string> save_outputs(const Model &m,
                                      const std::vector<Tensor<float>> &outputs,
                                      const std::string &dir) {
  const bool in_stages = staged::needs_stages(m);
  std::vector<std::string> names;
  std::vector<int32_t> elems;
  if (!m.kept_onnx.empty()) {
    const KeptOnnx kept(m, "");
    if (in_stages)
      names = kept.model_output_names();
    elems = kept.model_output_elems();
  }
  if (!in_stages) {
    for (ValueRef v : m.graph.outputs())
      names.push_back(m.graph.node(v.node).name);
    if (elems.size() != m.graph.outputs().size())
      elems.clear();
  }
  return save_output_files(names, outputs, dir, elems);
}

/// What to add to a failed run's message where the model's integer
/// parameters ran on made-up values (no --input gave them): their names
/// (the first three), and the flag that fixes them. Empty otherwise.
std::string made_up_hint(const Model &m, const RunOptions &o) {
  if (m.kept_onnx.empty())
    return "";
  std::vector<std::string> made_up;
  for (const std::string &name : KeptOnnx(m, "").integer_parameters())
    if (std::none_of(o.inputs.begin(), o.inputs.end(), [&](const auto &spec) {
          return spec.rfind(name + "=", 0) == 0;
        }))
      made_up.push_back(name);
  if (made_up.empty())
    return "";
  std::string names;
  for (size_t i = 0; i < made_up.size() && i < 3; ++i)
    names += (i ? ", '" : "'") + made_up[i] + "'";
  if (made_up.size() > 3)
    names += " and " + std::to_string(made_up.size() - 3) + " more";
  return "; quarry made up the values of integer input" +
         std::string(made_up.size() > 1 ? "s " : " ") + names +
         " (fix them with --input-value NAME=... or --input NAME=FILE)";
}

void run(const RunOptions &o) {
  const Model m = read_run_model(o);
  const Graph &g = m.graph;
  Bindings<float> values = run_values(m, o.measure.seed);
  for (auto &[name, value] : read_input_files(g, o.inputs))
    values[name] = std::move(value);
  auto backend = make_run_backend(o);
  std::unique_ptr<runtime::Executable> exe;
  double ms = 0;
  try {
    exe = staged::prepare_model(m, values, *backend, run_subject(o));
    exe->set_inputs(values);
    if (o.profile)
      print_steps(exe->profile(o.measure.warmup, o.measure.runs));
    ms = runtime::median_ms(*exe, o.measure);
  } catch (const Error &e) {
    const std::string hint = made_up_hint(m, o);
    if (hint.empty())
      throw;
    throw Error(e.what() + hint);
  }
  std::printf("%s (%s): median %.4f ms over %d runs after %d warm-up\n",
              o.backend.c_str(), backend->device_name().c_str(), ms,
              o.measure.runs, o.measure.warmup);
  if (!o.save_outputs.empty())
    for (const std::string &f :
         save_outputs(m, runtime::run_once(*exe, values), o.save_outputs))
      std::printf("wrote %s\n", f.c_str());
  if (!o.check)
    return;
  auto reference = runtime::make_backend("reference");
  double err = 0;
  if (auto *staged = dynamic_cast<staged::StagedExecutable *>(exe.get())) {
    // Stage by stage: a kept TopK or NonMaxSuppression decides on the same
    // values on both backends.
    staged->check_against(reference.get());
    runtime::run_once(*staged, values);
    err = staged->checked_error();
    std::printf("max relative error vs reference, each stage on the same "
                "inputs: %.3g\n",
                err);
  } else {
    const auto want =
        runtime::run_once(*reference->prepare(m.graph, values), values);
    err = runtime::max_relative_error(exe->outputs(), want);
    std::printf("max relative error vs reference: %.3g\n", err);
  }
  const double tolerance = o.tolerance >= 0
                               ? o.tolerance
                               : runtime::precision_tolerance(o.precision);
  if (!(err <= tolerance))
    throw Error(run_subject(o) + ": " + o.backend +
                " differs from the reference by " + std::to_string(err) +
                ", more than --tolerance " + std::to_string(tolerance) +
                (o.tolerance >= 0 ? "" : " (" + o.precision + "'s)"));
}

} // namespace

void register_run_command(CLI::App &app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App *cmd = app.add_subcommand(
      "run", "Run a graph on a backend and report its median latency");
  add_run_flags(*cmd, *o);
  cmd->add_option("--input", o->inputs,
                  "Run on this value for an input: NAME=FILE, an ONNX "
                  "TensorProto (.pb) or a NumPy array (.npy); inputs not "
                  "given get seeded random values");
  cmd->add_option("--save-outputs", o->save_outputs,
                  "Write the outputs to DIR/output_K.pb (ONNX TensorProto, "
                  "of the element type the model declares)");
  cmd->add_flag("--check", o->check,
                "Also run the reference backend and report the largest "
                "relative error");
  cmd->add_flag("--profile", o->profile,
                "Also time each step alone (kernels, fused chains, reorders) "
                "and print them");
  cmd->add_option("--tolerance", o->tolerance,
                  "With --check: fail when the error is larger (default: "
                  "1e-4 at fp32, 1e-2 at tf32, 5e-2 at bf16 and fp16)");
  cmd->callback([o] { run(*o); });
}

} // namespace quarry::cli
