//===- shard.cc - HDF5 shard files ----------------------------------------===//
#include "quarry/dedupe/shard.h"

#include "quarry/core/error.h"

#include <hdf5.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>

namespace quarry {

std::string shard_file_name(int rank, int ranks) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "candidates-r%05d-of-%05d.h5", rank, ranks);
  return buf;
}

namespace {

/// Owns an HDF5 identifier and closes it with the matching function.
class H5Id {
public:
  H5Id(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~H5Id() {
    if (id_ >= 0)
      close_(id_);
  }
  H5Id(const H5Id &) = delete;
  H5Id &operator=(const H5Id &) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

/// HDF5 prints its own error stack by default; quarry reports one line.
struct SilenceHdf5 {
  H5E_auto2_t func = nullptr;
  void *data = nullptr;
  SilenceHdf5() {
    H5Eget_auto2(H5E_DEFAULT, &func, &data);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~SilenceHdf5() { H5Eset_auto2(H5E_DEFAULT, func, data); }
};

void check(herr_t status, const std::string &path, const char *what) {
  if (status < 0)
    throw Error(path + ": " + what);
}

void write_dataset(hid_t file, const char *name, hid_t type,
                   const hsize_t dims[2], const void *data,
                   const std::string &path) {
  H5Id space(H5Screate_simple(2, dims, nullptr), H5Sclose);
  H5Id set(H5Dcreate2(file, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                      H5P_DEFAULT),
           H5Dclose);
  if (!set.ok())
    throw Error(path + ": cannot create dataset " + name);
  if (dims[0] > 0)
    check(H5Dwrite(set.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), path,
          "cannot write dataset");
}

void write_int_attr(hid_t file, const std::string &name, int64_t v,
                    const std::string &path) {
  H5Id space(H5Screate(H5S_SCALAR), H5Sclose);
  H5Id attr(H5Acreate2(file, name.c_str(), H5T_NATIVE_INT64, space.get(),
                       H5P_DEFAULT, H5P_DEFAULT),
            H5Aclose);
  if (!attr.ok())
    throw Error(path + ": cannot write attribute " + name);
  check(H5Awrite(attr.get(), H5T_NATIVE_INT64, &v), path,
        "cannot write attribute");
}

void write_string_attr(hid_t file, const char *name, std::string_view v,
                       const std::string &path) {
  H5Id type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), v.size());
  H5Id space(H5Screate(H5S_SCALAR), H5Sclose);
  H5Id attr(
      H5Acreate2(file, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
      H5Aclose);
  if (!attr.ok())
    throw Error(path + ": cannot write attribute " + name);
  check(H5Awrite(attr.get(), type.get(), v.data()), path,
        "cannot write attribute");
}

/// Reads a 2-D dataset of `cols` columns into `out`; returns the rows.
template <class T>
size_t read_dataset(hid_t file, const char *name, hid_t type, hsize_t cols,
                    std::vector<T> &out, const std::string &path) {
  H5Id set(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose);
  if (!set.ok())
    throw Error(path + ": not a candidate shard (no dataset " +
                std::string(name) + ")");
  H5Id space(H5Dget_space(set.get()), H5Sclose);
  hsize_t dims[2] = {0, 0};
  if (H5Sget_simple_extent_ndims(space.get()) != 2 ||
      H5Sget_simple_extent_dims(space.get(), dims, nullptr) != 2 ||
      dims[1] != cols)
    throw Error(path + ": dataset " + std::string(name) +
                " has the wrong shape");
  // Shards store their datasets whole (contiguous, not compressed): a shape
  // that needs more bytes than the file has is corrupt, and must not size
  // the buffer.
  hsize_t file_bytes = 0, need = 0;
  if (H5Fget_filesize(file, &file_bytes) < 0 ||
      __builtin_mul_overflow(dims[0], cols * sizeof(T), &need) ||
      need > file_bytes)
    throw Error(path + ": dataset " + std::string(name) +
                " claims more values than the file holds (corrupt)");
  out.resize(dims[0] * cols);
  if (dims[0] > 0)
    check(H5Dread(set.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()),
          path, "corrupt dataset");
  return dims[0];
}

int64_t read_int_attr(hid_t file, const char *name, const std::string &path) {
  H5Id attr(H5Aopen(file, name, H5P_DEFAULT), H5Aclose);
  int64_t v = 0;
  if (!attr.ok() || H5Aread(attr.get(), H5T_NATIVE_INT64, &v) < 0)
    throw Error(path + ": not a candidate shard (no attribute " +
                std::string(name) + ")");
  return v;
}

/// The version byte of an HDF5 superblock at offset 0 (-1 if there is none
/// there: HDF5 also looks further in, past a user block, which shards do
/// not have).
int superblock_version(const std::string &path) {
  static constexpr unsigned char kSignature[8] = {0x89, 'H',  'D',  'F',
                                                  '\r', '\n', 0x1a, '\n'};
  unsigned char head[9] = {};
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    return -1;
  const size_t got = std::fread(head, 1, sizeof head, f);
  std::fclose(f);
  if (got != sizeof head || std::memcmp(head, kSignature, 8) != 0)
    return -1;
  return head[8];
}

} // namespace

void write_shard(const std::string &path, const Shard &shard) {
  SilenceHdf5 quiet;
  // Graphs are stored once each; pairs refer to them by row.
  std::vector<uint8_t> graphs;
  std::vector<uint64_t> fps;
  std::vector<uint32_t> pairs;
  std::map<uint64_t, uint32_t> row_of_key;
  auto row = [&](const CandidateGraph &g) {
    auto [it, fresh] = row_of_key.emplace(
        g.record.key, static_cast<uint32_t>(row_of_key.size()));
    if (fresh) {
      const auto *bytes = reinterpret_cast<const uint8_t *>(&g.record);
      graphs.insert(graphs.end(), bytes, bytes + sizeof(GraphRecord));
      fps.push_back(g.record.fp);
      fps.push_back(g.fp2);
    }
    return it->second;
  };
  for (const CandidatePair &p : shard.pairs) {
    pairs.push_back(row(p.source));
    pairs.push_back(row(p.target));
  }
  const std::string tmp = path + ".tmp";
  {
    // The 1.8 file format: its superblock and object headers carry
    // checksums, which HDF5 checks as it reads them (see read_shard).
    H5Id access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    check(H5Pset_libver_bounds(access.get(), H5F_LIBVER_V18, H5F_LIBVER_V18),
          path, "cannot choose the HDF5 file format");
    H5Id file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()),
              H5Fclose);
    if (!file.ok())
      throw Error(path + ": cannot create shard");
    const hsize_t gdims[2] = {row_of_key.size(), sizeof(GraphRecord)};
    const hsize_t fdims[2] = {row_of_key.size(), 2};
    const hsize_t pdims[2] = {shard.pairs.size(), 2};
    write_dataset(file.get(), "graphs", H5T_NATIVE_UINT8, gdims, graphs.data(),
                  path);
    write_dataset(file.get(), "fingerprints", H5T_NATIVE_UINT64, fdims,
                  fps.data(), path);
    write_dataset(file.get(), "pairs", H5T_NATIVE_UINT32, pdims, pairs.data(),
                  path);
    write_string_attr(file.get(), "format", kShardFormat, path);
    write_int_attr(file.get(), "rank", shard.rank, path);
    write_int_attr(file.get(), "ranks", shard.ranks, path);
    for (const auto &[name, count] : shard.stage_counts)
      write_int_attr(file.get(), "stage_" + name, count, path);
    check(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), path, "cannot flush shard");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec)
    throw Error(path + ": cannot rename into place: " + ec.message());
}

