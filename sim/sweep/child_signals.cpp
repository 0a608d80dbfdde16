#include "sim/sweep/child_signals.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <stdexcept>

namespace scoville::sweep {

namespace {

// The handler may only touch lock-free atomics: the children as a fixed table of slots (at most
// the sweep's --jobs limit run at once) and the signal received.
constexpr int kSlots = 1024;
volatile sig_atomic_t g_children[kSlots];
volatile sig_atomic_t g_signal = 0;
bool g_active = false;
struct sigaction g_previous_int, g_previous_term;

extern "C" void forward_signal(int signal) {
  g_signal = signal;
  for (int i = 0; i < kSlots; ++i) {
    const pid_t pid = static_cast<pid_t>(g_children[i]);
    if (pid > 0) kill(pid, signal);
  }
}

}  // namespace

ChildSignalScope::ChildSignalScope() {
  if (g_active) throw std::logic_error("ChildSignalScope: one scope at a time");
  g_active = true;
  g_signal = 0;
  for (int i = 0; i < kSlots; ++i) g_children[i] = 0;
  struct sigaction action {};
  action.sa_handler = forward_signal;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, SIGINT);
  sigaddset(&action.sa_mask, SIGTERM);
  action.sa_flags = 0;  // no SA_RESTART: waitpid returns EINTR and the loop sees the signal
  sigaction(SIGINT, &action, &g_previous_int);
  sigaction(SIGTERM, &action, &g_previous_term);
}

ChildSignalScope::~ChildSignalScope() {
  sigaction(SIGINT, &g_previous_int, nullptr);
  sigaction(SIGTERM, &g_previous_term, nullptr);
  g_active = false;
}

void ChildSignalScope::add(pid_t pid) {
  for (int i = 0; i < kSlots; ++i) {
    if (g_children[i] == 0) {
      g_children[i] = pid;
      // A signal between the child's start and this line was not forwarded to it.
      if (g_signal != 0) kill(pid, g_signal);
      return;
    }
  }
  throw std::logic_error("ChildSignalScope: more than 1024 children at once");
}

void ChildSignalScope::remove(pid_t pid) {
  for (int i = 0; i < kSlots; ++i) {
    if (g_children[i] == pid) g_children[i] = 0;
  }
}

int ChildSignalScope::interrupted() { return g_signal; }

void die_with_sweep_parent() {
  const char* parent = std::getenv(kSweepParentVariable);
  if (parent == nullptr || *parent == '\0') return;
  const long pid = std::strtol(parent, nullptr, 10);
  if (pid <= 0) return;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The sweep may have died between the spawn and the line above: then nobody will signal us.
  if (::getppid() != static_cast<pid_t>(pid)) ::_exit(128 + SIGKILL);
}

}  // namespace scoville::sweep
