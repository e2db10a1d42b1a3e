//===- ort_bench.cc - ONNX models timed in ONNX Runtime -----------------===//
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
// speed-up (A's median / B's) and their geometric mean (timed as every speed
// claim of quarry's is, core/timed_in_turn.h: a file that runs in under
// 20 ms runs once untimed before each timed run, so that its caches are as
// warm as run after run; a pair runs more rounds than --runs where that is
// needed for --min-seconds, 2 by default, of timed runs per file), and each
// pair's outputs compared as --compare does (all_equal: every pair within
// --tolerance). Each file of a pair is loaded into --sessions sessions, 4 by
// default, and the rounds take them in turn, the pair's order swapped every
// other round: where a session's weights land in memory changes its time,
// and the later of the two in a round finds the caches as the other left
// them.
// A pair of byte-identical files (an optimization that kept the original)
// says so (identical): its speed-up is the spread of timing equal work.
//
// --profile PREFIX has ONNX Runtime write its trace of every session
// (PREFIX_DATE.json: each node's run time), to see where the time goes.
//
// --compare A.onnx B.onnx instead runs both once on the same seeded inputs
// (bound by position: quarry's export keeps the inputs' order) and prints
// the largest difference of their outputs relative to A's largest
// magnitude per output, how B's interface differs from A's (names,
// types, dimensions, opset, metadata: quarry::interface_differences) and
// how many of each operator it has where A has another number
// (quarry::operator_differences); it
// exits 1 when the outputs differ by more than --tolerance (or, for a
// float16 or bfloat16 output, than its own precision where that is
// coarser: 2^-10, 2^-7). Both run
// without ONNX Runtime's graph optimizations: it fuses the two files
// differently (a batchnorm into a convolution in one, say), and on deep
// networks the fused arithmetic alone differs by up to 1e-3. Dynamic
// dimensions take their extent from --input-shape NAME=DxD (A's names).
// --input-value NAME=NUMBER fixes an input that is a parameter (a sample
// rate) to a scalar of its own element type; `quarry --input-value` makes
// it a constant, so B may lack it, and the other inputs pair by position.
// --inputs DIR reads the inputs instead from DIR/input_K.pb (ONNX
// TensorProtos of any numeric element type, as ONNX's test data sets hold
// them), each bound to the input of its own name in either file, else to
// input K; outputs of every numeric type are compared, pairing by position.
//
// --save-case DIR runs one file once (on seeded or --inputs values) and
// writes it as one of ONNX's test cases: DIR/model.onnx, and the inputs and
// ONNX Runtime's outputs as DIR/test_data_set_0/input_K.pb and output_K.pb,
// for `quarry conformance` to hold quarry's outputs against.
//
//   build/bin/ort_bench FILE.onnx... [--pairs] [--runs N] [--warmup N]
//       [--threads N] [--min-seconds S] [--sessions N] [--profile PREFIX]
//   build/bin/ort_bench --compare A.onnx B.onnx [--input-shape NAME=DxD]...
//       [--input-value NAME=NUMBER]... [--inputs DIR] [--tolerance T]
//   build/bin/ort_bench --save-case DIR FILE.onnx [--inputs DIR]...
//
//===----------------------------------------------------------------------===//
#include "bench_cli.h"
#include "provenance.h"

#include <onnxruntime_cxx_api.h>

#include <onnx/onnx_pb.h>

#include "quarry/core/file_io.h"
#include "quarry/core/timed_in_turn.h"
#include "quarry/models/onnx.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Args {
  std::vector<std::string> files;
  int runs = 20, warmup = 3, threads = 1;
  double min_seconds = 2; ///< --pairs: of timed runs per file, at least
  int sessions = 4;       ///< --pairs: sessions per file, taken in turn
  bool compare = false, pairs = false;
  double tolerance = 1e-4;
  std::map<std::string, std::vector<int64_t>> shapes; ///< --input-shape
  std::map<std::string, double> values;               ///< --input-value
  std::string inputs_dir;                             ///< --inputs
  std::string save_case;                              ///< --save-case
  std::string profile; ///< --profile: ONNX Runtime's trace, this prefix
};

