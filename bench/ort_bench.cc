//===- ort_bench.cc - ONNX models timed in ONNX Runtime
//--------------------===//
//
// Prints JSON with, per ONNX file given, the median milliseconds of one
// session run on ONNX Runtime's CPU provider (its own graph optimizations
// at their default level, --threads intra-op threads) over --runs runs
// after --warmup, with seeded random inputs. bench/ort_compare.sh gives it
// each network before and after `quarry optimize`.
//
// --pairs takes the files two at a time (an original and its optimized
// version, say) and times each pair in alternating rounds, A then B, so a
// busy spell of the machine falls on both alike; it adds each pair's
// speed-up (A's median / B's) and their geometric mean. Two sessions are
// loaded at a time.
//
// --compare A.onnx B.onnx instead runs both once on the same seeded inputs
// (bound by position: quarry's export keeps the inputs' order) and prints
// the largest difference of their outputs relative to A's largest
// magnitude per output; it exits 1 when that exceeds --tolerance. Both run
// without ONNX Runtime's graph optimizations: it fuses the two files
// differently (a batchnorm into a convolution in one, say), and on deep
// networks the fused arithmetic alone differs by up to 1e-3. Dynamic
// dimensions take their extent from --input-shape NAME=DxD (A's names).
// --input-value NAME=NUMBER fixes an input that is a parameter (a sample
// rate) to a scalar of its own element type; `quarry --input-value` makes
// it a constant, so B may lack it, and the other inputs pair by position.
//
//   build/bin/ort_bench FILE.onnx... [--pairs] [--runs N] [--warmup N]
//       [--threads N]
//   build/bin/ort_bench --compare A.onnx B.onnx [--input-shape NAME=DxD]...
//       [--input-value NAME=NUMBER]... [--tolerance T]
//
//===----------------------------------------------------------------------===//
#include <onnxruntime_cxx_api.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Args {
  std::vector<std::string> files;
  int runs = 20, warmup = 3, threads = 1;
  bool compare = false, pairs = false;
  double tolerance = 1e-4;
  std::map<std::string, std::vector<int64_t>> shapes; ///< --input-shape
  std::map<std::string, double> values;               ///< --input-value
};

/// "name=1x3x224x224".
std::pair<std::string, std::vector<int64_t>> input_shape(const std::string &s) {
  const size_t eq = s.find('=');
  if (eq == std::string::npos)
    throw std::runtime_error("--input-shape expects NAME=DxD, got " + s);
  std::vector<int64_t> dims;
  std::string rest = s.substr(eq + 1);
  for (size_t at = 0; at <= rest.size();) {
    const size_t x = std::min(rest.find('x', at), rest.size());
    dims.push_back(std::stoll(rest.substr(at, x - at)));
    at = x + 1;
  }
  return {s.substr(0, eq), dims};
}

Args parse(int argc, char **argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--compare")
      a.compare = true;
    else if (k == "--pairs")
      a.pairs = true;
    else if (k == "--tolerance" && i + 1 < argc)
      a.tolerance = std::stod(argv[++i]);
    else if (k == "--input-shape" && i + 1 < argc)
      a.shapes.insert(input_shape(argv[++i]));
    else if (k == "--input-value" && i + 1 < argc) {
      const std::string v = argv[++i];
      const size_t eq = v.find('=');
      if (eq == std::string::npos)
        throw std::runtime_error("--input-value expects NAME=NUMBER, got " + v);
      a.values[v.substr(0, eq)] = std::stod(v.substr(eq + 1));
    } else if ((k == "--runs" || k == "--warmup" || k == "--threads") &&
               i + 1 < argc)
      (k == "--runs"     ? a.runs
       : k == "--warmup" ? a.warmup
                         : a.threads) = std::stoi(argv[++i]);
    else
      a.files.push_back(k);
  }
  return a;
}

/// A session with seeded random inputs in [-1, 1) bound to it.
struct Bound {
  Ort::Session session;
  std::vector<std::vector<float>> data;
  /// The values of inputs fixed by --input-value.
  std::vector<int64_t> fixed_ints;
  std::vector<float> fixed_floats;
  std::vector<Ort::Value> inputs;
  std::vector<std::string> in_names, out_names;
  /// Per input: the index into `data` of its values, -1 when fixed.
  std::vector<int> random_index;

