//===- cost_cache.cc - Append-only, checksummed, flock-guarded records ----===//
#include "quarry/runtime/cost_cache.h"

#include "quarry/core/hash.h"
#include "quarry/core/text.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace quarry::runtime {

namespace {

constexpr std::string_view kTag = "q1";

[[noreturn]] void fail_errno(const std::string &path, const char *what) {
  throw Error(path + ": " + what + ": " + std::strerror(errno));
}

/// The cache file, open and exclusively locked for this object's lifetime.
class LockedFile {
public:
  explicit LockedFile(const std::string &path, int extra_flags = 0)
      : path_(path) {
    const auto parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty())
      std::filesystem::create_directories(parent, ec);
    fd_ =
        ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | extra_flags, 0644);
    if (fd_ < 0)
      fail_errno(path, "cannot open cost cache");
    if (::flock(fd_, LOCK_EX) != 0) {
      ::close(fd_);
      fail_errno(path, "cannot lock cost cache");
    }
  }
  ~LockedFile() { ::close(fd_); } // closing releases the lock
  LockedFile(const LockedFile &) = delete;
  LockedFile &operator=(const LockedFile &) = delete;

  std::string read_all() const {
    std::string bytes;
    char buf[1 << 16];
    for (off_t at = 0;;) {
      const ssize_t n = ::pread(fd_, buf, sizeof buf, at);
      if (n < 0)
        fail_errno(path_, "cannot read cost cache");
      if (n == 0)
        return bytes;
      bytes.append(buf, static_cast<size_t>(n));
      at += n;
    }
  }

  off_t size() const {
    struct stat st {};
    if (::fstat(fd_, &st) != 0)
      fail_errno(path_, "cannot stat cost cache");
    return st.st_size;
  }

  char last_byte() const {
    char c = '\n';
    const off_t n = size();
    if (n > 0 && ::pread(fd_, &c, 1, n - 1) != 1)
      fail_errno(path_, "cannot read cost cache");
    return c;
  }

  void write_all(std::string_view bytes, off_t at) {
    while (!bytes.empty()) {
      const ssize_t n = ::pwrite(fd_, bytes.data(), bytes.size(), at);
      if (n < 0)
        fail_errno(path_, "cannot write cost cache");
      bytes.remove_prefix(static_cast<size_t>(n));
      at += n;
    }
  }

  /// One write() with O_APPEND: the record lands whole at the end.
  void append(std::string_view bytes) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n != static_cast<ssize_t>(bytes.size()))
      fail_errno(path_, "cannot append to cost cache");
  }

  void truncate(off_t n) {
    if (::ftruncate(fd_, n) != 0)
      fail_errno(path_, "cannot truncate cost cache");
  }

private:
  std::string path_;
  int fd_ = -1;
};

std::string check_of(std::string_view body) {
  return hash_hex(hash_bytes(body));
}

std::string format_record(const std::string &key, double ms) {
  char num[32];
  std::snprintf(num, sizeof num, "%.9g", ms);
  const std::string body = std::string(kTag) + "\t" + key + "\t" + num;
  return body + "\t" + check_of(body) + "\n";
}

/// Parses one line (without its newline); false when it is corrupt.
bool parse_record(std::string_view line, std::string &key, double &ms) {
  const size_t last = line.rfind('\t');
  if (last == std::string_view::npos || line.substr(last + 1).size() != 16)
    return false;
  const std::string_view body = line.substr(0, last);
  if (check_of(body) != line.substr(last + 1))
    return false;
  const size_t num_at = body.rfind('\t');
  if (body.substr(0, kTag.size() + 1) != std::string(kTag) + "\t" ||
      num_at <= kTag.size())
    return false;
  const std::string num(body.substr(num_at + 1));
  char *end = nullptr;
  ms = std::strtod(num.c_str(), &end);
  if (num.empty() || *end != '\0' || !std::isfinite(ms) || ms < 0)
    return false;
  key = std::string(body.substr(kTag.size() + 1, num_at - kTag.size() - 1));
  return true;
}

} // namespace

CostCache::CostCache(std::string path) : path_(std::move(path)) {
  LockedFile f(path_);
  const std::string bytes = f.read_all();
  std::string kept;
  int line_no = 0, corrupt = 0;
  for (size_t at = 0; at < bytes.size();) {
    ++line_no;
    const size_t nl = bytes.find('\n', at);
    // A last line without its newline is a torn write.
    const bool whole = nl != std::string::npos;
    const std::string_view line(bytes.data() + at,
                                (whole ? nl : bytes.size()) - at);
    at = whole ? nl + 1 : bytes.size();
    std::string key;
    double ms = 0;
    if (whole && parse_record(line, key, ms)) {
      costs_.insert_or_assign(key, ms);
      kept.append(line).push_back('\n');
      continue;
    }
    ++corrupt;
    warnings_.push_back(SourcePos{path_, line_no, 0}.str() +
                        ": corrupt cost record skipped");
  }
  if (corrupt > 0) {
    f.write_all(kept, 0);
    f.truncate(static_cast<off_t>(kept.size()));
    warnings_.push_back(path_ + ": rewritten without " +
                        std::to_string(corrupt) + " corrupt record" +
                        (corrupt == 1 ? "" : "s"));
  }
}