/// The TensorProtos in DIR/input_K.pb, K = 0, 1, ... while they exist.
std::vector<onnx::TensorProto> read_inputs(const std::string &dir) {
  std::vector<onnx::TensorProto> out;
  for (int k = 0;; ++k) {
    const std::string path = dir + "/input_" + std::to_string(k) + ".pb";
    std::ifstream f(path, std::ios::binary);
    if (!f)
      return out;
    std::stringstream bytes;
    bytes << f.rdbuf();
    onnx::TensorProto t;
    if (!t.ParseFromString(bytes.str()))
      throw std::runtime_error(path + ": not a TensorProto");
    out.push_back(std::move(t));
  }
}

/// The bytes of `t`'s values, as ONNX Runtime holds a tensor of its type.
std::string tensor_bytes(const onnx::TensorProto &t) {
  if (t.has_raw_data())
    return t.raw_data();
  std::string out;
  auto put = [&](const auto &values, auto as) {
    for (auto v : values) {
      const auto x = static_cast<decltype(as)>(v);
      out.append(reinterpret_cast<const char *>(&x), sizeof x);
    }
  };
  using TP = onnx::TensorProto;
  switch (t.data_type()) {
  case TP::FLOAT:
    put(t.float_data(), float{});
    break;
  case TP::DOUBLE:
    put(t.double_data(), double{});
    break;
  case TP::INT64:
    put(t.int64_data(), int64_t{});
    break;
  case TP::UINT64:
    put(t.uint64_data(), uint64_t{});
    break;
  case TP::INT32:
    put(t.int32_data(), int32_t{});
    break;
  case TP::INT16:
    put(t.int32_data(), int16_t{});
    break;
  case TP::UINT16:
  case TP::FLOAT16:
  case TP::BFLOAT16:
    put(t.int32_data(), uint16_t{});
    break;
  case TP::INT8:
    put(t.int32_data(), int8_t{});
    break;
  case TP::UINT8:
  case TP::BOOL:
    put(t.int32_data(), uint8_t{});
    break;
  case TP::UINT32:
    put(t.uint64_data(), uint32_t{});
    break;
  default:
    throw std::runtime_error("input '" + t.name() + "' has element type " +
                             std::to_string(t.data_type()) +
                             ", which --inputs cannot read");
  }
  return out;
}

