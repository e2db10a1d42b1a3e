//===- file_io.h - Whole-file reads and atomic writes ---------*- C++ -*-===//
//
// Every module reads and writes files through these, so errors read the
// same everywhere (one-line quarry::Errors naming the path) and no output is
// ever left half-written.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace quarry {

/// The whole file's contents.
std::string read_file_bytes(const std::string &path);

/// Writes `bytes` to a new file beside `path` and renames it over `path`,
/// so readers see either the old file or the complete new one.
void write_file_atomic(const std::string &path, std::string_view bytes);

/// write_file_atomic() for output made in pieces, so the whole need not be
/// held in memory: appends go to a new file beside `path`, which commit()
/// renames over `path`. A writer destroyed before commit() removes it.
class AtomicFile {
public:
  /// Throws quarry::Error naming `path` when the file cannot be created.
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile &) = delete;
  AtomicFile &operator=(const AtomicFile &) = delete;

  void append(std::string_view bytes);
  /// Flushes to disk and renames; throws quarry::Error naming the path.
  void commit();

private:
  void fail(int err);
  std::string path_, tmp_;
  int fd_ = -1;
};

/// Copies the file `from` to `to` through an AtomicFile, a piece at a time
/// (a model's external data may be larger than memory would like).
void copy_file_atomic(const std::string &from, const std::string &to);

/// A file that grows by whole lines, for checkpoints too frequent to
/// rewrite atomically: each append is one write(2) of the line and its
/// newline, so a killed writer leaves whole lines and at most one torn last
/// line, which read_complete_lines leaves out.
class LineJournal {
public:
  /// Opens `path` for appending, creating it; with `exclusive`, a file
  /// already there is an error. Throws quarry::Error naming the path.
  LineJournal(const std::string &path, bool exclusive);
  ~LineJournal();
  LineJournal(const LineJournal &) = delete;
  LineJournal &operator=(const LineJournal &) = delete;

  /// Appends `line` (which holds no newline) and a newline.
  void append(std::string_view line);
  const std::string &path() const { return path_; }

private:
  std::string path_;
  int fd_ = -1;
};

/// The lines of `path` that end in a newline, without it; a missing file
/// has none.
std::vector<std::string> read_complete_lines(const std::string &path);

/// The part of `path` after its last '/'.
std::string base_name(const std::string &path);

} // namespace quarry
