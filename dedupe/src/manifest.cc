//===- manifest.cc - manifest.json and checksums --------------------------===//
#include "quarry/dedupe/manifest.h"

#include "quarry/core/error.h"
#include "quarry/core/file_io.h"
#include "quarry/core/json_field.h"

#include <nlohmann/json.hpp>
#include <openssl/evp.h>

#include <cstdio>
#include <fstream>

namespace quarry {

std::string sha256_hex(std::string_view bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!EVP_Digest(bytes.data(), bytes.size(), md, &len, EVP_sha256(), nullptr))
    throw Error("sha256 failed");
  std::string hex;
  char buf[3];
  for (unsigned i = 0; i < len; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", md[i]);
    hex += buf;
  }
  return hex;
}

std::string sha256_file(const std::string &path) {
  return sha256_hex(read_file_bytes(path));
}

void write_manifest(const std::string &path, const Manifest &m) {
  nlohmann::ordered_json j;
  j["format"] = kManifestFormat;
  j["config"] = {{"file", m.config_file},
                 {"sha256", m.config_sha256},
                 {"text", m.config_text}};
  j["seed"] = m.seed;
  j["max_ops"] = m.max_ops;
  j["ranks"] = m.ranks;
  j["fingerprint_bits"] = m.fingerprint_bits;
  nlohmann::ordered_json totals = nlohmann::ordered_json::object();
  for (const auto &[k, v] : m.totals)
    totals[k] = v;
  j["totals"] = totals;
  j["shards"] = nlohmann::ordered_json::array();
  for (const ShardEntry &s : m.shards)
    j["shards"].push_back({{"file", s.file},
                           {"sha256", s.sha256},
                           {"bytes", s.bytes},
                           {"pairs", s.pairs}});
  j["seconds"] = m.seconds;
  j["peak_rss_bytes_per_rank"] = m.peak_rss_bytes;
  write_file_atomic(path, j.dump(2) + "\n");
}

Manifest read_manifest(const std::string &path) {
  const JsonField::Json j = JsonField::parse_file(path);
  const JsonField f(j, path);
  f.expect_format(kManifestFormat);
  Manifest m;
  const JsonField config = f["config"];
  m.config_file = config["file"].text();
  m.config_sha256 = config["sha256"].text();
  m.config_text = config["text"].text();
  m.seed = f["seed"].integer<uint64_t>();
  m.max_ops = f["max_ops"].integer<int>();
  m.ranks = f["ranks"].integer<int>();
  m.fingerprint_bits = f["fingerprint_bits"].integer<int>();
  f["totals"].for_each_member([&](const std::string &k, const JsonField &v) {
    m.totals.emplace_back(k, v.integer<uint64_t>());
  });
  f["shards"].for_each([&](const JsonField &s) {
    m.shards.push_back({s["file"].text(), s["sha256"].text(),
                        s["bytes"].integer<uint64_t>(),
                        s["pairs"].integer<uint64_t>()});
  });
  m.seconds = f.has("seconds") ? f["seconds"].number() : 0.0;
  if (f.has("peak_rss_bytes_per_rank"))
    m.peak_rss_bytes = f["peak_rss_bytes_per_rank"].integer<uint64_t>();
  return m;
}

} // namespace quarry