/// Element `i` of a tensor of a numeric type as a double; false for types
/// that are not numbers (strings).
bool element(const Ort::Value &v, size_t i, double &x) {
  switch (v.GetTensorTypeAndShapeInfo().GetElementType()) {
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT:
    x = v.GetTensorData<float>()[i];
    return true;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16:
    x = Ort::Float16_t::FromBits(v.GetTensorData<uint16_t>()[i]).ToFloat();
    return true;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16:
    x = Ort::BFloat16_t::FromBits(v.GetTensorData<uint16_t>()[i]).ToFloat();
    return true;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE:
    x = v.GetTensorData<double>()[i];
    return true;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64:
    x = static_cast<double>(v.GetTensorData<int64_t>()[i]);
    return true;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64:
    x = static_cast<double>(v.GetTensorData<uint64_t>()[i]);
    return true;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32:
    x = v.GetTensorData<int32_t>()[i];
    return true;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32:
    x = v.GetTensorData<uint32_t>()[i];
    return true;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16:
    x = v.GetTensorData<int16_t>()[i];
    return true;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16:
    x = v.GetTensorData<uint16_t>()[i];
    return true;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8:
    x = v.GetTensorData<int8_t>()[i];
    return true;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8:
    x = v.GetTensorData<uint8_t>()[i];
    return true;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL:
    x = v.GetTensorData<bool>()[i] ? 1 : 0;
    return true;
  default:
    return false;
  }
}

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
  std::vector<std::string> shapes, values;
  CLI::App app{"ONNX models timed in ONNX Runtime, as JSON", "ort_bench"};
  quarry::bench::flag_defaults(app);
  app.add_option("FILE", a.files, "ONNX files");
  app.add_flag("--pairs", a.pairs,
               "Time the files two at a time, in alternating rounds");
  app.add_option("--runs", a.runs, "Timed runs per file");
  app.add_option("--warmup", a.warmup, "Untimed runs first");
  app.add_option("--threads", a.threads, "ONNX Runtime's intra-op threads");
  app.add_option("--min-seconds", a.min_seconds,
                 "--pairs: seconds of timed runs per file, at least");
  app.add_option("--sessions", a.sessions,
                 "--pairs: sessions per file, taken in turn");
  app.add_option("--profile", a.profile,
                 "ONNX Runtime's trace of every session to PREFIX_DATE.json");
  app.add_flag("--compare", a.compare,
               "Run A.onnx and B.onnx once and compare their outputs");
  app.add_option("--input-shape", shapes,
                 "Fix a dynamic dimension, NAME=DxD (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--input-value", values,
                 "Fix an input to a scalar, NAME=NUMBER (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--save-case", a.save_case,
                 "Run one file once and write it, its inputs and ONNX "
                 "Runtime's outputs as an ONNX test case in DIR");
  app.add_option("--inputs", a.inputs_dir,
                 "Read the inputs from DIR/input_K.pb (TensorProtos)");
  app.add_option("--tolerance", a.tolerance,
                 "Largest relative difference of outputs deemed equal (a "
                 "float16 or bfloat16 output: at least its own precision)");
  quarry::bench::parse_or_exit(app, argc, argv);
  for (const std::string &s : shapes)
    a.shapes.insert(input_shape(s));
  for (const std::string &v : values) {
    const size_t eq = v.find('=');
    if (eq == std::string::npos)
      throw std::runtime_error("--input-value expects NAME=NUMBER, got " + v);
    a.values[v.substr(0, eq)] = std::stod(v.substr(eq + 1));
  }
  return a;
}

/// A session with seeded random inputs in [-1, 1) bound to it.
struct Bound {
  Ort::Session session;
  std::vector<std::vector<float>> data;
  /// float16 and bfloat16 inputs' bits.
  std::vector<std::vector<uint16_t>> halves;
  /// The values of inputs fixed by --input-value.
  std::vector<int64_t> fixed_ints;
  std::vector<float> fixed_floats;
  std::vector<Ort::Value> inputs;
  std::vector<std::string> in_names, out_names;
  /// Per input: the index into `data` of its values, -1 when fixed.
  std::vector<int> random_index;
  /// The values of inputs read from --inputs files.
  std::vector<std::string> bytes;

