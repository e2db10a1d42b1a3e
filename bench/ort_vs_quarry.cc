//===- ort_vs_quarry.cc - The same ONNX file in ONNX Runtime and quarry ---===//
//
// Prints JSON: per ONNX file and thread count, the median milliseconds of
// one inference in ONNX Runtime (CPU provider, all graph optimizations,
// that many intra-op threads) and in quarry's cpu backend (that many
// OpenMP threads), timed alternately in one process, run after run, on the
// same seeded random inputs, in alternating blocks of --block runs each;
// their ratio (quarry / ONNX Runtime, below 1 when quarry is faster), and
// the ratio of their fastest runs (what other load on the machine cannot
// inflate); the largest relative difference between the two engines'
// outputs; how quarry ran the graph (kernels, nodes fused, reorders); and
// the network's roofline on this machine at that thread count (roofline.h:
// its FLOPs at the core's measured peak, its weights at the measured
// bandwidth, each engine's time over the larger; the limits measured before
// the runs and after them). Before each block a pause (--gap-ms) and one
// untimed run let the other engine's idle threads stop spinning. The JSON
// names the commit of the sources, the date, the command and the machine.
//
// A file given as A.onnx:B.qg runs A in ONNX Runtime and B in quarry:
// what `quarry optimize --graph A.onnx --out B.qg` wrote, end to end
// against the original.
//
//   build/bin/ort_vs_quarry FILE.onnx[:OPTIMIZED.qg]... [--threads 1,2]
//       [--runs N] [--warmup N] [--block N] [--gap-ms M] [--seed S]
//       [--input-shape NAME=DxD]... [--denormals zero|keep]
//       [--ort-denormals zero|keep]
//
// --input-shape fixes a dynamic input's dimensions (as `quarry run` does);
// both engines then run that shape. Each engine runs with its own default
// for denormal floats (quarry takes them as zero, ONNX Runtime keeps them)
// unless --denormals or --ort-denormals says otherwise; the JSON says which.
//
//===----------------------------------------------------------------------===//
#include "bench_cli.h"
#include "provenance.h"
#include "roofline.h"

#include "quarry/core/split_list.h"
#include "quarry/core/timed_in_turn.h"
#include "quarry/models/model_file.h"
#include "quarry/runtime/backends.h"
#include "quarry/runtime/run_inputs.h"
#include "quarry/staged/staged_executable.h"

#include <onnxruntime_cxx_api.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace {

using namespace quarry;

struct Args {
  std::vector<std::string> files;
  std::vector<int> threads{1, 2};
  int runs = 15, warmup = 3, gap_ms = 100, block = 3;
  uint64_t seed = 1;
  OnnxImportOptions import;
  /// Denormal floats taken as zero (cpu/denormals.h): quarry's default,
  /// ONNX Runtime's on request (session.set_denormal_as_zero).
  std::string denormals = "zero", ort_denormals = "keep";
};

Args parse(int argc, char **argv) {
  Args a;
  std::vector<std::string> shapes;
  CLI::App app{"The same ONNX file in ONNX Runtime and quarry, as JSON",
               "ort_vs_quarry"};
  bench::flag_defaults(app);
  app.add_option("FILE", a.files,
                 "ONNX files; A.onnx:B.qg runs A in ONNX Runtime and B in "
                 "quarry");
  app.add_option("--threads", a.threads,
                 "Thread counts, comma-separated: each file runs at each")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--runs", a.runs,
                 "Timed runs per engine (rounded up to whole blocks)")
      ->check(bench::at_least(1));
  app.add_option("--warmup", a.warmup, "Untimed runs of each engine first");
  app.add_option("--block", a.block,
                 "Runs of one engine in a row (at least 1)");
  app.add_option("--gap-ms", a.gap_ms,
                 "Pause before each block, in milliseconds");
  app.add_option("--seed", a.seed, "Seed of the random inputs");
  app.add_option("--input-shape", shapes,
                 "Fix a dynamic input's dimensions, NAME=DxD (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--denormals", a.denormals,
                 "quarry: denormal floats taken as zero (zero, its default) "
                 "or kept (keep)")
      ->check(CLI::IsMember({"zero", "keep"}));
  app.add_option("--ort-denormals", a.ort_denormals,
                 "ONNX Runtime: denormal floats kept (keep, its default) or "
                 "taken as zero (zero: session.set_denormal_as_zero)")
      ->check(CLI::IsMember({"zero", "keep"}));
  bench::parse_or_exit(app, argc, argv);
  if (a.files.empty())
    bench::usage_error(app, "FILE is required");
  a.block = std::max(1, a.block);
  a.runs = (a.runs + a.block - 1) / a.block * a.block; // whole blocks
  for (const std::string &s : shapes)
    a.import.input_shapes.insert(parse_input_shape(s));
  return a;
}

