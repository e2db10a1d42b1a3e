//===- run_flags.cc - Flags shared by run, cost and optimize --------------===//
#include "run_flags.h"

#include "cli_grammar.h"

#include "quarry/models/model_file.h"
#include "quarry/models/onnx_stages.h"
#include "quarry/models/zoo.h"
#include "quarry/runtime/backends.h"
#include "quarry/runtime/run_inputs.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace quarry::cli {

void add_streams_flag(CLI::App &cmd, int &streams, const std::string &help) {
  cmd.add_option("--streams", streams, help)
      ->transform(CLI::Transformer({{"auto", "0"}}))
      ->check(CLI::Validator(
          [](const std::string &v) {
            return !v.empty() && v.size() < 4 &&
                           v.find_first_not_of("0123456789") ==
                               std::string::npos
                       ? std::string()
                       : "'" + v + "' is not a count of streams or auto";
          },
          "N|auto"));
}

void add_run_flags(CLI::App &cmd, RunFlags &f) {
  add_model_argument(cmd, f.model);
  cmd.add_option("--input-shape", f.input_shapes,
                 "ONNX graphs: fix an input's dimensions, name=1x3x224x224 "
                 "(repeat per input)");
  cmd.add_option("--input-value", f.input_values,
                 "ONNX graphs: fix a parameter input's value (Resize scales, "
                 "a sample rate), name=FILE (.pb or .npy) or name=NUMBER; "
                 "it becomes a constant");
  cmd.add_option("--backend", f.backend, "reference, cpu or cuda")
      ->check(CLI::IsMember({"reference", "cpu", "cuda"}));
  cmd.add_option("--batch", f.batch,
                 "Replace dimension 0 of every input with this")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--size", f.size,
                 "A built-in network: image size, sequence length or steps "
                 "(default: its own)")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--threads", f.threads,
                 "Threads to run on (0: OMP_NUM_THREADS when set, else every "
                 "core)")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--layout", f.layout,
                 "cpu: run every convolution in this activation layout "
                 "(nchw, nhwc, nChw8c, nChw16c; default: the backend chooses)");
  add_streams_flag(cmd, f.streams,
                   "cuda: streams independent operators run on at once, or "
                   "auto (as many as the widest set of independent "
                   "operators, up to 8); 1 runs them in order");
  cmd.add_option("--precision", f.precision,
                 "Arithmetic: fp32; tf32 (cuda's matrix units on float32); "
                 "bf16 (cpu with avx512_bf16: convolutions on bfloat16 "
                 "operands, float32 sums)")
      ->check(CLI::IsMember({"fp32", "tf32", "fp16", "bf16"}));
  cmd.add_option("--denormals", f.denormals,
                 "cpu: floats below 2^-126 read and written as zero (zero, "
                 "the default: x86 cores multiply them tens of times "
                 "slower) or kept as IEEE arithmetic computes them (keep)")
      ->check(CLI::IsMember({"zero", "keep"}));
  cmd.add_option("--runs", f.measure.runs,
                 "Timed runs (the median is reported)")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--warmup", f.measure.warmup, "Untimed runs before timing")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--seed", f.measure.seed,
                 "Seed of the random inputs and weights");
}

runtime::BackendOptions run_backend_options(const RunFlags &f) {
  runtime::BackendOptions opts;
  opts.threads = f.threads;
  opts.layout = f.layout;
  opts.streams = f.streams;
  opts.precision = f.precision;
  opts.denormals_as_zero = f.denormals == "zero";
  return opts;
}

std::unique_ptr<runtime::Backend> make_run_backend(const RunFlags &f) {
  return runtime::make_backend(f.backend, run_backend_options(f));
}

std::string model_file(const RunFlags &f) {
  return names_builtin(f.model) ? std::string() : f.model;
}

OnnxImportOptions run_import_options(const RunFlags &f) {
  OnnxImportOptions onnx;
  for (const std::string &s : f.input_shapes)
    onnx.input_shapes.insert(parse_input_shape(s));
  for (const std::string &s : f.input_values)
    onnx.input_values.insert(parse_input_value(s));
  return onnx;
}

