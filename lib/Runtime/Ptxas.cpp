//===- Ptxas.cpp - PTX to cubin: nvJitLink in process, or ptxas ------------===//

#include "Environment.h"
#include "Ptxas.h"
#include "kite/Support/MachineCode.h"

#include <cerrno>
#include <climits>
#include <cstdint>
#include <dlfcn.h>
#include <mutex>
#include <thread>
#include <vector>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <spawn.h>
#include <sstream>
#include <csignal>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

using namespace kite::detail;

namespace {

std::string dlErrorOr(const char *otherwise) {
  const char *e = dlerror();
  return e ? e : otherwise;
}

/// The entry points of libnvJitLink (nvJitLink.h), resolved with dlsym so
/// that neither the build nor the machine needs the toolkit.
struct NvJitLink {
  using Handle = void *;
  int (*create)(Handle *, uint32_t, const char **) = nullptr;
  int (*destroy)(Handle *) = nullptr;
  int (*addData)(Handle, int, const void *, size_t, const char *) = nullptr;
  int (*complete)(Handle) = nullptr;
  int (*cubinSize)(Handle, size_t *) = nullptr;
  int (*cubin)(Handle, void *) = nullptr;
  int (*errorLogSize)(Handle, size_t *) = nullptr;
  int (*errorLog)(Handle, char *) = nullptr;
  int (*version)(unsigned *, unsigned *) = nullptr;
  static constexpr int kInputPtx = 2; // NVJITLINK_INPUT_PTX

  std::optional<std::string> compile(const std::string &ptx,
                                     const std::string &chip,
                                     std::string &error) const {
    std::string arch = "-arch=" + chip;
    const char *options[] = {arch.c_str(), "-O3"};
    Handle h = nullptr;
    if (int r = create(&h, 2, options)) {
      error = "nvJitLinkCreate failed (" + std::to_string(r) + ")";
      return std::nullopt;
    }
    std::optional<std::string> out;
    if (addData(h, kInputPtx, ptx.data(), ptx.size(), "kernel.ptx") == 0 &&
        complete(h) == 0) {
      size_t n = 0;
      if (cubinSize(h, &n) == 0 && n) {
        std::string image(n, '\0');
        if (cubin(h, image.data()) == 0)
          out = std::move(image);
      }
    }
    if (!out) {
      size_t n = 0;
      std::string log;
      if (errorLogSize(h, &n) == 0 && n > 1) {
        log.assign(n, '\0');
        errorLog(h, log.data());
        log.resize(std::strlen(log.c_str()));
      }
      error = "nvJitLink failed" + (log.empty() ? "" : ": " + log);
    }
    destroy(&h);
    return out;
  }
};

/// libnvJitLink's file and a stamp of it (resolved path: the version is in
/// the name; size; modification time), found without loading it (a warm
/// start needs the stamp for its cache key, and loading the library takes
/// milliseconds); none when it is not found or KITE_NVJITLINK=0.
struct NvJitLinkFile {
  std::string path, stamp;
};

std::optional<NvJitLinkFile> findNvJitLinkFile() {
  const Environment process = readEnvironment();
  const std::string &env = process.nvJitLink;
  if (env == "0" || env == "off")
    return std::nullopt;
  std::vector<std::string> candidates;
  if (!env.empty() && env != "1" && env != "on")
    candidates.push_back(env);
  std::vector<std::string> dirs;
  if (!process.cudaHome.empty())
    dirs.push_back(process.cudaHome + "/lib64/");
  dirs.push_back("/usr/local/cuda/lib64/");
  for (const std::string &dir : dirs)
    for (const char *name :
         {"libnvJitLink.so", "libnvJitLink.so.13", "libnvJitLink.so.12"})
      candidates.push_back(dir + name);
  auto stampOf = [](const std::string &file) -> std::optional<NvJitLinkFile> {
    char resolved[PATH_MAX];
    struct stat st;
    if (!realpath(file.c_str(), resolved) || stat(resolved, &st) != 0 ||
        !S_ISREG(st.st_mode))
      return std::nullopt;
    return NvJitLinkFile{resolved, std::string("nvJitLink ") + resolved + " " +
                                       std::to_string(st.st_size) + " " +
                                       std::to_string(st.st_mtime)};
  };
  for (const std::string &path : candidates)
    if (auto f = stampOf(path))
      return f;
  // Only on the loader's path: ask the loader where.
  for (const char *name : {"libnvJitLink.so.13", "libnvJitLink.so.12"}) {
    void *lib = dlopen(name, RTLD_LAZY | RTLD_LOCAL);
    if (!lib)
      continue;
    Dl_info info;
    void *sym = dlsym(lib, "nvJitLinkCreate");
    std::optional<NvJitLinkFile> f;
    if (sym && dladdr(sym, &info) && info.dli_fname)
      f = stampOf(info.dli_fname);
    if (f)
      return f; // stays loaded: it will be used
    dlclose(lib);
  }
  return std::nullopt;
}

const std::optional<NvJitLinkFile> &nvJitLinkFile() {
  static const std::optional<NvJitLinkFile> found = findNvJitLinkFile();
  return found;
}

/// libnvJitLink loaded (once, on first use: a compile or the prewarm
/// thread) with its entry points; none when that fails.
std::optional<NvJitLink> loadNvJitLink() {
  const auto &file = nvJitLinkFile();
  if (!file)
    return std::nullopt;
  void *lib = dlopen(file->path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return std::nullopt;
  NvJitLink a;
  auto get = [&](auto &fn, const char *name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
        dlsym(lib, name));
    return fn != nullptr;
  };
  bool ok = get(a.create, "nvJitLinkCreate") &&
            get(a.destroy, "nvJitLinkDestroy") &&
            get(a.addData, "nvJitLinkAddData") &&
            get(a.complete, "nvJitLinkComplete") &&
            get(a.cubinSize, "nvJitLinkGetLinkedCubinSize") &&
            get(a.cubin, "nvJitLinkGetLinkedCubin") &&
            get(a.errorLogSize, "nvJitLinkGetErrorLogSize") &&
            get(a.errorLog, "nvJitLinkGetErrorLog") &&
            get(a.version, "nvJitLinkVersion");
  unsigned major = 0, minor = 0;
  if (!ok || a.version(&major, &minor) != 0) {
    dlclose(lib);
    return std::nullopt;
  }
  return a; // the library stays loaded for the process
}

const std::optional<NvJitLink> &nvJitLink() {
  static const std::optional<NvJitLink> loaded = loadNvJitLink();
  return loaded;
}

} // namespace

