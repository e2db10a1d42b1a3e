//===- open_dims.cc - Which open dimensions a rewritten model keeps -------===//
#include "quarry/staged/open_dims.h"

#include "quarry/core/error.h"
#include "quarry/runtime/run_inputs.h"
#include "quarry/staged/staged_executable.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace quarry::staged {

namespace {

/// `m`'s outputs on `backend` from `inputs` (by name) and its weights,
/// which an imported model has all of (prepared from the table, not a
/// copy of it).
std::vector<Tensor<float>> outputs_of(const Model &m,
                                      const Bindings<float> &inputs,
                                      runtime::Backend &backend,
                                      const std::string &file) {
  Bindings<float> values = runtime::random_run_inputs(m.graph, 0);
  for (auto &[name, t] : values)
    if (auto it = inputs.find(name); it != inputs.end())
      t = it->second;
  auto exe = prepare_model(m, m.weights, backend, file);
  return runtime::run_once(*exe, values);
}

bool same(const std::vector<Tensor<float>> &got,
          const std::vector<Tensor<float>> &want, double tolerance) {
  if (got.size() != want.size())
    return false;
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i].shape.dims != want[i].shape.dims)
      return false;
  return runtime::max_relative_error(got, want) <= tolerance;
}

} // namespace

OpenDims keep_open_dims(std::string_view original, std::string_view written,
                        const OnnxImportOptions &fixed_at,
                        runtime::Backend &backend, uint64_t seed,
                        double tolerance, const std::string &file) {
  const std::vector<OpenDim> dims = open_input_dims(original);
  // The value each was fixed at; one the options do not fix stays fixed.
  std::map<std::string, int64_t> at;
  for (const OpenDim &d : dims)
    if (auto s = fixed_at.input_shapes.find(d.input);
        s != fixed_at.input_shapes.end() && d.axis < s->second.rank())
      at.emplace(d.name, s->second[d.axis]);
  const std::string original_bytes(original);

  // Whether declaring `open` open holds at the other values.
  const auto holds = [&](const std::vector<std::string> &open) {
    const std::string candidate = declare_open_dims(
        original, written, std::set<std::string>(open.begin(), open.end()));
    int tried = 0;
    for (int round = 0; round < 2; ++round) {
      std::map<std::string, int64_t> values;
      for (const std::string &name : open) {
        const int64_t v = at.at(name);
        values[name] = round == 0 ? v + 1 : v >= 4 ? v / 2 : v + 2;
      }
      const OnnxImportOptions opts = with_open_dims(fixed_at, dims, values);
      // Where the original does not import or run, the value is none of
      // its own.
      std::optional<Model> a;
      Bindings<float> inputs;
      std::vector<Tensor<float>> want;
      try {
        a.emplace(import_onnx_bytes(original_bytes, file, opts));
        inputs = runtime::random_run_inputs(a->graph, seed);
        want = outputs_of(*a, inputs, backend, file);
      } catch (const Error &) {
        continue;
      }
      a.reset();
      try {
        const Model b = import_onnx_bytes(candidate, file + " (written)", opts);
        if (!same(outputs_of(b, inputs, backend, file), want, tolerance))
          return false;
      } catch (const Error &) {
        return false;
      }
      ++tried;
    }
    return tried > 0;
  };

  std::vector<std::string> names;
  for (const std::string &name : open_dim_names(dims))
    if (at.count(name))
      names.push_back(name);
  std::vector<std::string> kept;
  if (!names.empty() && holds(names)) {
    kept = names;
  } else if (names.size() > 1) {
    for (const std::string &name : names)
      if (holds({name}))
        kept.push_back(name);
    if (kept.size() > 1 && !holds(kept))
      kept.resize(1);
  }
  OpenDims out;
  out.model =
      kept.empty()
          ? std::string(written)
          : declare_open_dims(original, written,
                              std::set<std::string>(kept.begin(), kept.end()));
  out.kept = kept;
  for (const std::string &name : open_dim_names(dims))
    if (std::find(kept.begin(), kept.end(), name) == kept.end())
      out.fixed.push_back(name);
  return out;
}

} // namespace quarry::staged
