// `scoville config check|dump`: any of our YAML files, recognised by its top-level key
// (chip:, energy:, study:, system:) or, for model files, by their model fields.
#pragma once

#include <string>

#include "models/chip/chip_params.hpp"

namespace scoville::config {

enum class FileKind {
  kChip,
  kEnergy,
  kStudy,
  kModel,
  kSystem,
  kCalibration,
  kSoftware,
  kStackCalibration
};
std::string to_string(FileKind kind);

// Reads the file just far enough to tell its kind (InputError on unreadable or malformed YAML).
FileKind detect_kind(const std::string& path);

// Fully parses and resolves the file (InputError listing every problem). Returns its kind.
FileKind check_file(const std::string& path);

// A chip's resolved parameters as text, every value at full precision: the chip part of the
// persistent op cache's key (sim/engine/simulated_op_cost.hpp).
std::string chip_fingerprint(const models::ChipParams& chip);

// The resolved configuration as YAML, every default filled in and values in canonical units.
std::string dump_file(const std::string& path);

}  // namespace scoville::config
