//===- streams.cc - Waves of independent steps, placed on streams ---------===//
#include "quarry/runtime/streams.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace quarry::runtime {

HappensBefore::HappensBefore(int steps)
    : steps_(steps), words_((static_cast<size_t>(steps) + 63) / 64),
      reach_(static_cast<size_t>(steps) * words_, 0) {}

HappensBefore::HappensBefore(const std::vector<std::vector<int>> &preds)
    : HappensBefore(static_cast<int>(preds.size())) {
  for (size_t s = 0; s < preds.size(); ++s)
    add_step(static_cast<int>(s), preds[s]);
}

void HappensBefore::add_step(int step, const std::vector<int> &preds) {
  uint64_t *row = reach_.data() + static_cast<size_t>(step) * words_;
  for (int p : preds) {
    const uint64_t *from = reach_.data() + static_cast<size_t>(p) * words_;
    for (size_t w = 0; w < words_; ++w)
      row[w] |= from[w];
    row[p / 64] |= uint64_t{1} << (p % 64);
  }
}

std::vector<std::vector<int>>
producers_of(const std::vector<ScheduledStep> &schedule) {
  std::map<ValueRef, int> writer;
  std::vector<std::vector<int>> producers(schedule.size());
  for (size_t s = 0; s < schedule.size(); ++s) {
    for (ValueRef v : schedule[s].reads) {
      auto it = writer.find(v);
      if (it != writer.end() &&
          std::find(producers[s].begin(), producers[s].end(), it->second) ==
              producers[s].end())
        producers[s].push_back(it->second);
    }
    for (ValueRef v : schedule[s].writes)
      writer[v] = static_cast<int>(s);
  }
  return producers;
}

StreamPlan assign_streams(const std::vector<ScheduledStep> &schedule,
                          int max_streams) {
  const int n = static_cast<int>(schedule.size());
  const std::vector<std::vector<int>> producers = producers_of(schedule);
  StreamPlan plan;
  plan.wave_of.assign(n, 0);
  std::map<int, int> width;
  for (int s = 0; s < n; ++s) {
    for (int p : producers[s])
      plan.wave_of[s] = std::max(plan.wave_of[s], plan.wave_of[p] + 1);
    plan.waves = std::max(plan.waves, plan.wave_of[s] + 1);
    plan.widest_wave = std::max(plan.widest_wave, ++width[plan.wave_of[s]]);
  }
  const int streams = std::max(
      1, max_streams > 0 ? max_streams
                         : std::min(plan.widest_wave, kMaxAutoStreams));

  plan.order.resize(static_cast<size_t>(n));
  std::iota(plan.order.begin(), plan.order.end(), 0);
  if (streams > 1)
    std::stable_sort(plan.order.begin(), plan.order.end(), [&](int a, int b) {
      return plan.wave_of[a] < plan.wave_of[b];
    });

  plan.stream_of.assign(n, 0);
  plan.waits.assign(n, {});
  plan.signals.assign(n, false);
  plan.happens_before = HappensBefore(n);
  std::vector<int> last_on(streams, -1); ///< the latest step of each stream
  std::map<int, std::vector<int>> load;  ///< wave -> steps per stream
  int used = 1;
  for (int s : plan.order) {
    std::vector<int> &in_wave = load[plan.wave_of[s]];
    in_wave.resize(streams, 0);
    int t = -1;
    for (int p : producers[s])
      if (in_wave[plan.stream_of[p]] == 0) {
        t = plan.stream_of[p];
        break;
      }
    if (t < 0)
      for (int c = 0; c < streams && t < 0; ++c)
        if (in_wave[c] == 0)
          t = c;
    if (t < 0) // every stream has a step of this wave: the least loaded
      t = static_cast<int>(std::min_element(in_wave.begin(), in_wave.end()) -
                           in_wave.begin());
    ++in_wave[t];
    used = std::max(used, t + 1);
    plan.stream_of[s] = t;

    std::vector<int> preds;
    if (last_on[t] >= 0)
      preds.push_back(last_on[t]);
    for (int p : producers[s]) {
      const bool implied =
          last_on[t] >= 0 &&
          (p == last_on[t] || plan.happens_before(p, last_on[t]));
      if (plan.stream_of[p] != t && !implied) {
        plan.waits[s].push_back(p);
        plan.signals[p] = true;
        preds.push_back(p);
      }
    }
    plan.happens_before.add_step(s, preds);
    last_on[t] = s;
  }
  plan.streams = used;
  return plan;
}

} // namespace quarry::runtime
