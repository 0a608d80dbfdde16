#include "sim/output/h5_table_access.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

namespace scoville::output {

std::string number_text(double v) {
  char b[32];
  if (v != 0 && (std::fabs(v) >= 1e6 || std::fabs(v) < 1e-3)) {
    std::snprintf(b, sizeof(b), "%.4g", v);
  } else {
    std::snprintf(b, sizeof(b), "%.6g", v);
  }
  return b;
}

const Table* find_table(const H5Document& doc, const std::string& path) {
  for (const Table& t : doc.tables) {
    if (t.path == path) return &t;
  }
  return nullptr;
}

const Column* find_column(const Table& table, const std::string& name) {
  for (const Column& c : table.columns) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

size_t rows_of(const Table& table) {
  if (table.columns.empty()) return 0;
  return std::visit([](const auto& v) { return v.size(); }, table.columns.front().values);
}

bool is_text(const Column& column) {
  return std::holds_alternative<std::vector<std::string>>(column.values);
}

double numeric(const Column& column, size_t row) {
  if (const auto* d = std::get_if<std::vector<double>>(&column.values)) return (*d)[row];
  if (const auto* i = std::get_if<std::vector<int64_t>>(&column.values)) {
    return static_cast<double>((*i)[row]);
  }
  return std::numeric_limits<double>::quiet_NaN();
}

std::string cell_text(const Column& column, size_t row) {
  if (const auto* d = std::get_if<std::vector<double>>(&column.values)) {
    return number_text((*d)[row]);
  }
  if (const auto* i = std::get_if<std::vector<int64_t>>(&column.values)) {
    return std::to_string((*i)[row]);
  }
  return std::get<std::vector<std::string>>(column.values)[row];
}

}  // namespace scoville::output
