//===- cli_grammar.cc - What every quarry subcommand spells alike ---------===//
#include "cli_grammar.h"

#include <cstdio>
#include <filesystem>
#include <memory>

namespace quarry::cli {

CLI::Option *add_old_spelling(CLI::App &cmd, const std::string &old,
                              std::string &var, const std::string &now,
                              const std::string &instead) {
  auto said = std::make_shared<bool>(false);
  const std::string where = cmd.get_name();
  const std::string advice = instead.empty() ? "use " + now : instead;
  return cmd.add_option(old, var)
      ->group("") // hidden from --help
      ->each([said, where, old, advice](const std::string &) {
        if (*said)
          return;
        *said = true;
        std::fprintf(stderr,
                     "quarry %s: %s is an old spelling, going in the next "
                     "release: %s\n",
                     where.c_str(), old.c_str(), advice.c_str());
      });
}

void add_model_argument(CLI::App &cmd, std::string &model) {
  cmd.add_option("MODEL", model,
                 "The model: a .qg graph (with its weights file), an .onnx "
                 "file, or a built-in network (quarry models list)");
  const std::string instead = "give the model as the first argument (quarry " +
                              cmd.get_name() + " MODEL)";
  CLI::Option *graph = add_old_spelling(cmd, "--graph", model, "", instead);
  CLI::Option *named = add_old_spelling(cmd, "--model", model, "", instead);
  CLI::Option *onnx = add_old_spelling(cmd, "--onnx", model, "", instead);
  graph->excludes(named)->excludes(onnx)->excludes("MODEL");
  named->excludes(onnx)->excludes("MODEL");
  onnx->excludes("MODEL");
}

bool names_builtin(const std::string &model) {
  std::error_code ec;
  return !model.empty() && model.find('/') == std::string::npos &&
         !model.ends_with(".qg") && !model.ends_with(".onnx") &&
         !std::filesystem::exists(model, ec);
}

void require_model(const CLI::App &cmd, const std::string &model) {
  if (model.empty())
    throw UsageError("give the model: a .qg or .onnx file, or a built-in "
                     "network (quarry models list), as in quarry " +
                     cmd.get_name() + " MODEL");
}

std::string command_path(const CLI::App &app) {
  std::string path = app.get_name();
  for (const CLI::App *at = &app;;) {
    const auto chosen = at->get_subcommands();
    if (chosen.empty())
      return path;
    at = chosen.front();
    path += " " + at->get_name();
  }
}

} // namespace quarry::cli