std::string CostCache::key(std::string_view backend, std::string_view device,
                           const OpConfig &c, bool cold_weights) {
  // Tabs and newlines separate fields and records; no field may hold one.
  auto field = [](std::string_view text) {
    std::string f(text);
    for (char &ch : f)
      if (ch == '\t' || ch == '\n' || ch == '\r')
        ch = ' ';
    return f;
  };
  return field(backend) + "\t" + field(device) + "\t" + field(c.key()) +
         (cold_weights ? " cold-weights" : "");
}

std::optional<double> CostCache::find(const std::string &key) const {
  auto it = costs_.find(key);
  if (it == costs_.end())
    return std::nullopt;
  return it->second;
}

void CostCache::insert(const std::string &key, double ms) {
  const std::string record = format_record(key, ms);
  {
    LockedFile f(path_, O_APPEND);
    // After a torn write the file may not end in a newline; start afresh
    // so this record stays whole (the torn one is dropped on next read).
    f.append(f.last_byte() == '\n' ? record : "\n" + record);
  }
  costs_.insert_or_assign(key, ms);
}

namespace {

/// A cost as the file will give it back (9 significant digits), so that a
/// cost read later equals the one returned now.
double as_stored(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", ms);
  return std::strtod(text, nullptr);
}

/// Slower than the fastest canary seen by more than this, the machine was
/// not all the measurement's.
constexpr double kCanarySlack = 1.25;
/// How long to let a disturbance pass before measuring again.
constexpr auto kDisturbedPause = std::chrono::milliseconds(100);

/// With no canary on record, the first is the fastest of this many, this
/// far apart: a slow spell lasts seconds, and a baseline taken in one
/// would pass every measurement made in the next.
constexpr int kBaselineSamples = 10;
constexpr auto kBaselinePause = std::chrono::milliseconds(200);

OpCost time_canary(Backend &b, const MeasureOptions &opts) {
  return measure_op(b, canary_config(), {1, 3, opts.seed, 1, false});
}

/// Whether the machine gives a measurement all of itself now: the canary
/// timed within kCanarySlack of the fastest the cache has seen for it,
/// which it records when it is faster still.
bool machine_steady(CostCache &cache, Backend &b, const MeasureOptions &opts) {
  const std::string key =
      CostCache::key(b.name(), b.device_name(), canary_config());
  if (!cache.find(key)) {
    std::optional<double> fastest;
    for (int i = 0; i < kBaselineSamples; ++i) {
      if (i > 0)
        std::this_thread::sleep_for(kBaselinePause);
      const OpCost sample = time_canary(b, opts);
      if (sample.steady && (!fastest || sample.ms < *fastest))
        fastest = sample.ms;
    }
    if (fastest)
      cache.insert(key, as_stored(*fastest));
  }
  const OpCost now = time_canary(b, opts);
  const std::optional<double> best = cache.find(key);
  if (now.steady && (!best || now.ms < *best))
    cache.insert(key, as_stored(now.ms));
  return now.steady && (!best || now.ms <= kCanarySlack * *best);
}

} // namespace

const OpConfig &canary_config() {
  static const OpConfig config = [] {
    const Graph g = parse_graph("input a: [256,256]\nweight b: [256,256]\n"
                                "c = matmul(a, b)\noutput c\n",
                                "<canary>");
    return op_config(g, g.outputs().front().node);
  }();
  return config;
}

double cached_measure(CostCache &cache, Backend &b, const OpConfig &c,
                      const MeasureOptions &opts, bool *measured) {
  const std::string key =
      CostCache::key(b.name(), b.device_name(), c, opts.cold_weights);
  if (auto ms = cache.find(key)) {
    if (measured)
      *measured = false;
    return *ms;
  }
  // Each attempt is one measure_op attempt between two canaries (why:
  // cost_cache.h).
  MeasureOptions once = opts;
  once.attempts = 1;
  OpCost best;
  bool steady = false;
  for (int attempt = 0; attempt < std::max(opts.attempts, 1); ++attempt) {
    if (attempt > 0)
      std::this_thread::sleep_for(kDisturbedPause);
    const bool before = !opts.canary || machine_steady(cache, b, opts);
    const OpCost cost = measure_op(b, c, once);
    const bool after = !opts.canary || machine_steady(cache, b, opts);
    if (attempt == 0 || cost.ms < best.ms)
      best = cost;
    if (cost.steady && before && after) {
      best = cost;
      steady = true;
      break;
    }
  }
  const double ms = as_stored(best.ms);
  if (steady)
    cache.insert(key, ms);
  else
    cache.count_unsteady();
  if (measured)
    *measured = true;
  return ms;
}

} // namespace quarry::runtime
