//===- generate.cc - Enumerate, route, dedupe, write ----------------------===//
#include "quarry/generate/generate.h"

#include "quarry/core/error.h"
#include "quarry/core/file_io.h"
#include "quarry/core/hash.h"
#include "quarry/dedupe/pruning.h"
#include "quarry/dedupe/renaming.h"
#include "quarry/dedupe/shard.h"
#include "quarry/enumerate/enumerator.h"
#include "quarry/generate/progress.h"

#include <nlohmann/json.hpp>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace quarry {

namespace {

/// Graphs of at most this many operators are also routed as their renamed
/// copies (dedupe/renaming.h): enough for associativity and distributivity
/// over a shared operand, whose larger instances follow from them.
constexpr int kRenamedCopiesMaxOps = 3;

/// The fingerprint bits a run keeps (--fingerprint-bits, for tests that
/// force collisions).
uint64_t fingerprint_mask(const GenerateOptions &o) {
  return o.fingerprint_bits >= 64 ? ~uint64_t{0}
                                  : (uint64_t{1} << o.fingerprint_bits) - 1;
}

std::string batch_dir(const GenerateOptions &o, const Comm &comm) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "/batches/r%05d-of-%05d", comm.rank(),
                comm.size());
  return o.out_dir + buf;
}

std::string batch_file(const std::string &dir, uint64_t batch) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "/b%08llu.rec",
                static_cast<unsigned long long>(batch));
  return dir + buf;
}

/// The settings a run directory is tied to; a restart must match them.
std::string run_settings(const GenerateOptions &o, const std::string &sha,
                         int ranks) {
  nlohmann::ordered_json j;
  j["config_sha256"] = sha;
  j["max_ops"] = o.max_ops;
  j["seed"] = o.seed;
  j["ranks"] = ranks;
  j["fingerprint_bits"] = o.fingerprint_bits;
  return j.dump(2) + "\n";
}

uint64_t peak_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<uint64_t>(u.ru_maxrss) * 1024;
}

int owner_of(uint64_t h, int ranks) {
  return static_cast<int>(mix64(h) % static_cast<uint64_t>(ranks));
}

/// Fingerprint classes are formed in passes over disjoint parts of the
/// fingerprint space when all records would not fit in memory at once.
int pass_of(uint64_t fp, int passes) {
  return static_cast<int>(mix64(fp ^ 0x9a55) % static_cast<uint64_t>(passes));
}

/// Bytes of batch files this rank wrote.
uint64_t batch_bytes(const std::string &dir) {
  uint64_t total = 0;
  for (const auto &entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".rec")
      total += entry.file_size();
  return total;
}

/// Phase 1: this rank's units, into batch files; finished batches are kept
/// from an earlier attempt and skipped. Returns how many were kept.
uint64_t enumerate_batches(const GenerateOptions &o, const GenConfig &cfg,
                           const Comm &comm, Progress &progress) {
  progress.begin("enumerate");
  const std::string dir = batch_dir(o, comm);
  fs::create_directories(dir);
  Enumerator e(cfg, o.max_ops, o.seed);
  const uint64_t mask = fingerprint_mask(o);
  uint64_t owned = 0;
  int64_t open_batch = -1;
  bool skipping = false;
  std::FILE *out = nullptr;
  std::string out_tmp;
  int batches_written = 0;
  uint64_t graphs = 0, kept = 0;
  auto close_batch = [&] {
    if (!out)
      return;
    const bool ok = std::fflush(out) == 0 && fsync(fileno(out)) == 0;
    std::fclose(out);
    out = nullptr;
    if (!ok)
      throw Error(out_tmp + ": write failed");
    fs::rename(out_tmp, batch_file(dir, open_batch));
    ++batches_written;
    if (o.exit_after_batches >= 0 && comm.rank() == o.exit_rank &&
        batches_written >= o.exit_after_batches)
      std::_Exit(9); // test hook: die like a killed process
  };
  auto mine = [&](uint64_t unit) {
    if (static_cast<int>(unit % comm.size()) != comm.rank())
      return false;
    const auto batch = static_cast<int64_t>(owned++ / o.units_per_batch);
    if (batch != open_batch) {
      close_batch();
      open_batch = batch;
      skipping = fs::exists(batch_file(dir, batch));
      kept += skipping;
      if (!skipping) {
        out_tmp = batch_file(dir, batch) + ".tmp";
        out = std::fopen(out_tmp.c_str(), "wb");
        if (!out)
          throw Error(out_tmp + ": cannot create: " + std::strerror(errno));
      }
    }
    progress.update("enumerate", graphs, "graphs");
    return !skipping;
  };
  auto emit = [&](const GraphRecord &r) {
    GraphRecord masked = r;
    masked.fp &= mask;
    if (std::fwrite(&masked, sizeof masked, 1, out) != 1)
      throw Error(out_tmp + ": write failed");
    ++graphs;
  };
  e.run(mine, emit);
  close_batch();
  progress.done("enumerate", graphs, "graphs");
  return kept;
}