  Bound(Ort::Env &env, const std::string &file, const Args &a)
      : session(env, file.c_str(), options(a)) {
    Ort::AllocatorWithDefaultOptions alloc;
    const auto mem =
        Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
    if (!a.inputs_dir.empty()) {
      bind_files(read_inputs(a.inputs_dir), file, mem, alloc);
      return;
    }
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    // Fixed inputs' storage must not move once tensors wrap it.
    fixed_ints.reserve(session.GetInputCount());
    fixed_floats.reserve(session.GetInputCount());
    data.reserve(session.GetInputCount());
    halves.reserve(session.GetInputCount());
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
      const auto elem = info.GetElementType();
      const bool half = elem == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16 ||
                        elem == ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16;
      if (elem != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT && !half)
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
      if (half) { // the same values, rounded to the input's type
        halves.emplace_back();
        for (float v : data.back())
          halves.back().push_back(elem == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16
                                      ? Ort::Float16_t(v).val
                                      : Ort::BFloat16_t(v).val);
        inputs.push_back(Ort::Value::CreateTensor(
            mem, halves.back().data(), halves.back().size() * sizeof(uint16_t),
            shape.data(), shape.size(), elem));
        continue;
      }
      inputs.push_back(Ort::Value::CreateTensor<float>(
          mem, data.back().data(), data.back().size(), shape.data(),
          shape.size()));
    }
    for (size_t i = 0; i < session.GetOutputCount(); ++i)
      out_names.push_back(session.GetOutputNameAllocated(i, alloc).get());
  }

  /// Binds each input to the file of its name, else to the file at its
  /// position.
  void bind_files(const std::vector<onnx::TensorProto> &files,
                  const std::string &file, const Ort::MemoryInfo &mem,
                  Ort::AllocatorWithDefaultOptions &alloc) {
    const size_t n = session.GetInputCount();
    bytes.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      in_names.push_back(session.GetInputNameAllocated(i, alloc).get());
      if (session.GetInputTypeInfo(i).GetONNXType() != ONNX_TYPE_TENSOR)
        throw std::runtime_error(file + ": input '" + in_names.back() +
                                 "' is not a tensor");
      const onnx::TensorProto *t = nullptr;
      for (const auto &f : files)
        if (f.name() == in_names.back())
          t = &f;
      if (!t && i < files.size())
        t = &files[i];
      if (!t)
        throw std::runtime_error(file + ": no input file for '" +
                                 in_names.back() + "'");
      bytes.push_back(tensor_bytes(*t));
      const std::vector<int64_t> shape(t->dims().begin(), t->dims().end());
      inputs.push_back(Ort::Value::CreateTensor(
          mem, bytes.back().data(), bytes.back().size(), shape.data(),
          shape.size(),
          static_cast<ONNXTensorElementDataType>(t->data_type())));
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
    if (!a.profile.empty())
      opts.EnableProfiling(a.profile.c_str());
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

/// Whether two files hold the same bytes: a pair whose optimized file is
/// the original (nothing won) times the same model twice, and its
/// speed-up shows only how far apart this machine times equal work.
bool same_bytes(const std::string &x, const std::string &y) {
  return quarry::read_file_bytes(x) == quarry::read_file_bytes(y);
}

struct PairTimes {
  double median_x, median_y;
  int rounds;
};

/// The medians of two files timed in alternating rounds, over
/// --sessions sessions of each.
PairTimes alternating_medians(Ort::Env &env, const std::string &x,
                              const std::string &y, const Args &a) {
  if (a.sessions < 1)
    throw std::runtime_error("--sessions must be at least 1");
  // Loaded in turn, x's and y's sessions take memory alike.
  std::vector<std::unique_ptr<Bound>> xs, ys;
  for (int s = 0; s < a.sessions; ++s) {
    xs.push_back(std::make_unique<Bound>(env, x, a));
    ys.push_back(std::make_unique<Bound>(env, y, a));
  }
  // Each round takes the next sessions, the pair's order swapped every
  // other round (timed_in_turn.h). A file that runs in under
  // kWarmBelowMs runs once untimed before each timed run: run after run,
  // what it reads stays in the caches, and timed right after the other
  // file it would pay for refilling them. At least --runs rounds, and
  // enough for --min-seconds of runs per file: a few milliseconds of a
  // small network are one busy spell of the machine.
  quarry::TurnPolicy policy;
  policy.warmup_rounds = a.warmup * a.sessions;
  policy.rounds = a.runs;
  policy.alternate = true;
  policy.min_seconds = a.min_seconds;
  policy.round_multiple = 2 * a.sessions; // every session in either order
  const auto timer = [&](std::vector<std::unique_ptr<Bound>> &sessions) {
    return [&a, s = &sessions](int r) {
      return quarry::time_ms([&] { (*s)[r % a.sessions]->run(); });
    };
  };
  const auto ms = quarry::time_in_turn(
      std::vector<quarry::RoundTimer>{timer(xs), timer(ys)}, policy);
  return {quarry::median(ms[0]), quarry::median(ms[1]),
          static_cast<int>(ms[0].size())};
}

double median_ms(Ort::Env &env, const std::string &file, const Args &a) {
  Bound b(env, file, a);
  quarry::TurnPolicy policy;
  policy.rounds = a.runs;
  policy.warmup_rounds = a.warmup;
  return quarry::median(
      quarry::time_in_turn(std::vector<std::function<double()>>{[&] {
                             return quarry::time_ms([&] { b.run(); });
                           }},
                           policy)[0]);
}

/// How far two files' outputs are apart.
struct Difference {
  /// Per output max |a - b| / max |a|; the largest over outputs.
  double relative = 0;
  /// Per output that relative difference over the tolerance it is held to:
  /// --tolerance, or the output's own precision where that is coarser
  /// (float16 2^-10, bfloat16 2^-7: a float16 model's files may round its
  /// intermediates differently); the largest. At most 1: equal.
  double over_tolerance = 0;
  bool equal() const { return over_tolerance <= 1; }
};

Difference compare_outputs(Ort::Env &env, const std::string &file_a,
                           const std::string &file_b, Args a) {
  a.compare = true; // the files' own arithmetic, not ORT's fusions
  Bound first(env, file_a, a), second(env, file_b, a);
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
  Difference worst;
  for (size_t k = 0; k < x.size(); ++k) {
    if (!x[k].IsTensor() || !y[k].IsTensor())
      continue; // a sequence or an optional: not compared
    const auto xt = x[k].GetTensorTypeAndShapeInfo(),
               yt = y[k].GetTensorTypeAndShapeInfo();
    if (xt.GetShape() != yt.GetShape())
      throw std::runtime_error("output " + std::to_string(k) +
                               " differs in shape");
    if (xt.GetElementType() != yt.GetElementType())
      throw std::runtime_error("output " + std::to_string(k) +
                               " differs in element type");
    double scale = 0, diff = 0;
    for (size_t i = 0; i < xt.GetElementCount(); ++i) {
      double p = 0, q = 0;
      if (!element(x[k], i, p) || !element(y[k], i, q))
        break;
      if (std::isnan(p) || std::isnan(q)) {
        if (std::isnan(p) != std::isnan(q))
          diff = INFINITY;
        continue;
      }
      if (std::isfinite(p))
        scale = std::max(scale, std::fabs(p));
      if (p != q) // an infinity on one side only differs infinitely
        diff = std::max(diff, std::fabs(p - q));
    }
    const double relative = scale > 0 ? diff / scale : diff;
    const auto elem = xt.GetElementType();
    const double precision =
        elem == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16    ? 0x1p-10
        : elem == ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16 ? 0x1p-7
                                                         : 0.0;
    worst.relative = std::max(worst.relative, relative);
    worst.over_tolerance = std::max(
        worst.over_tolerance, relative / std::max(a.tolerance, precision));
  }
  return worst;
}

/// `v` as a TensorProto named `name`, of its own element type (float32,
/// float16, bfloat16, int64, int32, int8, uint8 or bool).
onnx::TensorProto tensor_proto(const Ort::Value &v, const std::string &name) {
  struct Type {
    ONNXTensorElementDataType ort;
    onnx::TensorProto::DataType proto;
    size_t bytes;
  };
  static const Type types[] = {
      {ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, onnx::TensorProto::FLOAT, 4},
      {ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16, onnx::TensorProto::FLOAT16, 2},
      {ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16, onnx::TensorProto::BFLOAT16, 2},
      {ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, onnx::TensorProto::INT64, 8},
      {ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32, onnx::TensorProto::INT32, 4},
      {ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8, onnx::TensorProto::INT8, 1},
      {ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8, onnx::TensorProto::UINT8, 1},
      {ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL, onnx::TensorProto::BOOL, 1}};
  const auto info = v.GetTensorTypeAndShapeInfo();
  for (const Type &type : types) {
    if (type.ort != info.GetElementType())
      continue;
    onnx::TensorProto t;
    t.set_name(name);
    for (int64_t d : info.GetShape())
      t.add_dims(d);
    t.set_data_type(type.proto);
    t.set_raw_data(v.GetTensorRawData(), info.GetElementCount() * type.bytes);
    return t;
  }
  throw std::runtime_error("'" + name +
                           "' is of an element type --save-case does not "
                           "write");
}

/// --save-case: `file`, its inputs and ONNX Runtime's outputs as an ONNX
/// test case in `dir`.
void save_case(Ort::Env &env, const std::string &file, const std::string &dir,
               Args a) {
  a.compare = true; // the file's own arithmetic, not ORT's fusions
  Bound bound(env, file, a);
  auto outputs = bound.run();
  const std::string data = dir + "/test_data_set_0";
  std::filesystem::create_directories(data);
  std::filesystem::copy_file(file, dir + "/model.onnx",
                             std::filesystem::copy_options::overwrite_existing);
  auto write = [&](const std::string &path, const onnx::TensorProto &t) {
    std::ofstream f(path, std::ios::binary);
    if (!t.SerializeToOstream(&f))
      throw std::runtime_error("cannot write " + path);
  };
  for (size_t k = 0; k < bound.inputs.size(); ++k)
    write(data + "/input_" + std::to_string(k) + ".pb",
          tensor_proto(bound.inputs[k], bound.in_names[k]));
  for (size_t k = 0; k < outputs.size(); ++k)
    write(data + "/output_" + std::to_string(k) + ".pb",
          tensor_proto(outputs[k], bound.out_names[k]));
}

} // namespace

