//===- process.h - Running the stages' commands -----------------*- C++ -*-===//
//
// A pipeline stage is a quarry command (or mpirun of one) run as a child
// process, so a stage that crashes or is killed leaves the run directory as
// the stage's own resume logic expects, and the pipeline reports which stage
// failed instead of dying with it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

namespace quarry::pipeline {

/// Runs `argv` (argv[0] looked up in PATH when it has no '/') with the
/// parent's stdin, stdout and stderr and environment plus `extra_env`
/// ("NAME=value" entries); waits for it. Returns the exit status, or 128 +
/// the signal number when a signal ended it. Throws quarry::Error when the
/// program cannot be started.
int run_command(const std::vector<std::string> &argv,
                const std::vector<std::string> &extra_env = {});

/// Replaces this process with `argv` (same lookup); throws quarry::Error
/// when that fails.
[[noreturn]] void exec_command(const std::vector<std::string> &argv);

/// This program's absolute path, for running quarry's own subcommands.
std::string self_executable();

/// `argv` as one line a shell would read back (for logs).
std::string command_line(const std::vector<std::string> &argv);

} // namespace quarry::pipeline
