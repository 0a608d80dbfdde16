// Chrome Trace Event JSON writing shared by the timelines of `run` and `net`: events with the
// fields each phase needs, at most `cap` slices per thread and points per counter (the first ones
// offered; the rest are counted so that thread names can say what was left out), flow arrows.
#pragma once

#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <utility>

#include "sim/base/units.hpp"

namespace scoville::output {

class EventWriter {
 public:
  EventWriter(std::ostringstream& out, size_t cap) : out_(out), cap_(cap) {}

  void metadata(int pid, int tid, const char* what, const std::string& name);
  void sort_index(int pid, int tid, const char* what, int index);
  // Both return whether the event was written (false: the cap left it out).
  bool slice(int pid, int tid, const std::string& name, const std::string& category, Duration start,
             Duration duration, const std::string& args_json);
  bool counter(int pid, const char* name, Duration at, const char* series, double value);
  // One end of a flow arrow ('s' start or 'f' finish, bound to the enclosing slice of the
  // thread at `at`). Flows are not capped here: callers bound them so that pairs stay whole.
  void flow(char phase, int pid, int tid, int64_t id, const std::string& name,
            const std::string& category, Duration at);

  // Events left out on a thread (by tid) or counter (by name) of a process.
  int64_t dropped(int pid, const std::string& key) const;
  int64_t dropped_total() const { return dropped_total_; }
  void add_dropped(int pid, const std::string& key, int64_t n);
  // Names a thread, saying how many of its slices the cap left out, and orders it by tid.
  void name_thread(int pid, int tid, const std::string& name);

 private:
  bool admit(int pid, const std::string& key);
  void begin();

  std::ostringstream& out_;
  size_t cap_;
  bool first_ = true;
  std::map<std::pair<int, std::string>, size_t> written_;
  std::map<std::pair<int, std::string>, int64_t> dropped_;
  int64_t dropped_total_ = 0;
};

// `"key":value` for a slice's args.
std::string arg(const char* key, double value);
std::string arg(const char* key, const std::string& value);

// Simulated microseconds, the unit of `ts` and `dur`.
inline double to_us(Duration d) { return d.si() * 1e6; }

struct Window {
  Duration start;
  Duration end;
  bool overlaps(Duration a, Duration b) const { return b >= start && a < end; }
};

}  // namespace scoville::output