Shard read_shard(const std::string &path) {
  SilenceHdf5 quiet;
  if (!std::filesystem::exists(path))
    throw Error(path + ": missing shard");
  if (H5Fis_hdf5(path.c_str()) <= 0)
    throw Error(path + ": not an HDF5 file (corrupt shard)");
  // HDF5 trusts the metadata of the older format it reads and, on a corrupt
  // file, can size an allocation from it or read freed memory. Shards are
  // written in the format whose metadata is checksummed (superblock version
  // 2 and up at offset 0), so corrupt metadata is refused as it is read.
  if (superblock_version(path) < 2)
    throw Error(path + ": not a quarry shard (HDF5 metadata without "
                       "checksums; shards are written with them)");
  H5Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.ok())
    throw Error(path + ": cannot open shard (corrupt)");
  Shard s;
  s.rank = static_cast<int>(read_int_attr(file.get(), "rank", path));
  s.ranks = static_cast<int>(read_int_attr(file.get(), "ranks", path));
  std::vector<uint8_t> graphs;
  std::vector<uint64_t> fps;
  std::vector<uint32_t> pairs;
  const size_t n = read_dataset(file.get(), "graphs", H5T_NATIVE_UINT8,
                                sizeof(GraphRecord), graphs, path);
  if (read_dataset(file.get(), "fingerprints", H5T_NATIVE_UINT64, 2, fps,
                   path) != n)
    throw Error(path + ": /fingerprints and /graphs differ in length");
  const size_t m =
      read_dataset(file.get(), "pairs", H5T_NATIVE_UINT32, 2, pairs, path);
  std::vector<CandidateGraph> rows(n);
  for (size_t i = 0; i < n; ++i) {
    std::memcpy(&rows[i].record, graphs.data() + i * sizeof(GraphRecord),
                sizeof(GraphRecord));
    rows[i].fp2 = fps[2 * i + 1];
  }
  for (size_t i = 0; i < m; ++i) {
    if (pairs[2 * i] >= n || pairs[2 * i + 1] >= n)
      throw Error(path + ": pair " + std::to_string(i) +
                  " refers to a missing graph (corrupt shard)");
    s.pairs.push_back({rows[pairs[2 * i]], rows[pairs[2 * i + 1]]});
  }
  return s;
}

} // namespace quarry
