//===- config.cc - Reading and writing pipeline settings ------------------===//
#include "quarry/pipeline/config.h"

#include "quarry/core/error.h"
#include "quarry/core/file_io.h"
#include "quarry/core/split_list.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace quarry::pipeline {

namespace fs = std::filesystem;

const char *stage_name(Stage s) {
  switch (s) {
  case Stage::Generate:
    return "generate";
  case Stage::Verify:
    return "verify";
  case Stage::Validate:
    return "validate";
  case Stage::Optimize:
    return "optimize";
  }
  return "?";
}

bool PipelineConfig::has(Stage s) const {
  return std::find(stages.begin(), stages.end(), s) != stages.end();
}

std::string PipelineConfig::network_name() const {
  return model.empty() ? fs::path(onnx).stem().string() : model;
}

namespace {

const Stage kAllStages[] = {Stage::Generate, Stage::Verify, Stage::Validate,
                            Stage::Optimize};

std::string trim(const std::string &s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos)
    return "";
  const size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

/// Reads one line's value; `pos` names the line in errors.
class ValueReader {
public:
  ValueReader(SourcePos pos, std::string key, std::string value,
              std::string base_dir)
      : pos_(std::move(pos)), key_(std::move(key)), value_(std::move(value)),
        base_dir_(std::move(base_dir)) {}

  long long integer(long long lo, long long hi) const {
    long long v = 0;
    const char *end = value_.data() + value_.size();
    auto [p, ec] = std::from_chars(value_.data(), end, v);
    if (ec != std::errc() || p != end || v < lo || v > hi)
      fail("an integer from " + std::to_string(lo) + " to " +
           std::to_string(hi));
    return v;
  }

  double positive_number() const {
    try {
      size_t used = 0;
      const double v = std::stod(value_, &used);
      if (used == value_.size() && v > 0)
        return v;
    } catch (const std::exception &) {
    }
    fail("a positive number");
  }

  std::string path() const {
    if (value_.empty())
      fail("a path");
    fs::path p(value_);
    if (p.is_relative())
      p = fs::path(base_dir_) / p;
    std::error_code error;
    const fs::path canonical = fs::weakly_canonical(p, error);
    if (error)
      fail("a path (" + error.message() + ")");
    return canonical.string();
  }

  std::string word() const {
    if (value_.empty() || value_.find_first_of(" \t'\"$`\\") != value_.npos)
      fail("a single word");
    return value_;
  }

  std::vector<std::string> list() const {
    std::vector<std::string> items = split_list(value_);
    for (auto &item : items) {
      item = trim(item);
      if (item.empty())
        fail("a comma-separated list without empty items");
    }
    return items;
  }

  [[noreturn]] void fail(const std::string &expected) const {
    throw Error(pos_,
                key_ + ": expected " + expected + ", got '" + value_ + "'");
  }