/// Phase 2: route every record of this rank's batches, and the renamed
/// copies of the small ones, to the owner of its fingerprint, in rounds of
/// at most exchange_batch records per rank (a round may go over by one
/// record's copies).
std::vector<GraphRecord>
exchange_records(const GenerateOptions &o, const Comm &comm, int pass,
                 int passes, const RenamedCopies &copies,
                 uint64_t &copies_routed, Progress &progress) {
  const std::string dir = batch_dir(o, comm);
  std::vector<std::string> files;
  for (const auto &entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".rec")
      files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  const uint64_t mask = fingerprint_mask(o);
  size_t file_index = 0;
  std::ifstream in;
  // Each round's records stay in the buffer they arrived in until the pass
  // is over, and are then copied once into a vector of the right size.
  // Appending them to one growing vector held them twice whenever it grew
  // (the old buffer and its copy): that was the generator's peak.
  std::vector<std::vector<char>> arrived;
  size_t received = 0;
  uint64_t sent = 0;
  const std::string stage = passes > 1
                                ? "exchange " + std::to_string(pass + 1) + "/" +
                                      std::to_string(passes)
                                : std::string("exchange");
  progress.begin(stage);
  for (;;) {
    std::vector<std::vector<char>> send(comm.size());
    uint64_t batch = 0;
    while (batch < o.exchange_batch) {
      if (!in.is_open()) {
        if (file_index == files.size())
          break;
        const std::string &f = files[file_index];
        if (fs::file_size(f) % sizeof(GraphRecord) != 0)
          throw Error(f + ": truncated batch file (corrupt batch directory)");
        in.open(f, std::ios::binary);
      }
      GraphRecord r;
      if (!in.read(reinterpret_cast<char *>(&r), sizeof r)) {
        in.close();
        ++file_index;
        continue;
      }
      auto route = [&](const GraphRecord &g) {
        if (pass_of(g.fp, passes) != pass)
          return false;
        auto &buf = send[owner_of(g.fp, comm.size())];
        const auto *bytes = reinterpret_cast<const char *>(&g);
        buf.insert(buf.end(), bytes, bytes + sizeof g);
        ++batch;
        return true;
      };
      route(r);
      for (GraphRecord c : copies.of(r)) {
        c.fp &= mask;
        copies_routed += route(c);
      }
    }
    sent += batch;
    arrived.push_back(comm.all_to_all(send));
    received += arrived.back().size() / sizeof(GraphRecord);
    progress.update(stage, sent, "records sent");
    const bool more = file_index < files.size();
    if (comm.max(more ? 1 : 0) == 0)
      break;
  }
  progress.done(stage, sent, "records sent");
  // Reserved pages are touched only as each buffer is copied and freed.
  std::vector<GraphRecord> mine;
  mine.reserve(received);
  for (std::vector<char> &got : arrived) {
    const size_t at = mine.size();
    mine.resize(at + got.size() / sizeof(GraphRecord));
    std::memcpy(mine.data() + at, got.data(), got.size());
    std::vector<char>().swap(got);
  }
  return mine;
}

