//===- Ptxas.cpp - PTX to cubin with a toolkit's ptxas ---------------------===//

#include "Ptxas.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <spawn.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

using namespace kite::detail;

static std::optional<Ptxas> locate() {
  std::string path;
  if (const char *p = std::getenv("KITE_PTXAS"); p && *p) {
    if (std::strcmp(p, "0") == 0 || std::strcmp(p, "off") == 0)
      return std::nullopt;
    path = p;
  } else if (const char *home = std::getenv("CUDA_HOME"); home && *home) {
    path = std::string(home) + "/bin/ptxas";
  }
  if (path.empty() || access(path.c_str(), X_OK) != 0)
    path = "/usr/local/cuda/bin/ptxas";
  struct stat st;
  if (access(path.c_str(), X_OK) != 0 || stat(path.c_str(), &st) != 0 ||
      !S_ISREG(st.st_mode))
    return std::nullopt;
  return Ptxas{path, path + " " + std::to_string(st.st_size) + " " +
                         std::to_string(st.st_mtime)};
}

const std::optional<Ptxas> &kite::detail::findPtxas() {
  static const std::optional<Ptxas> found = locate();
  return found;
}

static std::string readAll(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::optional<std::string> kite::detail::runPtxas(const Ptxas &ptxas,
                                                  const std::string &ptx,
                                                  const std::string &chip,
                                                  std::string &error) {
  const char *tmp = std::getenv("TMPDIR");
  std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/kite-ptxas-XXXXXX";
  if (!mkdtemp(dir.data())) {
    error = std::string("cannot create a temporary directory: ") +
            std::strerror(errno);
    return std::nullopt;
  }
  std::string in = dir + "/kernel.ptx", out = dir + "/kernel.cubin",
              log = dir + "/ptxas.log";
  auto cleanup = [&] {
    unlink(in.c_str());
    unlink(out.c_str());
    unlink(log.c_str());
    rmdir(dir.c_str());
  };
  {
    std::ofstream f(in, std::ios::binary);
    f << ptx;
    if (!f) {
      error = "cannot write " + in;
      cleanup();
      return std::nullopt;
    }
  }
  std::string arch = "-arch=" + chip;
  const char *argv[] = {ptxas.path.c_str(), arch.c_str(), "-O3", in.c_str(),
                        "-o", out.c_str(), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid;
  int rc = posix_spawn(&pid, ptxas.path.c_str(), &actions, nullptr,
                       const_cast<char *const *>(argv), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    error = "cannot run " + ptxas.path + ": " + std::strerror(rc);
    cleanup();
    return std::nullopt;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::optional<std::string> cubin;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    cubin = readAll(out);
  if (!cubin || cubin->empty()) {
    error = ptxas.path + " failed: " + readAll(log);
    cubin.reset();
  }
  cleanup();
  return cubin;
}
