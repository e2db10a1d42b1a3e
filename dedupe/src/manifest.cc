//===- manifest.cc - manifest.json and checksums --------------------------===//
#include "quarry/dedupe/manifest.h"

#include "quarry/core/error.h"
#include "quarry/core/file_io.h"
#include "quarry/core/json_integer.h"

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
  const std::string text = read_file_bytes(path);
  Manifest m;
  try {
    const auto j = nlohmann::ordered_json::parse(text);
    if (j.at("format").get<std::string>() != kManifestFormat)
      throw Error(path + ": not a quarry generator manifest (format " +
                  j.at("format").dump() + ")");
    m.config_file = j.at("config").at("file").get<std::string>();
    m.config_sha256 = j.at("config").at("sha256").get<std::string>();
    m.config_text = j.at("config").at("text").get<std::string>();
    m.seed = json_integer<uint64_t>(j.at("seed"));
    m.max_ops = json_integer<int>(j.at("max_ops"));
    m.ranks = json_integer<int>(j.at("ranks"));
    m.fingerprint_bits = json_integer<int>(j.at("fingerprint_bits"));
    for (const auto &[k, v] : j.at("totals").items())
      m.totals.emplace_back(k, json_integer<uint64_t>(v));
    for (const auto &s : j.at("shards"))
      m.shards.push_back({s.at("file").get<std::string>(),
                          s.at("sha256").get<std::string>(),
                          json_integer<uint64_t>(s.at("bytes")),
                          json_integer<uint64_t>(s.at("pairs"))});
    m.seconds = j.value("seconds", 0.0);
    if (j.contains("peak_rss_bytes_per_rank"))
      m.peak_rss_bytes = json_integer<uint64_t>(j["peak_rss_bytes_per_rank"]);
  } catch (const nlohmann::json::parse_error &e) {
    throw Error(path + ":" + std::to_string(e.byte) +
                ": malformed manifest (not JSON)");
  } catch (const nlohmann::json::exception &e) {
    throw Error(path + ": malformed manifest: " + e.what());
  }
  return m;
}

} // namespace quarry