/// One ONNX Runtime session over fixed input tensors.
class OrtRunner {
public:
  /// `inputs`: the graph's inputs as quarry names them, in the file's
  /// order (import spells some ONNX names its own way: input is v_input).
  /// The values of a float16 or bfloat16 input are rounded to its type in
  /// `values`, so that quarry is given what ONNX Runtime is.
  OrtRunner(Ort::Env &env, const std::string &file, int threads,
            bool denormals_as_zero, Bindings<float> &values,
            const std::vector<std::string> &inputs)
      : session_(env, file.c_str(), options(threads, denormals_as_zero)) {
    Ort::AllocatorWithDefaultOptions alloc;
    const auto mem =
        Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
    const size_t count = session_.GetInputCount();
    for (size_t i = 0; i < count; ++i) {
      in_names_.push_back(session_.GetInputNameAllocated(i, alloc).get());
      auto it = values.find(in_names_.back());
      if (it == values.end() && inputs.size() == count)
        it = values.find(inputs[i]);
      if (it == values.end())
        throw std::runtime_error(file + ": no value for ONNX input '" +
                                 in_names_.back() + "'");
      const auto &dims = it->second.shape.dims;
      const auto elem = session_.GetInputTypeInfo(i)
                            .GetTensorTypeAndShapeInfo()
                            .GetElementType();
      if (elem == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16 ||
          elem == ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16) {
        std::vector<uint16_t> bits;
        for (float &v : it->second.data) {
          if (elem == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16) {
            const Ort::Float16_t h(v);
            bits.push_back(h.val);
            v = h.ToFloat();
          } else {
            const Ort::BFloat16_t h(v);
            bits.push_back(h.val);
            v = h.ToFloat();
          }
        }
        halves_.push_back(std::move(bits));
        inputs_.push_back(Ort::Value::CreateTensor(
            mem, halves_.back().data(), halves_.back().size() * 2, dims.data(),
            dims.size(), elem));
        continue;
      }
      data_.push_back(it->second.data);
      inputs_.push_back(Ort::Value::CreateTensor<float>(
          mem, data_.back().data(), data_.back().size(), dims.data(),
          dims.size()));
    }
    for (size_t i = 0; i < session_.GetOutputCount(); ++i)
      out_names_.push_back(session_.GetOutputNameAllocated(i, alloc).get());
  }

  std::vector<Ort::Value> run() {
    std::vector<const char *> in_c, out_c;
    for (const auto &s : in_names_)
      in_c.push_back(s.c_str());
    for (const auto &s : out_names_)
      out_c.push_back(s.c_str());
    return session_.Run(Ort::RunOptions{nullptr}, in_c.data(), inputs_.data(),
                        inputs_.size(), out_c.data(), out_c.size());
  }

  std::vector<Tensor<float>> outputs() {
    std::vector<Tensor<float>> out;
    for (Ort::Value &v : run()) {
      const auto info = v.GetTensorTypeAndShapeInfo();
      const auto shape = info.GetShape();
      // quarry holds integers and bools as float32: so are they compared.
      std::vector<float> values(info.GetElementCount());
      switch (info.GetElementType()) {
      case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64:
        std::copy_n(v.GetTensorData<int64_t>(), values.size(), values.begin());
        break;
      case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32:
        std::copy_n(v.GetTensorData<int32_t>(), values.size(), values.begin());
        break;
      case ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL:
        std::copy_n(v.GetTensorData<bool>(), values.size(), values.begin());
        break;
      case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16:
        for (size_t i = 0; i < values.size(); ++i)
          values[i] = v.GetTensorData<Ort::Float16_t>()[i].ToFloat();
        break;
      case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16:
        for (size_t i = 0; i < values.size(); ++i)
          values[i] = v.GetTensorData<Ort::BFloat16_t>()[i].ToFloat();
        break;
      default:
        std::copy_n(v.GetTensorData<float>(), values.size(), values.begin());
      }
      out.emplace_back(Shape(std::vector<int64_t>(shape.begin(), shape.end())),
                       std::move(values));
    }
    return out;
  }

private:
  static Ort::SessionOptions options(int threads, bool denormals_as_zero) {
    Ort::SessionOptions o;
    if (denormals_as_zero)
      o.AddConfigEntry("session.set_denormal_as_zero", "1");
    o.SetIntraOpNumThreads(threads);
    o.SetInterOpNumThreads(1);
    o.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_ENABLE_ALL);
    return o;
  }
  Ort::Session session_;
  std::vector<std::string> in_names_, out_names_;
  std::vector<std::vector<float>> data_;
  std::vector<std::vector<uint16_t>> halves_; ///< float16 and bfloat16 bits
  std::vector<Ort::Value> inputs_;
};

/// One file at one thread count: the JSON of its timings, without the
/// roofline, which main() adds once the machine's limits are final.
struct Compared {
  nlohmann::json json;
  bench::Work work;
  size_t machine = 0; ///< which of main()'s machines (thread counts)
};

