// Reads Scoville result files (docs/results-format.md) back into the H5Document model the writer
// uses, for commands that combine results (`scoville report`). Reads root attributes, every
// table group (kind = "table") and every scalar string dataset.
#pragma once

#include <string>

#include "sim/output/h5_writer.hpp"

namespace scoville::output {

// Throws InputError naming the file for a file that is missing, is not HDF5, is not a
// "scoville.results" file of a schema version this build reads, or holds a malformed table.
H5Document read_results_file(const std::string& path);

// The value of a root attribute as text ("" when absent).
std::string attribute_text(const H5Document& doc, const std::string& name);

}  // namespace scoville::output
