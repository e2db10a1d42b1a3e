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

namespace quarry {

/// The whole file's contents.
std::string read_file_bytes(const std::string &path);

/// Writes `bytes` to a new file beside `path` and renames it over `path`,
/// so readers see either the old file or the complete new one.
void write_file_atomic(const std::string &path, std::string_view bytes);

/// The part of `path` after its last '/'.
std::string base_name(const std::string &path);

} // namespace quarry
