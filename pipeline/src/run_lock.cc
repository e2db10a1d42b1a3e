//===- run_lock.cc - One local run per run directory at a time ------------===//
#include "quarry/pipeline/run_lock.h"

#include "quarry/core/error.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace quarry::pipeline {

RunLock::RunLock(const RunLayout &run) {
  const std::string path = run.root() + "/.lock";
  // Without O_CLOEXEC on purpose: the steps inherit the lock (see header).
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT, 0644);
  if (fd_ < 0)
    throw Error(path + ": cannot open: " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK)
      throw Error(run.root() + ": another run is working in this directory "
                               "(or processes of a killed one still are)");
    throw Error(path + ": cannot lock: " + std::strerror(err));
  }
}

RunLock::~RunLock() {
  if (fd_ >= 0)
    ::close(fd_);
}

} // namespace quarry::pipeline
