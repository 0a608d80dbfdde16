// Sinks for a study's results: the terminal table, JSON for scripts, and run.h5.
#pragma once

#include <string>

#include "sim/engine/study_runner.hpp"
#include "sim/output/h5_writer.hpp"
#include "sim/output/provenance.hpp"

namespace scoville::output {

// A table a person reads in seconds: per chip and phase, time, tokens/s, energy per token,
// average power and what bounds the phase; `colour` adds ANSI colours (terminal_style.hpp).
std::string render_text(const engine::StudyResult& result, bool colour = false);
// The same numbers, machine-readable (SI units, named in the keys).
std::string render_json(const engine::StudyResult& result, const Provenance& provenance);
// run.h5 layout of ../shared/FORMATS.md §3 (documented in docs/results-format.md).
H5Document build_h5(const engine::StudyResult& result, const Provenance& provenance);

}  // namespace scoville::output
