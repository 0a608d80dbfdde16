#include "sim/sweep/point_runner.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>

#include "sim/base/atomic_file.hpp"
#include "sim/base/error.hpp"
#include "sim/output/progress.hpp"
#include "sim/sweep/child_signals.hpp"
#include "sim/sweep/point_label.hpp"

extern char** environ;

namespace scoville::sweep {

namespace fs = std::filesystem;

namespace {

// The error file keeps the end of the run's output: enough to see the message, bounded in size.
constexpr size_t kErrorTailBytes = 4096;

std::string tail_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  return text.size() > kErrorTailBytes ? text.substr(text.size() - kErrorTailBytes) : text;
}

// The command line of a point: a study runs as `scoville run`, a scenario as `scoville serve`.
std::vector<std::string> point_command(const std::string& executable, const SweepPoint& point,
                                       const PointFiles& files) {
  if (point.kind == PointKind::kScenario) {
    return {executable, "serve", "--scenario", files.study, "-o", files.result, "--quiet"};
  }
  return {executable, "run", "--study", files.study, "-o", files.result};
}

pid_t spawn_point(const std::string& executable, const SweepPoint& point, const PointFiles& files) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, files.log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::vector<std::string> args = point_command(executable, point, files);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // The environment, with the sweep's pid for die_with_sweep_parent (child_signals.hpp).
  const std::string parent_entry =
      std::string(kSweepParentVariable) + "=" + std::to_string(::getpid());
  const std::string prefix = std::string(kSweepParentVariable) + "=";
  std::vector<char*> envp;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, prefix.c_str(), prefix.size()) != 0) envp.push_back(*e);
  }
  envp.push_back(const_cast<char*>(parent_entry.c_str()));
  envp.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, executable.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    throw OutputError("cannot start " + executable + " for " + files.study + ": " +
                      std::strerror(rc));
  }
  return pid;
}

PointStatus finish_point(const PointFiles& files, int wait_status) {
  const bool ok = WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0;
  if (ok && fs::exists(files.result)) {
    std::error_code ec;
    fs::remove(files.error, ec);
    return PointStatus::kDone;
  }
  std::ostringstream error;
  if (WIFEXITED(wait_status)) {
    error << "exit status " << WEXITSTATUS(wait_status);
  } else if (WIFSIGNALED(wait_status)) {
    error << "killed by signal " << WTERMSIG(wait_status);
  }
  if (ok) error << " but no result file";
  error << "\n" << tail_of(files.log);
  write_text_atomically(files.error, error.str());
  return PointStatus::kFailed;
}

// Thrown once every child stopped by a forwarded signal has been waited for.
[[noreturn]] void throw_interrupted(int signal, int64_t finished, int64_t stopped) {
  throw Interrupted(signal, std::string("sweep stopped by ") +
                                (signal == SIGINT ? "SIGINT" : "SIGTERM") + ": " +
                                std::to_string(finished) + " point(s) finished in this run, " +
                                std::to_string(stopped) +
                                " running point(s) stopped and left pending; run the same "
                                "command again to resume (finished points are kept)");
}

// A point whose process died of the forwarded signal: pending, not failed, so a rerun runs it.
bool stopped_by_signal(int wait_status) {
  return ChildSignalScope::interrupted() != 0 && WIFSIGNALED(wait_status);
}

}  // namespace

std::string to_string(PointStatus status) {
  switch (status) {
    case PointStatus::kDone:
      return "done";
    case PointStatus::kFailed:
      return "failed";
    case PointStatus::kPending:
      return "pending";
  }
  return "unknown";
}

PointFiles point_files(const std::string& dir, const SweepPoint& point) {
  const fs::path base = fs::path(dir) / "points" / point.id;
  return {base.string() + ".yaml", base.string() + ".h5", base.string() + ".log",
          base.string() + ".err"};
}

PointStatus point_status(const std::string& dir, const SweepPoint& point) {
  const PointFiles files = point_files(dir, point);
  if (fs::exists(files.result)) return PointStatus::kDone;
  if (fs::exists(files.error)) return PointStatus::kFailed;
  return PointStatus::kPending;
}

