//===- sweep.cc - The symbolic sweep over every small case ----------------===//
#include "quarry/validate_axioms/sweep.h"

#include "quarry/core/fork_join.h"
#include "quarry/validate_axioms/case_space.h"
#include "quarry/validate_axioms/instance_check.h"

#include <tbb/parallel_for_each.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <ctime>
#include <mutex>

namespace quarry::validate_axioms {

namespace {

/// CPU time of the calling thread: chunk times stay meaningful when the
/// machine is shared (wall time would count the time other work ran).
double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

} // namespace

SweepCounts &SweepCounts::operator+=(const SweepCounts &o) {
  checked += o.checked;
  skipped += o.skipped;
  failed += o.failed;
  filtered += o.filtered;
  seconds += o.seconds;
  return *this;
}

std::vector<Chunk> plan_chunks(const verify::AxiomFile &file,
                               const SweepOptions &opts) {
  if (opts.shards < 1 || opts.shard < 0 || opts.shard >= opts.shards)
    throw Error("shard " + std::to_string(opts.shard) + "/" +
                std::to_string(opts.shards) + " does not exist");
  if (opts.chunk_size < 1)
    throw Error("the chunk size must be positive");
  std::vector<Chunk> out;
  uint64_t id = 0;
  for (size_t a = 0; a < file.axioms.size(); ++a) {
    const uint64_t n = CaseSpace(file.axioms[a], opts.sizes).size();
    for (uint64_t begin = 0; begin < n; begin += opts.chunk_size, ++id)
      if (id % opts.shards == static_cast<uint64_t>(opts.shard))
        out.push_back({id, static_cast<int>(a), begin,
                       std::min(n, begin + opts.chunk_size)});
  }
  return out;
}

ChunkResult run_chunk(const verify::AxiomFile &file, const Chunk &chunk,
                      const SweepOptions &opts) {
  const double start = thread_cpu_seconds();
  const verify::Axiom &a = file.axioms.at(chunk.axiom);
  const CaseSpace space(a, opts.sizes);
  ChunkResult r;
  r.id = chunk.id;
  r.axiom = chunk.axiom;
  for (uint64_t k = chunk.begin; k < chunk.end; ++k) {
    const CaseResult c = check_case(file, a, space.at(k), opts.z3_timeout_s);
    switch (c.outcome) {
    case CaseOutcome::Filtered:
      ++r.counts.filtered;
      break;
    case CaseOutcome::Skipped:
      ++r.counts.skipped;
      break;
    case CaseOutcome::Passed:
      ++r.counts.checked;
      break;
    case CaseOutcome::Failed:
      ++r.counts.checked;
      ++r.counts.failed;
      if (r.failures.size() < opts.failures_per_chunk)
        r.failures.push_back({a.name, k, c.detail});
      break;
    }
  }
  r.counts.seconds = thread_cpu_seconds() - start;
  return r;
}

SweepResult sweep(const verify::AxiomFile &file, const SweepOptions &opts,
                  const std::map<uint64_t, ChunkResult> &done,
                  const std::function<void(const ChunkResult &)> &on_chunk) {
  const std::vector<Chunk> plan = plan_chunks(file, opts);
  std::vector<ChunkResult> results;
  std::vector<Chunk> todo;
  for (const Chunk &c : plan) {
    auto it = done.find(c.id);
    if (it != done.end())
      results.push_back(it->second);
    else
      todo.push_back(c);
  }
  // Expensive axioms first, so the last chunks to finish are short ones.
  std::stable_sort(
      todo.begin(), todo.end(),
      [](const Chunk &x, const Chunk &y) { return x.axiom > y.axiom; });
  std::mutex mutex;
  tbb::task_arena arena(std::max(1, opts.threads));
  const ForkJoin edges;
  arena.execute([&] {
    tbb::parallel_for_each(todo.begin(), todo.end(),
                           edges.task([&](const Chunk &c) {
                             ChunkResult r = run_chunk(file, c, opts);
                             std::lock_guard lock(mutex);
                             if (on_chunk)
                               on_chunk(r);
                             results.push_back(std::move(r));
                           }));
  });
  edges.joined();
  SweepResult s = summarize(file, results);
  return s;
}

SweepResult summarize(const verify::AxiomFile &file,
                      const std::vector<ChunkResult> &chunks) {
  SweepResult s;
  std::vector<SweepCounts> per(file.axioms.size());
  for (const ChunkResult &c : chunks) {
    if (c.axiom < 0 || static_cast<size_t>(c.axiom) >= per.size())
      throw Error("chunk " + std::to_string(c.id) + " names axiom " +
                  std::to_string(c.axiom) + ", which the file does not have");
    per[c.axiom] += c.counts;
    s.total += c.counts;
    s.failures.insert(s.failures.end(), c.failures.begin(), c.failures.end());
  }
  s.chunks = chunks.size();
  for (size_t a = 0; a < per.size(); ++a)
    if (file.axioms[a].domain)
      s.axioms.push_back({file.axioms[a].name, per[a]});
  std::map<std::string, size_t> rank;
  for (size_t a = 0; a < file.axioms.size(); ++a)
    rank[file.axioms[a].name] = a;
  std::sort(s.failures.begin(), s.failures.end(),
            [&](const Failure &x, const Failure &y) {
              return std::pair(rank[x.axiom], x.case_index) <
                     std::pair(rank[y.axiom], y.case_index);
            });
  return s;
}

} // namespace quarry::validate_axioms
