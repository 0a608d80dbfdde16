// One results table saved to a file the user names: HDF5 (the table group under its path, with
// units, and the root attributes) or CSV (a header of column names, one line per row), chosen by
// the extension, written atomically (sim/base/atomic_file). For the commands whose result is one
// table (`ablate -o`, `plan -o`).
#pragma once

#include <string>

#include "sim/output/h5_writer.hpp"

namespace scoville::output {

// The table as CSV: column names, then one line per row; numbers in the shortest form that
// reads back as the same double, strings quoted when they hold a comma, quote or newline
// (RFC 4180).
std::string table_csv(const Table& table);

// True when `path` ends in .h5 or .csv (the forms write_table_file writes).
bool is_table_file(const std::string& path);

// Writes `table` to `path`: .h5 as an HDF5 document with `root` as its root attributes, .csv as
// table_csv. std::invalid_argument for another extension; OutputError when writing fails.
void write_table_file(const std::string& path, const Table& table, const Attributes& root);

}  // namespace scoville::output