  Bound(Ort::Env &env, const std::string &file, const Args &a)
      : session(env, file.c_str(), options(a)) {
    Ort::AllocatorWithDefaultOptions alloc;
    const auto mem =
        Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    // Fixed inputs' storage must not move once tensors wrap it.
    fixed_ints.reserve(session.GetInputCount());
    fixed_floats.reserve(session.GetInputCount());
    data.reserve(session.GetInputCount());
    for (size_t i = 0; i < session.GetInputCount(); ++i) {
      in_names.push_back(session.GetInputNameAllocated(i, alloc).get());
      const Ort::TypeInfo type = session.GetInputTypeInfo(i);
      const auto info = type.GetTensorTypeAndShapeInfo();
      auto shape = info.GetShape();
      if (auto v = a.values.find(in_names.back()); v != a.values.end()) {
        random_index.push_back(-1);
        const std::vector<int64_t> scalar;
        if (info.GetElementType() == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64) {
          fixed_ints.push_back(static_cast<int64_t>(v->second));
          inputs.push_back(Ort::Value::CreateTensor<int64_t>(
              mem, &fixed_ints.back(), 1, scalar.data(), 0));
        } else if (info.GetElementType() ==
                   ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) {
          fixed_floats.push_back(static_cast<float>(v->second));
          inputs.push_back(Ort::Value::CreateTensor<float>(
              mem, &fixed_floats.back(), 1, scalar.data(), 0));
        } else {
          throw std::runtime_error(file + ": --input-value " + in_names.back() +
                                   ": only int64 and float inputs");
        }
        continue;
      }
      if (info.GetElementType() != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT)
        throw std::runtime_error(file + ": input '" + in_names.back() +
                                 "' is not float; fix it with "
                                 "--input-value");
      random_index.push_back(static_cast<int>(data.size()));
      if (auto given = a.shapes.find(in_names.back()); given != a.shapes.end())
        shape = given->second;
      int64_t n = 1;
      for (int64_t d : shape) {
        if (d < 1)
          throw std::runtime_error(file + ": input '" + in_names.back() +
                                   "' has a dynamic dimension; give "
                                   "--input-shape");
        n *= d;
      }
      data.emplace_back(static_cast<size_t>(n));
      for (float &v : data.back())
        v = dist(rng);
      inputs.push_back(Ort::Value::CreateTensor<float>(
          mem, data.back().data(), data.back().size(), shape.data(),
          shape.size()));
    }
    for (size_t i = 0; i < session.GetOutputCount(); ++i)
      out_names.push_back(session.GetOutputNameAllocated(i, alloc).get());
  }

  static Ort::SessionOptions options(const Args &a) {
    Ort::SessionOptions opts;
    opts.SetIntraOpNumThreads(a.threads);
    opts.SetInterOpNumThreads(1);
    if (a.compare) // what the files compute, not what ORT fuses them into
      opts.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_DISABLE_ALL);
    return opts;
  }

  std::vector<Ort::Value> run() {
    std::vector<const char *> in_c, out_c;
    for (const auto &s : in_names)
      in_c.push_back(s.c_str());
    for (const auto &s : out_names)
      out_c.push_back(s.c_str());
    return session.Run(Ort::RunOptions{nullptr}, in_c.data(), inputs.data(),
                       inputs.size(), out_c.data(), out_c.size());
  }
};

double elapsed_ms(Bound &b) {
  const auto t0 = std::chrono::steady_clock::now();
  b.run();
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t0)
      .count();
}

double median(std::vector<double> ms) {
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return ms[ms.size() / 2];
}

/// The medians of two files timed in alternating rounds.
std::pair<double, double> alternating_medians(Ort::Env &env,
                                              const std::string &x,
                                              const std::string &y,
                                              const Args &a) {
  Bound first(env, x, a), second(env, y, a);
  for (int i = 0; i < a.warmup; ++i) {
    first.run();
    second.run();
  }
  std::vector<double> ms_x, ms_y;
  for (int i = 0; i < a.runs; ++i) {
    ms_x.push_back(elapsed_ms(first));
    ms_y.push_back(elapsed_ms(second));
  }
  return {median(ms_x), median(ms_y)};
}

