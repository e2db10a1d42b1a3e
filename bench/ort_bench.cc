//===- ort_bench.cc - ONNX models timed in ONNX Runtime
//--------------------===//
//
// Prints JSON with, per ONNX file given, the median milliseconds of one
// session run on ONNX Runtime's CPU provider (its own graph optimizations
// at their default level, --threads intra-op threads) over --runs runs
// after --warmup, with seeded random inputs. bench/ort_compare.sh gives it
// each network before and after `quarry optimize`.
//
//   build/bin/ort_bench FILE.onnx... [--runs N] [--warmup N] [--threads N]
//
//===----------------------------------------------------------------------===//
#include <onnxruntime_cxx_api.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

struct Args {
  std::vector<std::string> files;
  int runs = 20, warmup = 3, threads = 1;
};

Args parse(int argc, char **argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if ((k == "--runs" || k == "--warmup" || k == "--threads") && i + 1 < argc)
      (k == "--runs"     ? a.runs
       : k == "--warmup" ? a.warmup
                         : a.threads) = std::stoi(argv[++i]);
    else
      a.files.push_back(k);
  }
  return a;
}

double median_ms(Ort::Env &env, const std::string &file, const Args &a) {
  Ort::SessionOptions opts;
  opts.SetIntraOpNumThreads(a.threads);
  opts.SetInterOpNumThreads(1);
  Ort::Session session(env, file.c_str(), opts);
  Ort::AllocatorWithDefaultOptions alloc;
  const auto mem =
      Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<std::vector<float>> data;
  std::vector<Ort::Value> inputs;
  std::vector<std::string> in_names, out_names;
  for (size_t i = 0; i < session.GetInputCount(); ++i) {
    in_names.push_back(session.GetInputNameAllocated(i, alloc).get());
    const auto shape =
        session.GetInputTypeInfo(i).GetTensorTypeAndShapeInfo().GetShape();
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    data.emplace_back(static_cast<size_t>(n));
    for (float &v : data.back())
      v = dist(rng);
    inputs.push_back(Ort::Value::CreateTensor<float>(
        mem, data.back().data(), data.back().size(), shape.data(),
        shape.size()));
  }
  for (size_t i = 0; i < session.GetOutputCount(); ++i)
    out_names.push_back(session.GetOutputNameAllocated(i, alloc).get());
  std::vector<const char *> in_c, out_c;
  for (const auto &s : in_names)
    in_c.push_back(s.c_str());
  for (const auto &s : out_names)
    out_c.push_back(s.c_str());
  auto run = [&] {
    session.Run(Ort::RunOptions{nullptr}, in_c.data(), inputs.data(),
                inputs.size(), out_c.data(), out_c.size());
  };
  for (int i = 0; i < a.warmup; ++i)
    run();
  std::vector<double> ms;
  for (int i = 0; i < a.runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    ms.push_back(std::chrono::duration<double, std::milli>(
                     std::chrono::steady_clock::now() - t0)
                     .count());
  }
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return ms[ms.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  try {
    const Args a = parse(argc, argv);
    Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "ort_bench");
    nlohmann::json out;
    out["onnxruntime"] = Ort::GetVersionString();
    out["threads"] = a.threads;
    out["runs"] = a.runs;
    for (const std::string &f : a.files)
      out["files"].push_back(
          {{"file", f}, {"median_ms", median_ms(env, f, a)}});
    std::printf("%s\n", out.dump(2).c_str());
  } catch (const std::exception &e) {
    std::fprintf(stderr, "ort_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
