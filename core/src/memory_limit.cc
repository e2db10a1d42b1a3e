//===- memory_limit.cc - What this process may still allocate -------------===//
#include "quarry/core/memory_limit.h"

#include "quarry/core/error.h"

#include <sys/resource.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace quarry {

namespace {

/// The value in kB of the line "key: N kB" in a /proc file, in bytes.
std::optional<uint64_t> proc_kilobytes(const char *file, const char *key) {
  std::ifstream in(file);
  std::string line;
  const std::string prefix = std::string(key) + ":";
  while (std::getline(in, line)) {
    if (line.compare(0, prefix.size(), prefix) != 0)
      continue;
    std::istringstream fields(line.substr(prefix.size()));
    uint64_t kb = 0;
    if (fields >> kb)
      return kb * 1024;
  }
  return std::nullopt;
}

} // namespace

std::optional<MemoryLimit> allocatable_memory() {
  std::optional<MemoryLimit> best;
  struct rlimit as {};
  if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    const uint64_t used =
        proc_kilobytes("/proc/self/status", "VmSize").value_or(0);
    const uint64_t cap = as.rlim_cur;
    best = MemoryLimit{cap > used ? cap - used : 0, "ulimit -v"};
  }
  if (auto avail = proc_kilobytes("/proc/meminfo", "MemAvailable"))
    if (!best || *avail < best->bytes)
      best = MemoryLimit{*avail, "the machine's available memory"};
  return best;
}

void refuse_past(const std::optional<MemoryLimit> &limit, uint64_t bytes,
                 const std::string &what) {
  if (!limit || bytes <= limit->bytes)
    return;
  throw Error(what + " needs about " + byte_size_text(bytes) +
              ", more than this process may allocate: " +
              byte_size_text(limit->bytes) + " (" + limit->source + ")");
}

std::string byte_size_text(uint64_t bytes) {
  static const char *const units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  if (bytes < 1000)
    return std::to_string(bytes) + " B";
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1000 && u < 5) {
    v /= 1000;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", v, units[u]);
  return text;
}

} // namespace quarry
