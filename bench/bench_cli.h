//===- bench_cli.h - The benchmarks' command lines --------------*- C++ -*-===//
//
// Every benchmark parses its flags with CLI11 the same way:
//
//   CLI::App app{"What it prints", "name_bench"};
//   bench::flag_defaults(app); // before the options
//   app.add_option("--runs", runs, "Timed runs");
//   bench::parse_or_exit(app, argc, argv);
//
// --help prints the flags with their defaults and exits 0; any usage error
// (an unknown flag, a missing value, a bad number, a missing argument) is
// one line on stderr, "name_bench: <what>", and exit status 2.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace quarry::bench {

/// Options added after this show their defaults in --help, and a flag
/// given twice keeps its last value (a list option keeps every value).
inline void flag_defaults(CLI::App &app) {
  app.option_defaults()->always_capture_default()->multi_option_policy(
      CLI::MultiOptionPolicy::TakeLast);
}

/// A check that a flag's number is at least `least` (CLI::PositiveNumber's
/// message names the largest double).
inline CLI::Validator at_least(long long least) {
  const std::string bound = std::to_string(least);
  return CLI::Validator(
      [least, bound](std::string &value) -> std::string {
        double number = 0;
        if (!CLI::detail::lexical_cast(value, number))
          return "Value " + value + " not a number";
        return number < static_cast<double>(least)
                   ? "Value " + value + " is less than " + bound
                   : std::string();
      },
      least == 0   ? "NONNEGATIVE"
      : least == 1 ? "POSITIVE"
                   : ">=" + bound);
}

/// Prints "<app name>: <message>", on one line, to stderr and exits 2.
[[noreturn]] inline void usage_error(const CLI::App &app,
                                     const std::string &message) {
  std::string line;
  for (size_t i = 0; i < message.size(); ++i) {
    if (message[i] != '\n')
      line += message[i];
    else if (i + 1 < message.size())
      line += "; ";
  }
  std::fprintf(stderr, "%s: %s\n", app.get_name().c_str(), line.c_str());
  std::exit(2);
}

/// Parses the command line; returns only when it is valid. --help (or
/// --version) prints and exits 0, a usage error goes to usage_error().
inline void parse_or_exit(CLI::App &app, int argc, char **argv) {
  // An empty list's default ("[]") says nothing in --help.
  for (CLI::Option *o : app.get_options())
    if (o->get_default_str() == "[]")
      o->default_str("");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    if (e.get_exit_code() == 0)
      std::exit(app.exit(e));
    usage_error(app, e.what());
  }
}

} // namespace quarry::bench
