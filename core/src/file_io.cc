//===- file_io.cc - Whole-file reads and atomic writes --------------------===//
#include "quarry/core/file_io.h"

#include "quarry/core/error.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace quarry {

std::string read_file_bytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(path + ": cannot open: " + std::strerror(errno));
  // One allocation of the file's size where it has one (a model's weights
  // would otherwise be held twice while a stream buffer grew and copied).
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size >= 0) {
    in.seekg(0);
    std::string bytes(static_cast<size_t>(size), '\0');
    in.read(bytes.data(), size);
    if (in.gcount() == size && in.peek() == std::char_traits<char>::eof())
      return bytes;
    in.clear();
    in.seekg(0);
  }
  // A pipe or a file that changed while it was read: as a stream.
  in.clear();
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad())
    throw Error(path + ": read failed");
  return std::move(buf).str();
}

namespace {

/// Opens a fresh temporary file next to `path` (same directory, so rename
/// stays within one file system). Mode 0666 is narrowed by the umask like
/// any other new file.
int open_temporary(const std::string &path, std::string &tmp) {
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    tmp = path + ".tmp." + std::to_string(::getpid()) + "." +
          std::to_string(counter++);
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST)
      return fd;
  }
  errno = EEXIST;
  return -1;
}

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = EIO;
      return false;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

} // namespace

void write_file_atomic(const std::string &path, std::string_view bytes) {
  AtomicFile out(path);
  out.append(bytes);
  out.commit();
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  fd_ = open_temporary(path_, tmp_);
  if (fd_ < 0)
    throw Error(path_ + ": cannot create: " + std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(tmp_.c_str());
  }
}

void AtomicFile::fail(int err) {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = -1;
  ::unlink(tmp_.c_str());
  throw Error(path_ + ": write failed: " + std::strerror(err));
}

void AtomicFile::append(std::string_view bytes) {
  if (fd_ < 0)
    throw Error(path_ + ": write after the file was committed or failed");
  if (!write_all(fd_, bytes))
    fail(errno ? errno : EIO);
}

void AtomicFile::commit() {
  if (fd_ < 0)
    throw Error(path_ + ": committed twice, or after a failed write");
  if (::fsync(fd_) != 0)
    fail(errno ? errno : EIO);
  const int fd = fd_;
  fd_ = -1;
  int err = 0;
  if (::close(fd) != 0)
    err = errno;
  if (!err && ::rename(tmp_.c_str(), path_.c_str()) != 0)
    err = errno;
  if (!err)
    return;
  ::unlink(tmp_.c_str());
  throw Error(path_ + ": write failed: " + std::strerror(err));
}

LineJournal::LineJournal(const std::string &path, bool exclusive)
    : path_(path) {
  fd_ = ::open(path.c_str(),
               O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC |
                   (exclusive ? O_EXCL : 0),
               0666);
  if (fd_ < 0)
    throw Error(path + ": cannot open for appending: " + std::strerror(errno));
}

LineJournal::~LineJournal() {
  if (fd_ >= 0)
    ::close(fd_);
}

void LineJournal::append(std::string_view line) {
  std::string whole(line);
  whole += '\n';
  if (!write_all(fd_, whole))
    throw Error(path_ + ": write failed: " + std::strerror(errno));
}

std::vector<std::string> read_complete_lines(const std::string &path) {
  std::vector<std::string> lines;
  if (::access(path.c_str(), F_OK) != 0)
    return lines;
  const std::string text = read_file_bytes(path);
  for (size_t at = 0;;) {
    const size_t end = text.find('\n', at);
    if (end == std::string::npos)
      break; // a line its writer did not finish
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

void copy_file_atomic(const std::string &from, const std::string &to) {
  std::ifstream in(from, std::ios::binary);
  if (!in)
    throw Error(from + ": cannot open: " + std::strerror(errno));
  AtomicFile out(to);
  std::string piece(size_t{1} << 20, '\0');
  while (in) {
    in.read(piece.data(), static_cast<std::streamsize>(piece.size()));
    out.append(
        std::string_view(piece.data(), static_cast<size_t>(in.gcount())));
  }
  if (in.bad())
    throw Error(from + ": read failed");
  out.commit();
}

std::string base_name(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace quarry