/// The ptxas binary (KITE_PTXAS, $CUDA_HOME/bin, /usr/local/cuda/bin).
static std::optional<Ptxas> locatePtxasBinary() {
  const Environment env = readEnvironment();
  std::string path;
  if (!env.ptxas.empty())
    path = env.ptxas;
  else if (!env.cudaHome.empty())
    path = env.cudaHome + "/bin/ptxas";
  if (path.empty() || access(path.c_str(), X_OK) != 0)
    path = "/usr/local/cuda/bin/ptxas";
  struct stat st;
  if (access(path.c_str(), X_OK) != 0 || stat(path.c_str(), &st) != 0 ||
      !S_ISREG(st.st_mode))
    return std::nullopt;
  return Ptxas{path, path + " " + std::to_string(st.st_size) + " " +
                         std::to_string(st.st_mtime)};
}

static std::optional<Ptxas> locate() {
  const Environment env = readEnvironment();
  if (env.ptxas == "0" || env.ptxas == "off")
    return std::nullopt;
  auto inProcess = [&]() -> std::optional<Ptxas> {
    if (const auto &lib = nvJitLinkFile())
      return Ptxas{lib->path, lib->stamp, /*inProcess=*/true};
    return std::nullopt;
  };
  bool jitAsked = !env.nvJitLink.empty() && env.nvJitLink != "0" &&
                  env.nvJitLink != "off";
  if (jitAsked && env.ptxas.empty())
    if (auto p = inProcess())
      return p;
  if (auto p = locatePtxasBinary())
    return p;
  return inProcess(); // no ptxas binary: nvJitLink where there is one
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

bool kite::detail::earlyPtxasEnabled() {
  return readEnvironment().earlyPtxas;
}

std::unique_ptr<PtxasProcess>
PtxasProcess::start(const Ptxas &ptxas, const std::string &chip,
                    std::string &error) {
  if (ptxas.inProcess) {
    error = "nvJitLink is not a process";
    return nullptr;
  }
  std::unique_ptr<PtxasProcess> p(new PtxasProcess());
  p->path_ = ptxas.path;
  p->chip_ = chip;
  p->dir_ = readEnvironment().tmpDir + "/kite-ptxas-XXXXXX";
  if (!mkdtemp(p->dir_.data())) {
    error = std::string("cannot create a temporary directory: ") +
            std::strerror(errno);
    p->dir_.clear();
    return nullptr;
  }
  p->out_ = p->dir_ + "/kernel.cubin";
  p->log_ = p->dir_ + "/ptxas.log";
  // The pipe's ends are close-on-exec: another thread's child never holds
  // this write end (which would keep ptxas from seeing the end of input).
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    error = std::string("cannot create a pipe: ") + std::strerror(errno);
    return nullptr; // the destructor removes the directory
  }
  std::string arch = "-arch=" + chip;
  const char *argv[] = {ptxas.path.c_str(), arch.c_str(), "-O3", "/dev/stdin",
                        "-o", p->out_.c_str(), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[0], 0);
  posix_spawn_file_actions_addopen(&actions, 1, p->log_.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  int rc = posix_spawn(&p->pid_, ptxas.path.c_str(), &actions, nullptr,
                       const_cast<char *const *>(argv), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[0]);
  if (rc != 0) {
    close(fds[1]);
    p->pid_ = -1;
    error = "cannot run " + ptxas.path + ": " + std::strerror(rc);
    return nullptr;
  }
  p->input_ = fds[1];
  return p;
}

/// Writes all of `data` to `fd` without a SIGPIPE (ptxas may have exited):
/// the signal is blocked on this thread and a pending one consumed.
static bool writeAllNoSigpipe(int fd, std::string_view data) {
  sigset_t pipeSet, old;
  sigemptyset(&pipeSet);
  sigaddset(&pipeSet, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipeSet, &old);
  bool ok = true;
  while (!data.empty()) {
    ssize_t n = write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      ok = false;
      break;
    }
    data.remove_prefix(size_t(n));
  }
  if (!ok) {
    struct timespec zero = {0, 0};
    while (sigtimedwait(&pipeSet, nullptr, &zero) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return ok;
}

std::optional<std::string>
PtxasProcess::finish(std::string_view ptx, std::string &error,
                     support::PerformanceNotes *notes) {
  if (pid_ < 0) {
    error = "ptxas is not running";
    return std::nullopt;
  }
  writeAllNoSigpipe(input_, ptx); // a failure shows as ptxas's own
  close(input_);
  input_ = -1;
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  std::optional<std::string> cubin;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    cubin = readAll(out_);
    if (notes)
      *notes = support::performanceNotes(readAll(log_));
  }
  if (!cubin || cubin->empty()) {
    std::string log = readAll(log_);
    // ptxas names its input: say what it is rather than "/dev/stdin".
    for (size_t at; (at = log.find("/dev/stdin")) != std::string::npos;)
      log.replace(at, 10, "<kernel PTX>");
    error = path_ + " failed" +
            (WIFSIGNALED(status)
                 ? " (signal " + std::to_string(WTERMSIG(status)) + ")"
                 : "") +
            ": " + log;
    cubin.reset();
  }
  cleanup();
  return cubin;
}

void PtxasProcess::cleanup() {
  if (input_ >= 0)
    close(input_);
  input_ = -1;
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  pid_ = -1;
  if (!dir_.empty()) {
    unlink(out_.c_str());
    unlink(log_.c_str());
    rmdir(dir_.c_str());
  }
  dir_.clear();
}

PtxasProcess::~PtxasProcess() { cleanup(); }

std::optional<std::string>
kite::detail::runPtxas(const Ptxas &ptxas, const std::string &ptx,
                       const std::string &chip, std::string &error,
                       support::PerformanceNotes *notes) {
  if (ptxas.inProcess) {
    if (const auto &lib = nvJitLink())
      return lib->compile(ptx, chip, error);
    error = "cannot load " + ptxas.path + ": " + dlErrorOr("not a usable nvJitLink");
    return std::nullopt;
  }
  auto process = PtxasProcess::start(ptxas, chip, error);
  if (!process)
    return std::nullopt;
  return process->finish(ptx, error, notes);
}

namespace {
/// The prewarm thread, joined at exit (a compile must not outlive the
/// library's static state).
struct Prewarm {
  std::once_flag once;
  std::thread thread;
  ~Prewarm() {
    if (thread.joinable())
      thread.join();
  }
};
Prewarm &prewarmState() {
  static Prewarm p;
  return p;
}
} // namespace

void kite::detail::prewarmPtxCompiler(const std::string &chip) {
  const auto &ptxas = findPtxas();
  if (!ptxas || !ptxas->inProcess)
    return;
  Prewarm &p = prewarmState();
  std::call_once(p.once, [&] {
    p.thread = std::thread([chip] {
      // The smallest kernel: what costs is the library's first compile.
      std::string ptx = ".version 7.0\n.target " + chip +
                        "\n.address_size 64\n.visible .entry "
                        "kite_prewarm() { ret; }\n";
      std::string error;
      if (const auto &lib = nvJitLink())
        (void)lib->compile(ptx, chip, error);
    });
  });
}

std::string kite::detail::raiseOccupancy(const Ptxas &ptxas,
                                         const std::string &ptx,
                                         const std::string &chip,
                                         std::string &cubin,
                                         support::PerformanceNotes *notes) {
  if (!readEnvironment().occupancyRetry) // KITE_OCCUPANCY=0
    return "";
  return support::raiseOccupancy(
      ptx, cubin,
      [&](const std::string &limited, std::string &error,
          support::PerformanceNotes &secondNotes) {
        return runPtxas(ptxas, limited, chip, error, &secondNotes);
      },
      notes);
}
