//===- process.cc - Child processes for the pipeline's stages -------------===//
#include "quarry/pipeline/process.h"

#include "quarry/core/error.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace quarry::pipeline {

namespace {

std::vector<char *> c_strings(std::vector<std::string> &items) {
  std::vector<char *> out;
  for (auto &s : items)
    out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

} // namespace

int run_command(const std::vector<std::string> &argv,
                const std::vector<std::string> &extra_env) {
  if (argv.empty())
    throw Error("run_command: no program");
  std::vector<std::string> args = argv;
  std::vector<std::string> env;
  for (char **e = environ; *e; ++e)
    env.emplace_back(*e);
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  std::vector<char *> c_args = c_strings(args), c_env = c_strings(env);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, c_args[0], nullptr, nullptr, c_args.data(),
                              c_env.data());
  if (rc != 0)
    throw Error("cannot run " + argv[0] + ": " + std::strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      throw Error("waiting for " + argv[0] + ": " + std::strerror(errno));
  if (WIFSIGNALED(status))
    return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

void exec_command(const std::vector<std::string> &argv) {
  if (argv.empty())
    throw Error("exec_command: no program");
  std::vector<std::string> args = argv;
  std::vector<char *> c_args = c_strings(args);
  execvp(c_args[0], c_args.data());
  throw Error("cannot run " + argv[0] + ": " + std::strerror(errno));
}

std::string self_executable() {
  return std::filesystem::read_symlink("/proc/self/exe").string();
}

std::string command_line(const std::vector<std::string> &argv) {
  std::string out;
  for (const std::string &a : argv) {
    if (!out.empty())
      out += ' ';
    const bool plain =
        !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                                          "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789_-./=,:+@%") == a.npos;
    if (plain) {
      out += a;
      continue;
    }
    out += '\'';
    for (char c : a)
      out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

} // namespace quarry::pipeline
