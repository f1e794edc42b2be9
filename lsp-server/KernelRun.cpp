//===- KernelRun.cpp - `kina/run`: the kina driver as a cancellable child -===//
//
// posix_spawn with a pipe for the child's output and /dev/null for its
// input (the server's stdin carries the protocol), poll() with a timeout
// so the cancellation token is seen within 50 ms. See KernelRun.h.
//
//===----------------------------------------------------------------------===//
#include "KernelRun.h"

#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace kina::lsp {

namespace {

bool isExecutable(const std::string &path) {
  struct stat st;
  return !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         ::access(path.c_str(), X_OK) == 0;
}

std::string selfDirectory() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0)
    return "";
  std::string p(buf, static_cast<size_t>(n));
  size_t slash = p.rfind('/');
  return slash == std::string::npos ? "" : p.substr(0, slash);
}

constexpr size_t kMaxOutput = 1u << 20;

} // namespace

std::optional<std::string> findKinaExecutable(const std::string &configured,
                                              std::string &searched) {
  std::vector<std::pair<std::string, std::string>> candidates; // where, path
  if (!configured.empty())
    candidates.push_back({"the kina.path setting", configured});
  if (const char *env = std::getenv("KINA"); env && *env)
    candidates.push_back({"$KINA", env});
  std::string self = selfDirectory();
  if (!self.empty()) {
    candidates.push_back({"next to kina-lsp", self + "/kina"});
    candidates.push_back({"the build tree", self + "/../compiler/driver/kina"});
  }
  searched.clear();
  for (const auto &[where, path] : candidates) {
    if (isExecutable(path))
      return path;
    searched += (searched.empty() ? "" : ", ") + where + " (" + path + ")";
    // An explicit setting that is wrong is an error, not a fallthrough.
    if (where == "the kina.path setting")
      return std::nullopt;
  }
  if (const char *path = std::getenv("PATH")) {
    std::string dirs = path;
    size_t b = 0;
    while (b <= dirs.size()) {
      size_t e = dirs.find(':', b);
      if (e == std::string::npos)
        e = dirs.size();
      std::string dir = dirs.substr(b, e - b);
      if (!dir.empty() && isExecutable(dir + "/kina"))
        return dir + "/kina";
      b = e + 1;
    }
  }
  searched += (searched.empty() ? "" : ", ") + std::string("$PATH");
  return std::nullopt;
}

KinaRunOutcome runKina(const KinaRunRequest &request, const query::CancellationToken &token,
                       const std::function<void(const std::string &)> &onLine) {
  KinaRunOutcome out;
  // The buffer's text, as a file the driver can read (named like the
  // editor's file, so messages mention it).
  const char *tmp = std::getenv("TMPDIR");
  std::string dirTemplate = std::string(tmp && *tmp ? tmp : "/tmp") + "/kina-lsp-run-XXXXXX";
  std::vector<char> dirBuf(dirTemplate.begin(), dirTemplate.end());
  dirBuf.push_back('\0');
  if (!::mkdtemp(dirBuf.data())) {
    out.error = std::string("cannot create a temporary directory: ") + std::strerror(errno);
    return out;
  }
  std::string dir = dirBuf.data();
  std::string name = request.fileName;
  if (name.empty() || name.find('/') != std::string::npos)
    name = "buffer.kina";
  std::string path = dir + "/" + name;
  {
    std::ofstream f(path, std::ios::binary);
    f << request.sourceText;
    if (!f) {
      out.error = "cannot write " + path;
      ::rmdir(dir.c_str());
      return out;
    }
  }
  auto cleanup = [&] {
    ::unlink(path.c_str());
    ::rmdir(dir.c_str());
  };

  std::vector<std::string> args = {request.kinaPath, "run", path, "--kernel", request.kernel,
                                   "--target", request.target.empty() ? "auto" : request.target,
                                   "--check", "--json"};
  if (request.hostFunction) // a host function: its plan runs, no --check / --json
    args = {request.kinaPath,
            "run",
            path,
            "--fn",
            request.kernel,
            "--target",
            request.target.empty() ? "auto" : request.target};
  if (!request.dims.empty()) {
    std::string dims;
    for (const auto &[d, v] : request.dims)
      dims += (dims.empty() ? "" : ",") + d + "=" + std::to_string(v);
    args.push_back("--dims");
    args.push_back(dims);
  }
  for (const std::string &a : args)
    out.commandLine += (out.commandLine.empty() ? "" : " ") + a;

  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    out.error = std::string("cannot create a pipe: ") + std::strerror(errno);
    cleanup();
    return out;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group, so that a kill reaches anything it starts.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  int rc = ::posix_spawn(&pid, request.kinaPath.c_str(), &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    out.error = "cannot start " + request.kinaPath + ": " + std::strerror(rc);
    cleanup();
    return out;
  }
  out.started = true;

  std::string pending; // an incomplete last line
  auto emit = [&](const char *data, size_t n) {
    if (out.output.size() < kMaxOutput)
      out.output.append(data, std::min(n, kMaxOutput - out.output.size()));
    pending.append(data, n);
    size_t nl;
    while ((nl = pending.find('\n')) != std::string::npos) {
      if (onLine && nl > 0)
        onLine(pending.substr(0, std::min<size_t>(nl, 200)));
      pending.erase(0, nl + 1);
    }
    if (pending.size() > 4096)
      pending.clear();
  };
  bool open = true, killed = false;
  auto killedAt = std::chrono::steady_clock::time_point();
  while (open) {
    if (!killed && token.isCancelled()) {
      ::kill(-pid, SIGTERM);
      killed = true;
      out.cancelled = true;
      killedAt = std::chrono::steady_clock::now();
    }
    if (killed && std::chrono::steady_clock::now() - killedAt > std::chrono::seconds(2))
      ::kill(-pid, SIGKILL);
    struct pollfd p = {fds[0], POLLIN, 0};
    int ready = ::poll(&p, 1, 50);
    if (ready < 0 && errno != EINTR)
      break;
    if (ready > 0) {
      char buf[4096];
      ssize_t n = ::read(fds[0], buf, sizeof buf);
      if (n > 0)
        emit(buf, static_cast<size_t>(n));
      else if (n == 0 || (errno != EINTR && errno != EAGAIN))
        open = false;
    }
  }
  ::close(fds[0]);
  if (onLine && !pending.empty())
    onLine(pending.substr(0, 200));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  out.exitCode = WIFEXITED(status) ? WEXITSTATUS(status)
                                   : (WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1);
  cleanup();
  return out;
}

} // namespace kina::lsp