void prepare_directory(const std::string& dir, const SweepConfig& sweep,
                       const std::vector<SweepPoint>& points) {
  std::error_code ec;
  fs::create_directories(fs::path(dir) / "points", ec);
  if (ec) throw OutputError("cannot create " + dir + "/points: " + ec.message());
  // Temporaries of killed runs ("<file>.tmp.<pid>"): never results, safe to remove because one
  // sweep directory has one sweep process (or one per shard, writing distinct points).
  for (const fs::directory_entry& entry : fs::directory_iterator(fs::path(dir) / "points")) {
    if (entry.path().filename().string().find(".tmp.") != std::string::npos) {
      fs::remove(entry.path(), ec);
    }
  }
  write_text_atomically((fs::path(dir) / "sweep.yaml").string(), sweep.self_contained_text);
  for (const SweepPoint& p : points) {
    const PointFiles files = point_files(dir, p);
    // Unchanged files are not rewritten, so shards sharing a directory do not race on them.
    std::ifstream existing(files.study, std::ios::binary);
    std::stringstream current;
    current << existing.rdbuf();
    if (!existing || current.str() != p.study_yaml) {
      write_text_atomically(files.study, p.study_yaml);
    }
  }
}

std::vector<SweepPoint> shard_points(const std::vector<SweepPoint>& points, int64_t shard,
                                     int64_t shards) {
  std::vector<SweepPoint> mine;
  for (const SweepPoint& p : points) {
    if (p.index % shards == shard) mine.push_back(p);
  }
  return mine;
}

std::string own_executable() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec)
    throw OutputError("cannot find the scoville executable (/proc/self/exe): " + ec.message());
  return self.string();
}

PointStatus run_point(const std::string& executable, const std::string& dir,
                      const SweepPoint& point) {
  const PointFiles files = point_files(dir, point);
  ChildSignalScope signals;
  const pid_t pid = spawn_point(executable, point, files);
  signals.add(pid);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  signals.remove(pid);
  if (stopped_by_signal(status)) throw_interrupted(ChildSignalScope::interrupted(), 0, 1);
  return finish_point(files, status);
}

RunSummary run_points(const std::string& executable, const std::string& dir,
                      const std::vector<SweepPoint>& points, int64_t jobs, std::ostream* progress) {
  RunSummary summary;
  std::vector<const SweepPoint*> todo;
  for (const SweepPoint& p : points) {
    if (point_status(dir, p) == PointStatus::kDone) {
      ++summary.skipped;
    } else {
      todo.push_back(&p);
    }
  }
  std::map<pid_t, const SweepPoint*> running;
  size_t next = 0;
  int64_t stopped = 0;
  const int64_t total = static_cast<int64_t>(todo.size());
  ChildSignalScope signals;  // SIGINT/SIGTERM reach the running points; none starts after one
  // On a terminal, a redrawn line with the time left; the per-point lines are the log.
  output::ProgressReporter bar("sweep", total, progress == nullptr);
  while (running.size() > 0 || (next < todo.size() && !ChildSignalScope::interrupted())) {
    while (next < todo.size() && static_cast<int64_t>(running.size()) < jobs &&
           !ChildSignalScope::interrupted()) {
      const SweepPoint* p = todo[next++];
      const pid_t pid = spawn_point(executable, *p, point_files(dir, *p));
      running[pid] = p;
      signals.add(pid);
    }
    if (running.empty()) break;
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw OutputError(std::string("waiting for sweep points failed: ") + std::strerror(errno));
    }
    auto it = running.find(pid);
    if (it == running.end()) continue;  // not one of ours
    const SweepPoint* p = it->second;
    running.erase(it);
    signals.remove(pid);
    if (stopped_by_signal(status)) {
      ++stopped;
      continue;
    }
    const PointStatus result = finish_point(point_files(dir, *p), status);
    (result == PointStatus::kDone ? summary.done : summary.failed) += 1;
    const std::string label = point_label(*p);
    if (progress) {
      bar.print(*progress, "[" + std::to_string(summary.done + summary.failed) + "/" +
                               std::to_string(total) + "] " + label + " " + to_string(result) +
                               " (point " + p->id + ")");
    }
    bar.step(label);
  }
  if (const int signal = ChildSignalScope::interrupted()) {
    throw_interrupted(signal, summary.done + summary.failed, stopped);
  }
  return summary;
}

}  // namespace scoville::sweep
