// Runs a study on the SystemC chip models: one ChipModule per chip in a single design (a process
// elaborates one design once), each executing the study's iterations back to back.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/activity/activity_track.hpp"

#include "sim/config/data_paths.hpp"
#include "sim/stats/results.hpp"
#include "sim/study/study_config.hpp"

namespace scoville::engine {

// How a single-chip study is simulated: every op priced through the simulated op table (each
// distinct op run once alone on the chip model; sim/engine/simulated_op_cost.hpp), or each chip's
// whole program run on its chip model in one simulation (the detailed path, the reference;
// timelines need it).
enum class StudyFidelity { kOpTable, kDetailed };
std::string to_string(StudyFidelity fidelity);  // "op-table", "detailed"

struct StudyResult {
  study::StudyConfig study;
  StudyFidelity fidelity = StudyFidelity::kDetailed;
  std::vector<std::string> input_files;  // every file read, for provenance
  std::vector<stats::ChipResult> chips;
  // Per chip (same order as `chips`): what each tile and HBM channel or stack did, in simulated
  // time from the start of the run; empty unless run_study was given an activity window.
  std::vector<std::vector<models::ActivityTrack>> activity;
};

// Told by the detailed path as chips finish ops: chip (index into the study's chips), the ops it
// has done and its program's ops; first once per chip with done = 0 before anything runs, so
// that every total is known. Only watches: the results are the same with or without it.
using DetailedProgress = std::function<void(size_t chip, int64_t done, int64_t total)>;

// Loads the chips and model, checks that the model and its KV cache fit each chip (InputError
// with the numbers if not), simulates, and returns per-chip results. Call once per process.
// With `activity`, the chips also record their units' busy spans within that window (for
// timelines; the detailed path, whatever `fidelity` says); the results are the same with or
// without it. `op_cache_dir`: the op table's persistent cache (nullopt: bypassed; empty: the
// default directory). `progress`: see DetailedProgress (the op-table path does not call it).
StudyResult run_study(const study::StudyConfig& study, const config::DataPaths& paths,
                      const std::optional<models::ActivityWindow>& activity = std::nullopt,
                      StudyFidelity fidelity = StudyFidelity::kDetailed,
                      const std::optional<std::string>& op_cache_dir = std::nullopt,
                      const DetailedProgress& progress = {});

}  // namespace scoville::engine
