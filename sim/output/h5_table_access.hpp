// Looking up tables and cells of a results document read back (h5_reader), for the report's
// charts and tables: a missing table or column is nullptr, never an exception.
#pragma once

#include <cstddef>
#include <string>

#include "sim/output/h5_writer.hpp"

namespace scoville::output {

const Table* find_table(const H5Document& doc, const std::string& path);
const Column* find_column(const Table& table, const std::string& name);
size_t rows_of(const Table& table);
bool is_text(const Column& column);
// A numeric cell as double (NaN for a text column).
double numeric(const Column& column, size_t row);
// Any cell as text: numbers in the shortest of %.6g / %.4g that reads well.
std::string cell_text(const Column& column, size_t row);
// A number as the report shows it: six significant digits, or four in exponent form when very
// large or small.
std::string number_text(double v);

}  // namespace scoville::output
