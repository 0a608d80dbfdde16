// Runs a study on the SystemC chip models: one ChipModule per chip in a single design (a process
// elaborates one design once), each executing the study's iterations back to back.
#pragma once

#include <vector>

#include "sim/config/data_paths.hpp"
#include "sim/stats/results.hpp"
#include "sim/study/study_config.hpp"

namespace scoville::engine {

struct StudyResult {
  study::StudyConfig study;
  std::vector<std::string> input_files;  // every file read, for provenance
  std::vector<stats::ChipResult> chips;
};

// Loads the chips and model, checks that the model and its KV cache fit each chip (InputError
// with the numbers if not), simulates, and returns per-chip results. Call once per process.
StudyResult run_study(const study::StudyConfig& study, const config::DataPaths& paths);

}  // namespace scoville::engine