/// Phase 4: routes pairs by renaming key, so renamed copies meet, and keeps
/// the first of each key (in record order, whatever the rank count).
std::vector<CandidatePair>
dedupe_renamings(const GenConfig &cfg, const std::vector<CandidatePair> &pairs,
                 const Comm &comm) {
  std::vector<std::vector<char>> send(comm.size());
  for (const CandidatePair &p : pairs) {
    auto &buf = send[owner_of(hash_bytes(renaming_key(cfg, p)), comm.size())];
    const auto *bytes = reinterpret_cast<const char *>(&p);
    buf.insert(buf.end(), bytes, bytes + sizeof p);
  }
  const std::vector<char> got = comm.all_to_all(send);
  struct Keyed {
    std::string key;
    CandidatePair pair;
  };
  std::vector<Keyed> keyed(got.size() / sizeof(CandidatePair));
  for (size_t i = 0; i < keyed.size(); ++i) {
    std::memcpy(&keyed[i].pair, got.data() + i * sizeof(CandidatePair),
                sizeof(CandidatePair));
    keyed[i].key = renaming_key(cfg, keyed[i].pair);
  }
  std::sort(keyed.begin(), keyed.end(), [](const Keyed &a, const Keyed &b) {
    if (a.key != b.key)
      return a.key < b.key;
    if (a.pair.source.record.key != b.pair.source.record.key)
      return a.pair.source.record.key < b.pair.source.record.key;
    return a.pair.target.record.key < b.pair.target.record.key;
  });
  std::vector<CandidatePair> out;
  for (size_t i = 0; i < keyed.size(); ++i)
    if (i == 0 || keyed[i].key != keyed[i - 1].key)
      out.push_back(keyed[i].pair);
  return out;
}

bool read_manifest_if_any(const std::string &path, Manifest &m) {
  if (!fs::exists(path))
    return false;
  m = read_manifest(path);
  return true;
}

} // namespace

