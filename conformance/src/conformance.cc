//===- conformance.cc - ONNX's backend test cases run through quarry ------===//
#include "quarry/conformance/conformance.h"

#include "quarry/core/error.h"
#include "quarry/core/file_io.h"
#include "quarry/models/onnx.h"
#include "quarry/models/onnx_stages.h"
#include "quarry/models/tensor_file.h"
#include "quarry/runtime/backends.h"
#include "quarry/staged/staged_executable.h"

#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>

namespace quarry::conformance {

namespace fs = std::filesystem;

const char *outcome_name(Outcome o) {
  switch (o) {
  case Outcome::Pass:
    return "pass";
  case Outcome::Fail:
    return "fail";
  case Outcome::Unsupported:
    return "unsupported";
  }
  return "?";
}

void Counts::add(Outcome o) {
  (o == Outcome::Pass   ? passed
   : o == Outcome::Fail ? failed
                        : unsupported) += 1;
}

std::vector<std::string> find_cases(const std::vector<std::string> &paths) {
  std::vector<std::string> cases;
  for (const std::string &p : paths) {
    std::error_code ec;
    if (fs::is_regular_file(fs::path(p) / "model.onnx", ec)) {
      cases.push_back(p);
      continue;
    }
    if (!fs::is_directory(p, ec))
      throw Error(p + ": no such directory");
    std::vector<std::string> found;
    for (const auto &e : fs::directory_iterator(p, ec))
      if (fs::is_regular_file(e.path() / "model.onnx", ec))
        found.push_back(e.path().string());
    if (found.empty())
      throw Error(p + ": holds no test case (no model.onnx in it or in any "
                      "directory directly under it)");
    std::sort(found.begin(), found.end());
    cases.insert(cases.end(), found.begin(), found.end());
  }
  return cases;
}

namespace {

/// An error message without the file name the importer puts first.
std::string without_file(const std::string &message, const std::string &file) {
  if (message.rfind(file + ": ", 0) == 0)
    return message.substr(file.size() + 2);
  return message;
}

std::vector<std::string> files_named(const fs::path &dir,
                                     const std::string &prefix) {
  std::vector<std::string> files;
  for (int k = 0;; ++k) {
    const fs::path f = dir / (prefix + std::to_string(k) + ".pb");
    if (!fs::exists(f))
      break;
    files.push_back(f.string());
  }
  return files;
}

/// Test data file `path` for the graph's input or output `k`, whose
/// element types `declared` holds: ONNX's test data writes a bfloat16
/// tensor as its bit patterns in a uint16 one (numpy has no bfloat16).
TensorFile read_as_declared(const fs::path &path,
                            const std::vector<int32_t> &declared, size_t k) {
  TensorFile f = read_tensor_file(path.string());
  if (k < declared.size() && declared[k] == onnx::TensorProto::BFLOAT16 &&
      f.elem_type == "uint16")
    for (float &v : f.value.data) {
      const uint32_t bits = static_cast<uint32_t>(v) << 16;
      std::memcpy(&v, &bits, sizeof v);
    }
  return f;
}

/// How far `got` is from `want`, as a multiple of the tolerance (NaN where
/// NaN is expected, and equal infinities, count as exact); the index of
/// the worst element.
std::pair<double, int64_t> worst_of(const Tensor<float> &got,
                                    const Tensor<float> &want,
                                    const Options &o) {
  double worst = 0;
  int64_t at = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double g = got[i], w = want[i];
    double e;
    if (std::isnan(w) || std::isnan(g))
      e = std::isnan(w) && std::isnan(g) ? 0 : INFINITY;
    else if (std::isinf(w) || std::isinf(g))
      e = g == w ? 0 : INFINITY;
    else
      e = std::fabs(g - w) / (o.atol + o.rtol * std::fabs(w));
    if (e > worst) {
      worst = e;
      at = i;
    }
  }
  return {worst, at};
}

/// `x` in the fewest digits that read back as the same float: two values
/// that differ print differently, however close.
std::string float_text(float x) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

/// `x` to three significant digits.
std::string times(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

/// Why the expected outputs of case `name` are not what ONNX Runtime
/// computes, where they are known not to be; nullptr otherwise. Such a
/// case that quarry computes as ONNX Runtime does cannot pass, and is not
/// quarry's failure.
const char *disputed(const std::string &name) {
  static const std::map<std::string, const char *> kDisputed = {
      {"test_maxunpool_export_with_output_shape",
       "its expected output places the values by their indices in the "
       "shape without output_shape, then pads it (onnx/onnx#2398); ONNX "
       "Runtime, PyTorch and quarry index the output_shape itself"}};
  auto it = kDisputed.find(name);
  return it == kDisputed.end() ? nullptr : it->second;
}

} // namespace

CaseResult run_case(const std::string &dir, const Options &opts) {
  const auto start = std::chrono::steady_clock::now();
  CaseResult r;
  r.dir = dir;
  r.name = fs::path(dir).filename().string();
  const std::string model_path = (fs::path(dir) / "model.onnx").string();
  auto finish = [&](Outcome o, std::string detail) {
    r.outcome = o;
    r.detail = std::move(detail);
    r.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    return r;
  };
  std::string bytes;
  try {
    bytes = read_file_bytes(model_path);
  } catch (const Error &e) {
    return finish(Outcome::Fail, e.what());
  }
  onnx::ModelProto proto;
  // The element types the graph declares for its inputs and outputs.
  std::vector<int32_t> input_elems, output_elems;
  std::vector<std::string> fed_names; // the graph inputs a data set feeds
  if (proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    std::set<std::string> ops;
    for (const auto &n : proto.graph().node())
      ops.insert(n.domain().empty() || n.domain() == "ai.onnx"
                     ? n.op_type()
                     : n.domain() + "." + n.op_type());
    r.operators.assign(ops.begin(), ops.end());
    auto elem_of = [](const onnx::ValueInfoProto &v) {
      return v.type().has_tensor_type() ? v.type().tensor_type().elem_type()
                                        : onnx::TensorProto::UNDEFINED;
    };
    // int32 counts where an integer convolution or product sums 8-bit
    // operands into it.
    const bool sums_integers =
        std::any_of(ops.begin(), ops.end(), [](const std::string &op) {
          return op == "ConvInteger" || op == "MatMulInteger";
        });
    auto of_inference_type = [&](int32_t e) {
      using T = onnx::TensorProto;
      return e == T::FLOAT || e == T::FLOAT16 || e == T::BFLOAT16 ||
             e == T::INT8 || e == T::UINT8 || (e == T::INT32 && sums_integers);
    };
    std::set<std::string> initializers;
    for (const auto &t : proto.graph().initializer())
      initializers.insert(t.name());
    r.float32 = r.inference = true;
    auto classify = [&](const onnx::ValueInfoProto &v) {
      r.float32 = r.float32 && elem_of(v) == onnx::TensorProto::FLOAT;
      r.inference = r.inference && of_inference_type(elem_of(v));
    };
    for (const auto &v : proto.graph().input())
      if (!initializers.count(v.name())) {
        classify(v);
        input_elems.push_back(v.type().tensor_type().elem_type());
        fed_names.push_back(v.name());
      }
    for (const auto &v : proto.graph().output()) {
      classify(v);
      output_elems.push_back(v.type().tensor_type().elem_type());
    }
    // Training and sequence cases are outside inference on tensors.
    for (const auto &n : proto.graph().node()) {
      const std::string &t = n.op_type();
      if (n.domain() == "ai.onnx.preview.training" ||
          t.rfind("Sequence", 0) == 0 || t == "SplitToSequence" ||
          t == "ConcatFromSequence")
        r.float32 = r.inference = false;
      for (const auto &a : n.attribute())
        if (a.name() == "training_mode" && a.i() != 0)
          r.float32 = r.inference = false;
    }
  }
  Model m;
  try {
    m = import_onnx_bytes(bytes, model_path);
  } catch (const Error &e) {
    // ONNX's cases are valid models: what quarry refuses it lacks.
    return finish(Outcome::Unsupported,
                  "import: " + without_file(e.what(), model_path));
  }
  std::vector<fs::path> sets;
  std::error_code ec;
  for (const auto &e : fs::directory_iterator(dir, ec))
    if (e.is_directory() &&
        e.path().filename().string().rfind("test_data_set_", 0) == 0)
      sets.push_back(e.path());
  std::sort(sets.begin(), sets.end());
  if (sets.empty())
    return finish(Outcome::Fail, "no test_data_set_N directory");
  // A node kept as it is runs on quarry's kernel for it, between the
  // graph's stages (staged/). Where the values of small inputs decide
  // shapes (Resize's scales), the case runs as a user runs it first: those
  // parameters (inputs after the first, of at most 8 values) fixed from
  // its one data set, as --input-value fixes them, the data still fed at
  // run time, so that the whole graph is static.
  std::set<size_t> fixed;
  if (staged::needs_stages(m) && sets.size() == 1) {
    OnnxImportOptions io;
    const auto inputs = files_named(sets[0], "input_");
    std::set<size_t> fixing;
    try {
      for (size_t k = 1; k < inputs.size() && k < fed_names.size(); ++k) {
        TensorFile f = read_as_declared(inputs[k], input_elems, k);
        if (f.value.numel() <= 8) {
          io.input_values.emplace(fed_names[k], std::move(f));
          fixing.insert(k);
        }
      }
      if (!fixing.empty() && inputs.size() == fed_names.size()) {
        Model again = import_onnx_bytes(bytes, model_path, io);
        if (!staged::needs_stages(again)) {
          m = std::move(again);
          fixed = std::move(fixing);
        }
      }
    } catch (const Error &) {
      // Not a static graph with them fixed: the case runs in stages.
    }
  }
  std::vector<std::string> input_names;
  for (const Node &n : m.graph.nodes())
    if (n.kind == OpKind::Input)
      input_names.push_back(n.name);

  // The executable reads the backend and the weights while it lives.
  std::unique_ptr<runtime::Backend> backend;
  Bindings<float> weights = m.weights;
  std::unique_ptr<runtime::Executable> exe;
  try {
    runtime::BackendOptions bo;
    bo.threads = opts.threads;
    bo.streams = opts.streams;
    backend = runtime::make_backend(opts.backend, bo);
    if (staged::needs_stages(m))
      exe = std::make_unique<staged::StagedExecutable>(m, weights, *backend,
                                                       model_path);
    else
      exe = backend->prepare(m.graph, weights);
  } catch (const Error &e) {
    return finish(Outcome::Unsupported,
                  opts.backend + ": " + without_file(e.what(), model_path));
  }

  // A case run in stages may read what quarry does not hold: values that
  // are not tensors (sequences, optionals: more input files than the graph
  // has tensor inputs), or tensors of other element types (strings, 32-
  // and 64-bit unsigned integers).
  if (staged::needs_stages(m)) {
    const auto inputs = files_named(sets[0], "input_");
    if (inputs.size() != input_names.size() + fixed.size())
      return finish(Outcome::Unsupported,
                    "run: the case feeds " + std::to_string(inputs.size()) +
                        " values, of which quarry's graph takes " +
                        std::to_string(input_names.size() + fixed.size()) +
                        " (the others are not tensors)");
    try {
      for (size_t k = 0; k < inputs.size(); ++k)
        read_as_declared(inputs[k], input_elems, k);
      const auto outputs = files_named(sets[0], "output_");
      for (size_t k = 0; k < outputs.size(); ++k)
        read_as_declared(outputs[k], output_elems, k);
    } catch (const Error &e) {
      return finish(Outcome::Unsupported, "run: " + std::string(e.what()));
    }
  }
  for (const fs::path &set : sets) {
    const std::string where = set.filename().string() + ": ";
    try {
      const auto inputs = files_named(set, "input_");
      const auto outputs = files_named(set, "output_");
      if (inputs.size() != input_names.size() + fixed.size())
        return finish(Outcome::Fail,
                      where + std::to_string(inputs.size()) +
                          " input files for " +
                          std::to_string(input_names.size() + fixed.size()) +
                          " graph inputs");
      Bindings<float> values = m.weights;
      for (size_t k = 0, fed = 0; k < inputs.size(); ++k)
        if (!fixed.count(k))
          values[input_names[fed++]] =
              read_as_declared(inputs[k], input_elems, k).value;
      const auto got = runtime::run_once(*exe, values);
      if (got.size() != outputs.size())
        return finish(Outcome::Fail,
                      where + std::to_string(got.size()) + " outputs for " +
                          std::to_string(outputs.size()) + " expected");
      for (size_t k = 0; k < outputs.size(); ++k) {
        const Tensor<float> want =
            read_as_declared(outputs[k], output_elems, k).value;
        if (got[k].numel() != want.numel())
          return finish(Outcome::Fail, where + "output " + std::to_string(k) +
                                           " has shape " + got[k].shape.str() +
                                           ", expected " + want.shape.str());
        // quarry computes float16 and bfloat16 in float32: an output of
        // theirs is compared at its own type's precision (one unit in the
        // last place; ONNX 1.12's bfloat16 data truncates).
        Options at_precision = opts;
        if (k < output_elems.size() &&
            output_elems[k] == onnx::TensorProto::FLOAT16)
          at_precision.rtol = std::max(opts.rtol, 0x1p-10);
        if (k < output_elems.size() &&
            output_elems[k] == onnx::TensorProto::BFLOAT16)
          at_precision.rtol = std::max(opts.rtol, 0x1p-7);
        const auto [worst, at] = worst_of(got[k], want, at_precision);
        if (worst > r.worst) {
          r.worst = worst;
          if (worst > 1)
            r.detail = where + "output " + std::to_string(k) + " element " +
                       std::to_string(at) + ": got " + float_text(got[k][at]) +
                       ", expected " + float_text(want[at]) + " (" +
                       times(worst) + " times the tolerance)";
        }
      }
    } catch (const Unrunnable &e) {
      // A kept node quarry has no kernel for: the case asks for more than
      // quarry runs.
      return finish(Outcome::Unsupported,
                    "run: " + without_file(e.what(), model_path));
    } catch (const Error &e) {
      return finish(Outcome::Fail, where + without_file(e.what(), model_path));
    }
    ++r.data_sets;
  }
  if (r.worst > 1)
    if (const char *why = disputed(r.name))
      return finish(Outcome::Unsupported,
                    std::string("disputed: ") + why + "; " + r.detail);
  return finish(r.worst <= 1 ? Outcome::Pass : Outcome::Fail, r.detail);
}

Totals totals(const std::vector<CaseResult> &results) {
  Totals t;
  for (const CaseResult &r : results) {
    t.all.add(r.outcome);
    if (r.float32)
      t.float32.add(r.outcome);
    if (r.inference)
      t.inference.add(r.outcome);
  }
  return t;
}

std::map<std::string, Counts>
by_operator(const std::vector<CaseResult> &results) {
  std::map<std::string, Counts> counts;
  for (const CaseResult &r : results)
    for (const std::string &op : r.operators)
      counts[op].add(r.outcome);
  return counts;
}

std::string summary_json(const std::vector<CaseResult> &results,
                         const Options &opts) {
  nlohmann::json j;
  const Totals t = totals(results);
  j["backend"] = opts.backend;
  j["rtol"] = opts.rtol;
  j["atol"] = opts.atol;
  j["cases"] = nlohmann::json::array();
  for (const CaseResult &r : results) {
    j["cases"].push_back({{"name", r.name},
                          {"dir", r.dir},
                          {"outcome", outcome_name(r.outcome)},
                          {"detail", r.detail},
                          {"worst", std::isfinite(r.worst) ? r.worst : 1e300},
                          {"data_sets", r.data_sets},
                          {"operators", r.operators},
                          {"float32", r.float32},
                          {"inference", r.inference},
                          {"seconds", r.seconds}});
  }
  j["passed"] = t.all.passed;
  j["failed"] = t.all.failed;
  j["unsupported"] = t.all.unsupported;
  j["float32"] = {{"passed", t.float32.passed},
                  {"failed", t.float32.failed},
                  {"unsupported", t.float32.unsupported}};
  j["inference"] = {{"passed", t.inference.passed},
                    {"failed", t.inference.failed},
                    {"unsupported", t.inference.unsupported}};
  nlohmann::json ops = nlohmann::json::object();
  for (const auto &[op, c] : by_operator(results))
    ops[op] = {{"passed", c.passed},
               {"failed", c.failed},
               {"unsupported", c.unsupported}};
  j["operators"] = ops;
  return j.dump(1) + "\n";
}

} // namespace quarry::conformance
