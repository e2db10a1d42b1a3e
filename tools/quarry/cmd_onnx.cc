//===- cmd_onnx.cc - quarry import|export ---------------------------------===//
#include "cli_grammar.h"
#include "commands.h"

#include "quarry/models/model_file.h"
#include "quarry/models/zoo.h"
#include "quarry/rewrite/implementations.h"

#include <algorithm>
#include <cstdio>
#include <memory>

namespace quarry::cli {

namespace {

struct ImportOptions {
  std::string file, out;
  std::vector<std::string> shapes, values;
};

struct ExportOptions {
  std::string model, out;
  int64_t batch = 1, size = 0;
  uint64_t seed = 1;
  OnnxExportOptions written;
};

void run_import(const ImportOptions &o) {
  OnnxImportOptions opts;
  for (const auto &s : o.shapes)
    opts.input_shapes.insert(parse_input_shape(s));
  for (const auto &s : o.values)
    opts.input_values.insert(parse_input_value(s));
  const Model m = import_onnx(o.file, opts);
  save_model(m, o.out);
  std::printf("%s: %d operators, %zu weights%s\n", o.out.c_str(),
              m.graph.num_operators(), m.weights.size(),
              m.weights.empty() ? "" : (" in " + weights_path(o.out)).c_str());
  const std::vector<std::string> kept = kept_operator_types(m);
  if (!kept.empty()) {
    // One line: each operator once with its count, the first few.
    std::vector<std::pair<std::string, int>> counts;
    for (const std::string &t : kept) {
      auto it = std::find_if(counts.begin(), counts.end(),
                             [&](const auto &c) { return c.first == t; });
      if (it == counts.end())
        counts.emplace_back(t, 1);
      else
        ++it->second;
    }
    std::string types;
    for (size_t i = 0; i < counts.size() && i < 6; ++i)
      types +=
          (i ? ", " : "") + counts[i].first +
          (counts[i].second > 1 ? " x" + std::to_string(counts[i].second) : "");
    if (counts.size() > 6)
      types += " and " + std::to_string(counts.size() - 6) + " more operators";
    std::printf("kept as they are (optimized around, exported unchanged, run "
                "between quarry's stages): %zu nodes (%s) in %s\n",
                kept.size(), types.c_str(), kept_path(o.out).c_str());
  }
}

void run_export(const CLI::App &cmd, const ExportOptions &o) {
  require_model(cmd, o.model);
  const Model m =
      names_builtin(o.model)
          ? build_model(o.model,
                        {.batch = o.batch, .size = o.size, .seed = o.seed})
          : load_graph_any(o.model);
  export_onnx(m, o.out, o.seed, o.written);
  std::printf("%s: %d operators\n", o.out.c_str(), m.graph.num_operators());
  // ONNX has no place for how an operator runs: say what is left behind.
  if (const size_t chosen = rewrite::chosen_implementations(m.graph).size())
    std::fprintf(stderr,
                 "quarry: warning: %s: %zu implementation choices of %s "
                 "(conv2d alg=...) are not written, since ONNX has no "
                 "place for them; run the .qg to use them\n",
                 o.out.c_str(), chosen, o.model.c_str());
}

} // namespace

void register_onnx_commands(CLI::App &app) {
  auto io = std::make_shared<ImportOptions>();
  auto *imp = app.add_subcommand(
      "import", "Import an ONNX model as a .qg graph and its weights file");
  imp->add_option("MODEL", io->file, "ONNX model")->required();
  imp->add_option("--out", io->out, "Graph to write (.qg)")->required();
  imp->add_option("--input-shape", io->shapes,
                  "Fix an input's dimensions: name=1x3x224x224");
  imp->add_option(
      "--input-value", io->values,
      "Fix a parameter input's value: name=FILE (.pb or .npy) or name=NUMBER");
  imp->callback([io] { run_import(*io); });

  auto eo = std::make_shared<ExportOptions>();
  auto *exp = app.add_subcommand(
      "export", "Write a graph (.qg, .onnx) or a built-in network as ONNX");
  add_model_argument(*exp, eo->model);
  exp->add_option("--batch", eo->batch, "A built-in network's batch size")
      ->check(CLI::PositiveNumber);
  exp->add_option("--size", eo->size,
                  "A built-in network's image size, sequence length or steps")
      ->check(CLI::NonNegativeNumber);
  exp->add_option("--seed", eo->seed,
                  "Seed of random weights (a built-in network, or weights "
                  "without values)");
  exp->add_option("--out", eo->out, "ONNX file to write")->required();
  exp->add_flag("--external-data", eo->written.external_data,
                "Keep tensors of 1 kB or more in OUT.data beside the model "
                "(always so past 2 GiB)");
  exp->callback([eo, exp] { run_export(*exp, *eo); });
}

} // namespace quarry::cli
