// SIGINT and SIGTERM for a process that runs children (sweep points): while a ChildSignalScope
// lives, either signal is forwarded at once to every registered child, and the parent learns of
// it through interrupted() instead of dying, so that it can wait for the children and leave a
// state a rerun resumes. A batch scheduler's limit or `timeout` then stops the work itself, not
// only the process that started it.
#pragma once

#include <sys/types.h>

namespace scoville::sweep {

class ChildSignalScope {
 public:
  // Installs the handlers (without SA_RESTART, so a blocking waitpid returns EINTR); the
  // previous handlers come back on destruction. One scope at a time per process.
  ChildSignalScope();
  ~ChildSignalScope();
  ChildSignalScope(const ChildSignalScope&) = delete;
  ChildSignalScope& operator=(const ChildSignalScope&) = delete;

  // A started child: it gets every later signal; when one came already, it gets that at once.
  void add(pid_t pid);
  // A child that has been waited for.
  void remove(pid_t pid);

  // The signal received while the scope lived (SIGINT or SIGTERM), or 0.
  static int interrupted();
};

// SIGKILL cannot be forwarded: a sweep killed with it would leave its points running, writing
// results a rerun then counts as its own. A point is started with kSweepParentVariable set to
// the sweep's pid, and its process calls die_with_sweep_parent() first: the kernel then kills it
// when the sweep dies (Linux PR_SET_PDEATHSIG), and it exits at once if the sweep is already
// gone. A result being written when that happens is lost whole (results are written atomically).
inline constexpr const char* kSweepParentVariable = "SCOVILLE_SWEEP_PARENT";
void die_with_sweep_parent();

}  // namespace scoville::sweep