int main(int argc, char **argv) {
  try {
    const Args a = parse(argc, argv);
    Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "ort_bench");
    if (!a.save_case.empty()) {
      if (a.files.size() != 1)
        throw std::runtime_error("--save-case takes one ONNX file");
      save_case(env, a.files[0], a.save_case, a);
      std::printf("%s\n", a.save_case.c_str());
      return 0;
    }
    if (a.compare) {
      if (a.files.size() != 2)
        throw std::runtime_error("--compare takes two ONNX files");
      const Difference diff = compare_outputs(env, a.files[0], a.files[1], a);
      const double d = diff.relative;
      const bool equal = diff.equal();
      std::printf("%s\n",
                  nlohmann::json{{"a", a.files[0]},
                                 {"b", a.files[1]},
                                 {"max_relative_difference", d},
                                 {"tolerance", a.tolerance},
                                 {"equal", equal},
                                 {"interface_differences",
                                  quarry::interface_differences(
                                      quarry::read_file_bytes(a.files[0]),
                                      quarry::read_file_bytes(a.files[1]))},
                                 {"operator_differences",
                                  quarry::operator_differences(
                                      quarry::read_file_bytes(a.files[0]),
                                      quarry::read_file_bytes(a.files[1]))}}
                      .dump()
                      .c_str());
      return equal ? 0 : 1;
    }
    nlohmann::json out = quarry::bench::provenance(argc, argv);
    out["onnxruntime"] = Ort::GetVersionString();
    out["threads"] = a.threads;
    out["runs"] = a.runs;
    if (a.pairs)
      out["sessions"] = a.sessions;
    if (a.pairs) {
      if (a.files.size() % 2 != 0)
        throw std::runtime_error("--pairs takes an even number of files");
      double log_sum = 0;
      bool all_equal = true;
      for (size_t i = 0; i < a.files.size(); i += 2) {
        const auto [x, y, rounds] =
            alternating_medians(env, a.files[i], a.files[i + 1], a);
        const Difference diff =
            compare_outputs(env, a.files[i], a.files[i + 1], a);
        const double d = diff.relative;
        out["files"].push_back({{"file", a.files[i]}, {"median_ms", x}});
        out["files"].push_back({{"file", a.files[i + 1]}, {"median_ms", y}});
        out["pairs"].push_back(
            {{"a", a.files[i]},
             {"b", a.files[i + 1]},
             {"speedup", x / y},
             {"rounds", rounds},
             {"identical", same_bytes(a.files[i], a.files[i + 1])},
             {"max_relative_difference", d},
             {"equal", diff.equal()}});
        log_sum += std::log(x / y);
        all_equal = all_equal && diff.equal();
      }
      out["geomean_speedup"] =
          std::exp(log_sum / static_cast<double>(a.files.size() / 2));
      out["tolerance"] = a.tolerance;
      out["all_equal"] = all_equal;
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
