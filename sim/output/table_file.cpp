#include "sim/output/table_file.hpp"

#include <cmath>
#include <stdexcept>

#include "sim/base/atomic_file.hpp"
#include "sim/base/json_text.hpp"

namespace scoville::output {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

size_t rows_of(const Column& c) {
  return std::visit([](const auto& v) { return v.size(); }, c.values);
}

std::string cell(const Column& c, size_t row) {
  if (const auto* d = std::get_if<std::vector<double>>(&c.values)) {
    return std::isfinite((*d)[row]) ? json_number((*d)[row]) : std::string();  // NaN: empty
  }
  if (const auto* i = std::get_if<std::vector<int64_t>>(&c.values)) {
    return std::to_string((*i)[row]);
  }
  return csv_field(std::get<std::vector<std::string>>(c.values)[row]);
}

}  // namespace

std::string table_csv(const Table& table) {
  std::string out;
  for (size_t i = 0; i < table.columns.size(); ++i) {
    out += (i == 0 ? "" : ",") + csv_field(table.columns[i].name);
  }
  out += "\n";
  const size_t rows = table.columns.empty() ? 0 : rows_of(table.columns.front());
  for (size_t r = 0; r < rows; ++r) {
    for (size_t i = 0; i < table.columns.size(); ++i) {
      out += (i == 0 ? "" : ",") + cell(table.columns[i], r);
    }
    out += "\n";
  }
  return out;
}

bool is_table_file(const std::string& path) {
  return ends_with(path, ".h5") || ends_with(path, ".csv");
}

void write_table_file(const std::string& path, const Table& table, const Attributes& root) {
  if (ends_with(path, ".csv")) {
    write_text_atomically(path, table_csv(table));
  } else if (ends_with(path, ".h5")) {
    H5Document doc;
    doc.root_attributes = root;
    doc.tables.push_back(table);
    write_h5_atomically(doc, path);
  } else {
    throw std::invalid_argument("write_table_file: expected a .h5 or .csv path, got " + path);
  }
}

}  // namespace scoville::output
