// The small CSV data files of the validation layer (deployment recipes, MLPerf benchmarks): read
// whole, checked as UTF-8, '#' comments and blank lines skipped, a header that must name the
// required columns, and each row handed on with its line so that errors are located.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/config/data_paths.hpp"

namespace scoville::validation {

// One data row, its cells found by column name and located for errors.
struct DataRow {
  const std::string& path;
  int line;
  const std::vector<std::string>& header;
  const std::vector<std::string>& cells;

  SourceLocation at(const std::string& column) const;        // file, line, the column's position
  const std::string& text(const std::string& column) const;  // empty when the row is short
  // The column as a whole number in [least, most] (decimal digits only); InputError at the cell
  // otherwise.
  int64_t count(const std::string& column, int64_t least, int64_t most) const;
};

// <data root>/`relative_name` (e.g. "workloads/measurements/mlperf-replicas.csv"); none when the
// data root has no such file (or it cannot be told whether it has).
std::optional<std::string> shipped_data_file(const config::DataPaths& paths,
                                             const std::string& relative_name);

// The file's text; InputError "cannot read the <what>" at the file otherwise.
std::string read_data_file(const std::string& path, const std::string& what);

// Calls `row(line, header, cells)` for every data row of `text` (read from `path`). InputError
// naming the file, line and column when the header lacks one of `required`, or when there is no
// header at all.
void for_each_data_row(const std::string& text, const std::string& path,
                       const std::vector<std::string>& required,
                       const std::function<void(int line, const std::vector<std::string>& header,
                                                const std::vector<std::string>& cells)>& row);

}  // namespace scoville::validation
