//===- threads.cc - The cores a process may use ---------------------------===//
#include "threads.h"

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace quarry::runtime::cpu {

std::optional<int> cores_of_cpu_max(const std::string &line) {
  std::istringstream in(line);
  std::string quota;
  long long period = 0;
  if (!(in >> quota >> period) || quota == "max" || period <= 0)
    return std::nullopt;
  char *end = nullptr;
  const long long q = std::strtoll(quota.c_str(), &end, 10);
  if (end == quota.c_str() || *end != '\0' || q <= 0)
    return std::nullopt;
  return static_cast<int>(std::max(1LL, (q + period - 1) / period));
}

namespace {

/// The tightest cpu.max from the process's cgroup (v2) up to the root.
std::optional<int> cgroup_cores() {
  std::ifstream self("/proc/self/cgroup");
  std::string path;
  for (std::string line; std::getline(self, line);)
    if (line.rfind("0::", 0) == 0)
      path = line.substr(3);
  if (path.empty())
    return std::nullopt;
  std::optional<int> cores;
  while (true) {
    std::ifstream max("/sys/fs/cgroup" + path + "/cpu.max");
    std::string line;
    if (max && std::getline(max, line))
      if (auto c = cores_of_cpu_max(line))
        cores = cores ? std::min(*cores, *c) : *c;
    if (path.empty() || path == "/")
      break;
    path = path.substr(0, path.rfind('/'));
  }
  return cores;
}

} // namespace

int usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  int cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  if (auto quota = cgroup_cores())
    cores = std::min(cores, *quota);
  return std::max(1, cores);
}

int thread_count(int requested) {
  if (requested > 0)
    return requested;
  if (const char *env = std::getenv("OMP_NUM_THREADS"); env && *env) {
    const int n = std::atoi(env);
    if (n > 0)
      return n;
  }
  return usable_cores();
}

} // namespace quarry::runtime::cpu
