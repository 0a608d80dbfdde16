// Runs a study on the SystemC chip models: one ChipModule per chip in a single design (a process
// elaborates one design once), each executing the study's iterations back to back.
#pragma once

#include <optional>
#include <vector>

#include "models/activity/activity_track.hpp"

#include "sim/config/data_paths.hpp"
#include "sim/stats/results.hpp"
#include "sim/study/study_config.hpp"

namespace scoville::engine {

struct StudyResult {
  study::StudyConfig study;
  std::vector<std::string> input_files;  // every file read, for provenance
  std::vector<stats::ChipResult> chips;
  // Per chip (same order as `chips`): what each tile and HBM channel or stack did, in simulated
  // time from the start of the run; empty unless run_study was given an activity window.
  std::vector<std::vector<models::ActivityTrack>> activity;
};

// Loads the chips and model, checks that the model and its KV cache fit each chip (InputError
// with the numbers if not), simulates, and returns per-chip results. Call once per process.
// With `activity`, the chips also record their units' busy spans within that window (for
// timelines); the results are the same with or without it.
StudyResult run_study(const study::StudyConfig& study, const config::DataPaths& paths,
                      const std::optional<models::ActivityWindow>& activity = std::nullopt);

}  // namespace scoville::engine
