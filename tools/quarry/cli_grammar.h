//===- cli_grammar.h - What every quarry subcommand spells alike -*- C++
//-*-===//
//
// docs/CLI.md states the grammar: the model a command works on is its
// first argument (a .qg or .onnx file, or a built-in network); a flag name
// means one thing everywhere (--json: a machine-readable report, --out:
// what the command writes, --cost-cache and --proof-cache, --timeout in
// seconds); a usage error is one line and exit status 2. Spellings from
// before the grammar keep working for one release, hidden from --help,
// with a one-line notice.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/error.h"

#include <CLI/CLI.hpp>

#include <string>

namespace quarry::cli {

/// Flags missing or not going together: main() prints it as it prints
/// CLI11's own usage errors, on one line, and exits with status 2.
struct UsageError : Error {
  using Error::Error;
};

/// The exit status of a usage error, and of an error in quarry itself.
inline constexpr int kUsageExit = 2;
inline constexpr int kInternalExit = 3;

/// f(), where the Error it throws is a usage error: a flag's value a
/// library refuses to parse (parse_shard(), say).
template <class F> auto as_usage_error(F f) -> decltype(f()) {
  try {
    return f();
  } catch (const UsageError &) {
    throw;
  } catch (const Error &e) {
    throw UsageError(e.what());
  }
}

/// An old spelling of `now`, kept for one release: hidden from --help, it
/// sets `var` as `now` does and says once on stderr what to write instead.
/// `instead` is that advice ("" : "use NOW").
CLI::Option *add_old_spelling(CLI::App &cmd, const std::string &old,
                              std::string &var, const std::string &now,
                              const std::string &instead = "");

/// The model the command works on, its first positional argument, into
/// `model`: a .qg or .onnx file, or a built-in network (quarry models
/// list). --graph, --model and --onnx are its old spellings.
void add_model_argument(CLI::App &cmd, std::string &model);

/// Whether `model` names a built-in network rather than a file: it is no
/// existing file, has no .qg or .onnx extension and no '/'.
bool names_builtin(const std::string &model);

/// Throws UsageError when no model was given.
void require_model(const CLI::App &cmd, const std::string &model);

/// "quarry verify merge" for the subcommand the user ran.
std::string command_path(const CLI::App &app);

} // namespace quarry::cli