double median_ms(Ort::Env &env, const std::string &file, const Args &a) {
  Bound b(env, file, a);
  for (int i = 0; i < a.warmup; ++i)
    b.run();
  std::vector<double> ms;
  for (int i = 0; i < a.runs; ++i)
    ms.push_back(elapsed_ms(b));
  return median(ms);
}

/// Per output: max |a - b| / max |a|; the largest over outputs.
double max_relative_difference(Ort::Env &env, const Args &a) {
  Bound first(env, a.files[0], a), second(env, a.files[1], a);
  if (first.data.size() != second.data.size())
    throw std::runtime_error("the models take different numbers of inputs "
                             "(besides those --input-value fixes)");
  // The same values, bound by position, into the buffers B's tensors wrap.
  for (size_t i = 0; i < second.data.size(); ++i) {
    if (second.data[i].size() != first.data[i].size())
      throw std::runtime_error("input " + std::to_string(i) +
                               " differs in size");
    std::copy(first.data[i].begin(), first.data[i].end(),
              second.data[i].begin());
  }
  auto x = first.run(), y = second.run();
  if (x.size() != y.size())
    throw std::runtime_error("the models give different numbers of outputs");
  double worst = 0;
  for (size_t k = 0; k < x.size(); ++k) {
    const size_t n = x[k].GetTensorTypeAndShapeInfo().GetElementCount();
    if (n != y[k].GetTensorTypeAndShapeInfo().GetElementCount())
      throw std::runtime_error("output " + std::to_string(k) +
                               " differs in size");
    const float *p = x[k].GetTensorData<float>(),
                *q = y[k].GetTensorData<float>();
    double scale = 0, diff = 0;
    for (size_t i = 0; i < n; ++i) {
      scale = std::max(scale, static_cast<double>(std::fabs(p[i])));
      diff = std::max(diff, static_cast<double>(std::fabs(p[i] - q[i])));
    }
    worst = std::max(worst, scale > 0 ? diff / scale : diff);
  }
  return worst;
}

} // namespace

int main(int argc, char **argv) {
  try {
    const Args a = parse(argc, argv);
    Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "ort_bench");
    if (a.compare) {
      if (a.files.size() != 2)
        throw std::runtime_error("--compare takes two ONNX files");
      const double d = max_relative_difference(env, a);
      const bool equal = d <= a.tolerance;
      std::printf("%s\n", nlohmann::json{{"a", a.files[0]},
                                         {"b", a.files[1]},
                                         {"max_relative_difference", d},
                                         {"tolerance", a.tolerance},
                                         {"equal", equal}}
                              .dump()
                              .c_str());
      return equal ? 0 : 1;
    }
    nlohmann::json out;
    out["onnxruntime"] = Ort::GetVersionString();
    out["threads"] = a.threads;
    out["runs"] = a.runs;
    if (a.pairs) {
      if (a.files.size() % 2 != 0)
        throw std::runtime_error("--pairs takes an even number of files");
      double log_sum = 0;
      for (size_t i = 0; i < a.files.size(); i += 2) {
        const auto [x, y] =
            alternating_medians(env, a.files[i], a.files[i + 1], a);
        out["files"].push_back({{"file", a.files[i]}, {"median_ms", x}});
        out["files"].push_back({{"file", a.files[i + 1]}, {"median_ms", y}});
        out["pairs"].push_back(
            {{"a", a.files[i]}, {"b", a.files[i + 1]}, {"speedup", x / y}});
        log_sum += std::log(x / y);
      }
      out["geomean_speedup"] =
          std::exp(log_sum / static_cast<double>(a.files.size() / 2));
    } else {
      for (const std::string &f : a.files)
        out["files"].push_back(
            {{"file", f}, {"median_ms", median_ms(env, f, a)}});
    }
    std::printf("%s\n", out.dump(2).c_str());
  } catch (const std::exception &e) {
    std::fprintf(stderr, "ort_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
