#include "sim/output/power_timeline_tables.hpp"

#include <algorithm>

namespace scoville::output {

Table power_windows_table(const std::vector<stats::ChipResult>& chips) {
  std::vector<std::string> chip, phase;
  std::vector<int64_t> iteration;
  std::vector<double> start, length, average, peak, clock, cap;
  for (const stats::ChipResult& c : chips) {
    for (const stats::PowerWindow& w : c.power_windows) {
      chip.push_back(c.chip);
      phase.push_back(w.phase);
      iteration.push_back(w.iteration);
      start.push_back(w.start.si());
      length.push_back(w.length.si());
      average.push_back(w.average.si());
      peak.push_back(w.peak.si());
      clock.push_back(w.clock.si());
      cap.push_back(c.power_cap.si());
    }
  }
  return Table{
      "/power_windows",
      {Column{"chip", "", chip}, Column{"iteration", "1", iteration}, Column{"phase", "", phase},
       Column{"start_s", "s", start}, Column{"window_s", "s", length},
       Column{"avg_power_W", "W", average}, Column{"peak_power_W", "W", peak},
       Column{"frequency_Hz", "Hz", clock}, Column{"power_cap_W", "W", cap}},
      {{"description", std::string("power per window of the controller's time constant, from each "
                                   "simulated iteration's start (docs/power.md, power timeline); a "
                                   "sampled decode iteration stands for `weight` alike")}}};
}

Table clock_timeline_table(const std::vector<stats::ChipResult>& chips) {
  std::vector<std::string> chip, phase;
  std::vector<int64_t> iteration;
  std::vector<double> start, end, clock;
  for (const stats::ChipResult& c : chips) {
    for (const stats::ClockSegment& s : c.clock_segments) {
      chip.push_back(c.chip);
      phase.push_back(s.phase);
      iteration.push_back(s.iteration);
      start.push_back(s.start.si());
      end.push_back(s.end.si());
      clock.push_back(s.clock.si());
    }
  }
  return Table{"/clock_timeline",
               {Column{"chip", "", chip}, Column{"iteration", "1", iteration},
                Column{"phase", "", phase}, Column{"start_s", "s", start},
                Column{"end_s", "s", end}, Column{"frequency_Hz", "Hz", clock}},
               {{"description", std::string("tile clock over time, from each simulated "
                                            "iteration's start (docs/power.md)")}}};
}

Power peak_window_power(const stats::ChipResult& chip, const std::string& phase) {
  Power peak;
  for (const stats::PowerWindow& w : chip.power_windows) {
    if (w.phase == phase) peak = std::max(peak, w.average);
  }
  return peak;
}

}  // namespace scoville::output