Compared compare(Ort::Env &env, const std::string &file, int threads,
                 const Args &a) {
  // "A.onnx:B.qg": ONNX Runtime runs A, quarry B (what quarry optimize
  // wrote for A, with the implementations it chose).
  std::string ort_file = file, quarry_file = file;
  if (const size_t at = file.find(".onnx:"); at != std::string::npos) {
    ort_file = file.substr(0, at + 5);
    quarry_file = file.substr(at + 6);
  }
  const Model m = load_graph_any(quarry_file, a.import);
  Bindings<float> values = runtime::random_run_bindings(m.graph, a.seed);
  for (const auto &[name, t] : m.weights)
    values[name] = t;
  std::vector<std::string> inputs;
  for (const Node &n : m.graph.nodes())
    if (n.kind == OpKind::Input)
      inputs.push_back(n.name);
  OrtRunner ort(env, ort_file, threads, a.ort_denormals == "zero", values,
                inputs);
  runtime::BackendOptions opts;
  opts.threads = threads;
  opts.denormals_as_zero = a.denormals == "zero";
  auto backend = runtime::make_backend("cpu", opts);
  // A model that keeps nodes (a detector's NonMaxSuppression) runs in
  // stages around them, as `quarry run` runs it.
  std::unique_ptr<runtime::Executable> exe =
      staged::prepare_model(m, values, *backend, quarry_file);
  exe->set_inputs(values);

  // Rounds (timed_in_turn.h): a pause, one untimed run, then `block` timed
  // runs of one engine, the same for the other. Each engine's idle worker
  // threads spin for a while after a run; the pause and the untimed run
  // keep that out of the other engine's timings.
  TurnPolicy policy;
  policy.block = a.block;
  policy.rounds = a.runs / a.block;
  policy.warmup_rounds = a.warmup;
  policy.gap_ms = a.gap_ms;
  const auto ms =
      time_in_turn(std::vector<std::function<double()>>{
                       [&] { return time_ms([&] { ort.run(); }); },
                       [&] { return time_ms([&] { exe->execute(); }); }},
                   policy);
  const std::vector<double> &ort_ms = ms[0], &quarry_ms = ms[1];
  const double err = runtime::max_relative_error(exe->outputs(), ort.outputs());
  const auto counts = runtime::count_steps(exe->steps());
  const double om = median(ort_ms), qm = median(quarry_ms);
  const double omin = *std::min_element(ort_ms.begin(), ort_ms.end());
  const double qmin = *std::min_element(quarry_ms.begin(), quarry_ms.end());
  nlohmann::json j = {{"file", bench::portable_paths(file)},
                      {"threads", threads},
                      {"onnxruntime_ms", om},
                      {"quarry_ms", qm},
                      {"quarry_over_onnxruntime", qm / om},
                      {"onnxruntime_min_ms", omin},
                      {"quarry_min_ms", qmin},
                      {"quarry_over_onnxruntime_min", qmin / omin},
                      {"max_relative_difference", err},
                      {"quarry_steps",
                       {{"kernels", counts.kernels},
                        {"fused_nodes", counts.fused_nodes},
                        {"reorders", counts.reorders}}}};
  return {std::move(j), bench::work_of(m.graph)};
}

} // namespace

int main(int argc, char **argv) {
  try {
    const Args a = parse(argc, argv);
    Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "ort_vs_quarry");
    nlohmann::json out = bench::provenance(argc, argv);
    out["onnxruntime"] = Ort::GetVersionString();
    out["device"] = runtime::make_backend("cpu")->device_name();
    out["denormals"] = {{"quarry", a.denormals},
                        {"onnxruntime", a.ort_denormals}};
    out["runs"] = a.runs;
    out["warmup"] = a.warmup;
    out["block"] = a.block;
    out["gap_ms"] = a.gap_ms;
    // The limits are measured before the runs and again after them, each
    // the better of the two (roofline.h).
    std::vector<bench::Machine> machines;
    for (int t : a.threads)
      machines.push_back(bench::measure_machine(t));
    std::vector<Compared> results;
    for (const std::string &f : a.files)
      for (size_t i = 0; i < a.threads.size(); ++i) {
        results.push_back(compare(env, f, a.threads[i], a));
        results.back().machine = i;
        std::fprintf(stderr, "%s, %d threads: done\n", f.c_str(), a.threads[i]);
      }
    for (bench::Machine &m : machines) {
      m = m.best_of(bench::measure_machine(m.threads));
      out["machine"].push_back(m.to_json());
    }
    for (Compared &r : results) {
      r.json["roofline"] = bench::roofline(
          r.work, machines[r.machine], r.json["quarry_ms"].get<double>(),
          r.json["onnxruntime_ms"].get<double>());
      out["results"].push_back(std::move(r.json));
    }
    std::printf("%s\n", out.dump(2).c_str());
  } catch (const std::exception &e) {
    std::fprintf(stderr, "ort_vs_quarry: %s\n", e.what());
    return 1;
  }
  return 0;
}