GenerateOutcome run_generate(const GenerateOptions &o, const Comm &comm) {
  const auto start = std::chrono::steady_clock::now();
  // Until the work starts, every rank reaches the same verdict (the checks
  // read the same files), or rank 0 decides and tells the others, so a bad
  // flag or config ends every rank with one message instead of a hang.
  std::string config_text, config_sha;
  GenConfig cfg;
  try {
    if (o.max_ops < 1 || o.max_ops > kMaxGenOps)
      throw Error("--max-ops must be from 1 to " + std::to_string(kMaxGenOps));
    if (o.fingerprint_bits < 1 || o.fingerprint_bits > 64)
      throw Error("--fingerprint-bits must be from 1 to 64");
    if (o.units_per_batch < 1 || o.exchange_batch < 1)
      throw Error("--units-per-batch and --exchange-batch must be positive");
    config_text = read_file_bytes(o.config_path);
    cfg = parse_gen_config(config_text, o.config_path);
    config_sha = sha256_hex(config_text);
  } catch (const Error &e) {
    throw CollectiveError(e.what());
  }
  const std::string manifest_path = o.out_dir + "/manifest.json";
  const std::string settings = run_settings(o, config_sha, comm.size());
  const std::string settings_path = o.out_dir + "/batches/run.json";
  std::string verdict; // rank 0: why this directory cannot be used
  Manifest previous;
  bool finished = false;
  if (comm.rank() == 0) {
    try {
      if (read_manifest_if_any(manifest_path, previous)) {
        finished = previous.config_sha256 == config_sha &&
                   previous.max_ops == o.max_ops && previous.seed == o.seed &&
                   previous.ranks == comm.size() &&
                   previous.fingerprint_bits == o.fingerprint_bits;
        if (!finished)
          throw Error(manifest_path + ": holds a finished run with other "
                                      "settings; choose another --out");
      } else {
        fs::create_directories(o.out_dir + "/batches");
        if (!fs::exists(settings_path))
          write_file_atomic(settings_path, settings);
        else if (read_file_bytes(settings_path) != settings)
          throw Error(settings_path +
                      ": an unfinished run with other settings (config, "
                      "--max-ops, --seed or rank count) is here; rerun it "
                      "with those or choose another --out");
      }
    } catch (const Error &e) {
      verdict = e.what();
    } catch (const fs::filesystem_error &e) {
      verdict = o.out_dir + ": " + e.code().message();
    }
  }
  const uint64_t state = comm.max(!verdict.empty() ? 2 : finished ? 1 : 0);
  if (state == 2)
    throw CollectiveError(verdict);
  if (state == 1) {
    if (comm.rank() != 0)
      previous = read_manifest(manifest_path);
    return {previous, true};
  }

  Progress progress(comm.rank() == 0 && !o.quiet);
  const uint64_t kept_batches =
      comm.sum({enumerate_batches(o, cfg, comm, progress)})[0];
  // Each pass holds about total/ranks/passes records per rank.
  const uint64_t largest = comm.max(batch_bytes(batch_dir(o, comm)));
  const uint64_t budget = std::max<uint64_t>(o.memory_per_rank, 1 << 20);
  const int passes =
      static_cast<int>(std::min<uint64_t>(1 + largest / budget, 4096));
  ClassStats stats;
  const RenamedCopies copies(cfg, o.seed, kRenamedCopiesMaxOps);
  uint64_t copies_routed = 0;
  std::vector<CandidatePair> pairs;
  for (int pass = 0; pass < passes; ++pass) {
    std::vector<GraphRecord> records = exchange_records(
        o, comm, pass, passes, copies, copies_routed, progress);
    std::vector<CandidatePair> part =
        form_candidate_pairs(cfg, o.seed, records, stats);
    pairs.insert(pairs.end(), part.begin(), part.end());
  }
  std::vector<CandidatePair> renamed = dedupe_renamings(cfg, pairs, comm);
  std::vector<CandidatePair> kept;
  for (const CandidatePair &p : renamed)
    if (!has_common_subgraph(cfg, p.source.record, p.target.record) &&
        !has_common_supergraph(cfg, p.source.record, p.target.record))
      kept.push_back(p);

  const std::vector<std::string> stage_names = {
      "graphs",         "renamed_copies",
      "reorderings",    "classes",
      "collisions",     "candidates",
      "after_renaming", "after_subgraph_pruning"};
  const std::vector<uint64_t> local = {
      stats.graphs,     copies_routed,    stats.reorderings, stats.classes,
      stats.collisions, stats.candidates, renamed.size(),    kept.size()};
  const std::vector<uint64_t> totals = comm.sum(local);

  Shard shard;
  shard.rank = comm.rank();
  shard.ranks = comm.size();
  shard.pairs = std::move(kept);
  for (size_t i = 0; i < stage_names.size(); ++i)
    shard.stage_counts.emplace_back(stage_names[i],
                                    static_cast<int64_t>(local[i]));
  const std::string shard_name = shard_file_name(comm.rank(), comm.size());
  const std::string shard_path = o.out_dir + "/" + shard_name;
  write_shard(shard_path, shard);
  const std::string entry = shard_name + "\n" + sha256_file(shard_path) + "\n" +
                            std::to_string(fs::file_size(shard_path)) + "\n" +
                            std::to_string(shard.pairs.size());
  const std::vector<std::string> entries = comm.gather(entry);
  const uint64_t peak = comm.max(peak_rss_bytes());

  Manifest m;
  m.config_file = base_name(o.config_path);
  m.config_text = config_text;
  m.config_sha256 = config_sha;
  m.seed = o.seed;
  m.max_ops = o.max_ops;
  m.ranks = comm.size();
  m.fingerprint_bits = o.fingerprint_bits;
  for (size_t i = 0; i < stage_names.size(); ++i)
    m.totals.emplace_back(stage_names[i], totals[i]);
  m.peak_rss_bytes = peak;
  m.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (comm.rank() == 0) {
    for (const std::string &e : entries) {
      ShardEntry s;
      std::istringstream is(e);
      is >> s.file >> s.sha256 >> s.bytes >> s.pairs;
      m.shards.push_back(s);
    }
    write_manifest(manifest_path, m);
    if (!o.keep_batches)
      fs::remove_all(o.out_dir + "/batches");
  }
  comm.barrier();
  progress.finish(totals.back(), "candidate rules");
  return {m, false, kept_batches};
}

} // namespace quarry