Model read_run_model(const RunFlags &f) {
  if (f.model.empty())
    throw UsageError("give the model: a .qg or .onnx file, or a built-in "
                     "network (quarry models list)");
  if (names_builtin(f.model)) {
    bool known = false;
    for (const ModelInfo &info : model_list())
      known = known || info.name == f.model;
    if (!known)
      throw Error(f.model + ": no such file, and no built-in network of that "
                            "name (quarry models list)");
    if (!f.input_shapes.empty() || !f.input_values.empty())
      throw UsageError("--input-shape and --input-value apply to ONNX "
                       "models, not to the built-in network " +
                       f.model);
    ModelOptions opts;
    opts.batch = f.batch > 0 ? f.batch : 1;
    opts.size = f.size;
    opts.seed = f.measure.seed;
    return build_model(f.model, opts);
  }
  if (f.size != 0)
    throw UsageError(f.model + ": --size applies to built-in networks (a "
                               "file declares its inputs)");
  const OnnxImportOptions onnx = run_import_options(f);
  if ((!onnx.input_shapes.empty() || !onnx.input_values.empty()) &&
      !f.model.ends_with(".onnx"))
    throw UsageError(f.model + ": --input-shape and --input-value apply to "
                               "ONNX models only (a .qg graph declares its "
                               "inputs)");
  Model m = load_graph_any(f.model, onnx);
  if (f.batch == 0)
    return m;
  try {
    m.graph = runtime::with_batch(m.graph, f.batch);
  } catch (const Error &e) {
    throw Error(f.model + ": " + e.what());
  }
  return m;
}

std::string cost_cache_path(const std::string &flag) {
  if (!flag.empty())
    return flag;
  if (const char *env = std::getenv("QUARRY_COST_CACHE"); env && *env)
    return env;
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/quarry/op_costs.tsv";
  throw Error("cost: no cost cache given and neither QUARRY_COST_CACHE nor "
              "HOME is set");
}

void print_steps(const std::vector<runtime::StepInfo> &steps,
                 const std::string &tail) {
  std::printf("%10s  %-8s  %-24s  %s\n", "ms", "layout", "implementation",
              "step");
  double kernels = 0, reorders = 0;
  for (const auto &s : steps) {
    (s.reorder ? reorders : kernels) += s.ms;
    std::printf("%10.4f  %-8s  %-24s  %s\n", s.ms, s.layout.c_str(),
                s.impl.c_str(), s.label.c_str());
  }
  const auto n = runtime::count_steps(steps);
  std::printf("kernels %.4f ms (%d, with %d nodes fused into another's "
              "kernel) + reorders %.4f ms (%d) = %.4f ms%s\n",
              kernels, n.kernels, n.fused_nodes, reorders, n.reorders,
              kernels + reorders, tail.c_str());
}

Bindings<float> run_values(const Model &m, uint64_t seed) {
  // Random weights only where the model has none: a model's weights are
  // most of its memory, and would be made to be dropped.
  bool has_weights = true;
  for (const Node &n : m.graph.nodes())
    has_weights = has_weights &&
                  (n.kind != OpKind::Weight || m.weights.count(n.name) > 0);
  Bindings<float> values = has_weights
                               ? runtime::random_run_inputs(m.graph, seed)
                               : runtime::random_run_bindings(m.graph, seed);
  for (const auto &[name, tensor] : m.weights)
    values[name] = tensor;
  if (m.kept_onnx.empty())
    return values;
  // The model's integer inputs (a count, indices, a flag) get made-up
  // values of their kind, not fractions in [-1, 1): small positive
  // integers, and 0 or 1 for a bool, the likeliest to be valid.
  const KeptOnnx kept(m, "");
  for (const Node &n : m.graph.nodes()) {
    if (n.kind != OpKind::Input || !values.count(n.name))
      continue;
    const int32_t e = kept.variable_elem(n.name);
    using T = onnx::TensorProto;
    if (e == T::FLOAT || e == T::FLOAT16 || e == T::BFLOAT16 || e == T::DOUBLE)
      continue;
    for (float &x : values.at(n.name).data)
      x = e == T::BOOL ? (x >= 0 ? 1.0f : 0.0f)
                       : std::min(3.0f, 1.0f + std::floor(std::fabs(x) * 3));
  }
  return values;
}

} // namespace quarry::cli