  const SourcePos &pos() const { return pos_; }

private:
  SourcePos pos_;
  std::string key_, value_, base_dir_;
};

using Setter = std::function<void(PipelineConfig &, const ValueReader &)>;

const std::map<std::string, Setter> &setters() {
  static const std::map<std::string, Setter> table = {
      {"stages",
       [](PipelineConfig &c, const ValueReader &v) {
         c.stages.clear();
         std::set<std::string> wanted;
         for (const std::string &s : v.list())
           wanted.insert(s);
         for (Stage s : kAllStages)
           if (wanted.erase(stage_name(s)))
             c.stages.push_back(s);
         if (!wanted.empty())
           v.fail("stages among generate,verify,validate,optimize");
       }},
      {"generator",
       [](PipelineConfig &c, const ValueReader &v) { c.generator = v.path(); }},
      {"max_ops",
       [](PipelineConfig &c, const ValueReader &v) {
         c.max_ops = static_cast<int>(v.integer(1, 6));
       }},
      {"ranks",
       [](PipelineConfig &c, const ValueReader &v) {
         c.ranks = static_cast<int>(v.integer(1, 65536));
       }},
      {"seed", [](PipelineConfig &c,
                  const ValueReader &v) { c.seed = v.integer(0, 1LL << 62); }},
      {"axioms",
       [](PipelineConfig &c, const ValueReader &v) { c.axioms = v.path(); }},
      {"verify_timeout",
       [](PipelineConfig &c, const ValueReader &v) {
         c.verify_timeout = v.positive_number();
       }},
      {"verify_shards",
       [](PipelineConfig &c, const ValueReader &v) {
         c.verify_shards = static_cast<int>(v.integer(1, 100000));
       }},
      {"verify_known", [](PipelineConfig &c,
                          const ValueReader &v) { c.verify_known = v.path(); }},
      {"verify_cache", [](PipelineConfig &c,
                          const ValueReader &v) { c.verify_cache = v.path(); }},
      {"validate_sizes",
       [](PipelineConfig &c, const ValueReader &v) {
         c.validate_sizes.clear();
         for (const std::string &s : v.list()) {
           ValueReader one(v.pos(), "validate_sizes", s, "");
           c.validate_sizes.push_back(static_cast<int>(one.integer(1, 64)));
         }
       }},
      {"validate_checks",
       [](PipelineConfig &c, const ValueReader &v) {
         static const std::set<std::string> known = {"lemmas", "redundancy",
                                                     "consistency", "sweep"};
         c.validate_checks = v.list();
         for (const std::string &s : c.validate_checks)
           if (!known.count(s))
             v.fail("checks among lemmas,redundancy,consistency,sweep");
       }},
      {"validate_shards",
       [](PipelineConfig &c, const ValueReader &v) {
         c.validate_shards = static_cast<int>(v.integer(1, 100000));
       }},
      {"model",
       [](PipelineConfig &c, const ValueReader &v) { c.model = v.word(); }},
      {"onnx",
       [](PipelineConfig &c, const ValueReader &v) { c.onnx = v.path(); }},
      {"model_size",
       [](PipelineConfig &c, const ValueReader &v) {
         c.model_size = static_cast<int>(v.integer(1, 4096));
       }},
      {"rules",
       [](PipelineConfig &c, const ValueReader &v) { c.rules = v.path(); }},
      {"optimize_budget",
       [](PipelineConfig &c, const ValueReader &v) {
         c.optimize_budget = static_cast<int>(v.integer(0, 1 << 30));
       }},
      {"optimize_alpha",
       [](PipelineConfig &c, const ValueReader &v) {
         c.optimize_alpha = v.positive_number();
       }},
      {"backend",
       [](PipelineConfig &c, const ValueReader &v) { c.backend = v.word(); }},
  };
  return table;
}

/// Settings that only make sense together, checked once the file is read.
void check_complete(const PipelineConfig &c, const std::string &name) {
  auto need = [&](bool ok, const std::string &what) {
    if (!ok)
      throw Error(SourcePos{name, 0, 0}, what);
  };
  need(!c.stages.empty(), "stages: no stage to run");
  need(!c.has(Stage::Generate) || !c.generator.empty(),
       "the generate stage needs 'generator = FILE'");
  need(!(c.has(Stage::Verify) || c.has(Stage::Validate)) || !c.axioms.empty(),
       "the verify and validate stages need 'axioms = FILE'");
  need(!c.has(Stage::Verify) || c.has(Stage::Generate),
       "the verify stage proves this run's candidates: it needs the "
       "generate stage");
  if (c.has(Stage::Optimize)) {
    need(c.model.empty() != c.onnx.empty(),
         "the optimize stage needs one of 'model = NAME' or 'onnx = FILE'");
    need(c.has(Stage::Verify) || !c.rules.empty(),
         "the optimize stage needs the verify stage or 'rules = FILE'");
  }
  need(c.rules.empty() || !c.has(Stage::Verify),
       "'rules = FILE' is for runs without the verify stage, which use the "
       "rules they prove");
}

} // namespace

PipelineConfig parse_pipeline_config(const std::string &text,
                                     const std::string &name,
                                     const std::string &base_dir) {
  PipelineConfig c;
  std::set<std::string> seen;
  std::istringstream in(text);
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    const std::string body = trim(line.substr(0, line.find('#')));
    if (body.empty())
      continue;
    const size_t eq = body.find('=');
    const SourcePos pos{name, line_no, 1};
    if (eq == std::string::npos)
      throw Error(pos, "expected 'key = value', got '" + body + "'");
    const std::string key = trim(body.substr(0, eq));
    const auto it = setters().find(key);
    if (it == setters().end())
      throw Error(pos, "unknown key '" + key +
                           "' (docs/PIPELINE.md lists the keys)");
    if (!seen.insert(key).second)
      throw Error(pos, "'" + key + "' is set twice");
    it->second(c, ValueReader(pos, key, trim(body.substr(eq + 1)), base_dir));
  }
  check_complete(c, name);
  return c;
}

PipelineConfig read_pipeline_config(const std::string &path) {
  const std::string dir = fs::absolute(path).parent_path().string();
  return parse_pipeline_config(read_file_bytes(path), path, dir);
}

std::string format_pipeline_config(const PipelineConfig &c) {
  std::vector<std::string> stages;
  for (Stage s : c.stages)
    stages.push_back(stage_name(s));
  std::ostringstream out;
  out << "# quarry pipeline settings (all keys, paths absolute)\n";
  auto key = [&](const char *k, const auto &v) {
    out << k << " = " << v << "\n";
  };
  key("stages", join_list(stages));
  if (!c.generator.empty())
    key("generator", c.generator);
  key("max_ops", c.max_ops);
  key("ranks", c.ranks);
  key("seed", c.seed);
  if (!c.axioms.empty())
    key("axioms", c.axioms);
  key("verify_timeout", c.verify_timeout);
  key("verify_shards", c.verify_shards);
  if (!c.verify_known.empty())
    key("verify_known", c.verify_known);
  if (!c.verify_cache.empty())
    key("verify_cache", c.verify_cache);
  key("validate_sizes", join_list(c.validate_sizes));
  key("validate_checks", join_list(c.validate_checks));
  key("validate_shards", c.validate_shards);
  if (!c.model.empty())
    key("model", c.model);
  if (!c.onnx.empty())
    key("onnx", c.onnx);
  if (c.model_size)
    key("model_size", c.model_size);
  if (!c.rules.empty())
    key("rules", c.rules);
  key("optimize_budget", c.optimize_budget);
  key("optimize_alpha", c.optimize_alpha);
  key("backend", c.backend);
  return out.str();
}

} // namespace quarry::pipeline
