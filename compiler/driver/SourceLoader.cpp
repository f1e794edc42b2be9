//===- SourceLoader.cpp - Read source files for the CLI -------------------===//
#include "driver/SourceLoader.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kina::driver {

namespace {

const char *fileKind(mode_t mode) {
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a file";
}

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0)
      ::close(fd);
  }
};

} // namespace

std::optional<SourceFile> loadSource(const std::string &path, std::string &error) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer (fstat refuses it
  // next); it changes nothing for a regular file.
  Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0) {
    error = path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  struct stat st{};
  if (::fstat(f.fd, &st) != 0) {
    error = path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  if (S_ISDIR(st.st_mode)) {
    error = path + ": is a directory";
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) {
    error =
        path + ": not a regular file (" + fileKind(st.st_mode) + "); kina reads source files only";
    return std::nullopt;
  }
  auto tooLarge = [&](size_t bytes) {
    error = path + ": error[K0011]: the file is " + std::to_string(bytes) +
            " bytes; the limit for one source file is 64 MiB (" + std::to_string(kMaxSourceBytes) +
            " bytes)";
  };
  if (static_cast<uint64_t>(st.st_size) > kMaxSourceBytes) {
    tooLarge(static_cast<size_t>(st.st_size));
    return std::nullopt;
  }
  // Read at most one byte past the limit, whatever the size said (a file
  // that grows meanwhile, or a /proc file that reports 0).
  std::string text;
  text.resize(static_cast<size_t>(st.st_size) + 1);
  size_t got = 0;
  for (;;) {
    if (got == text.size()) {
      if (text.size() > kMaxSourceBytes)
        break;
      text.resize(std::min(text.size() * 2, kMaxSourceBytes + 1));
    }
    ssize_t n = ::read(f.fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      error = path + ": " + std::strerror(errno);
      return std::nullopt;
    }
    if (n == 0)
      break;
    got += static_cast<size_t>(n);
  }
  if (got > kMaxSourceBytes) {
    tooLarge(got);
    return std::nullopt;
  }
  text.resize(got);
  return SourceFile(path, std::move(text));
}

} // namespace kina::driver
