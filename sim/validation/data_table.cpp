#include "sim/validation/data_table.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/base/error.hpp"
#include "sim/base/utf8.hpp"
#include "sim/validation/measurement_rows.hpp"

namespace scoville::validation {

SourceLocation DataRow::at(const std::string& column) const {
  const auto it = std::find(header.begin(), header.end(), column);
  return SourceLocation{path, line, static_cast<int>(it - header.begin()) + 1};
}

const std::string& DataRow::text(const std::string& column) const {
  static const std::string empty;
  const auto it = std::find(header.begin(), header.end(), column);
  const size_t i = static_cast<size_t>(it - header.begin());
  return i < cells.size() ? cells[i] : empty;
}

int64_t DataRow::count(const std::string& column, int64_t least, int64_t most) const {
  const std::string& s = text(column);
  // At most 18 digits: any such number fits an int64_t.
  const bool digits = !s.empty() && s.size() <= 18 &&
                      std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  const int64_t v = digits ? std::stoll(s) : -1;
  if (v < least || v > most) {
    throw InputError(at(column), column,
                     "expected a whole number from " + std::to_string(least) + " to " +
                         std::to_string(most) + ", got '" + s + "'");
  }
  return v;
}

std::optional<std::string> shipped_data_file(const config::DataPaths& paths,
                                             const std::string& relative_name) {
  const std::filesystem::path file = std::filesystem::path(paths.root) / relative_name;
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return std::nullopt;
  return file.string();
}

std::string read_data_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(SourceLocation{path, 0, 0}, "", "cannot read the " + what);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void for_each_data_row(const std::string& text, const std::string& path,
                       const std::vector<std::string>& required,
                       const std::function<void(int line, const std::vector<std::string>& header,
                                                const std::vector<std::string>& cells)>& row) {
  require_utf8(text, path, true);
  std::istringstream in(text);
  std::vector<std::string> header;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#' || line == "\r") continue;
    const std::vector<std::string> cells = split_csv(line);
    if (header.empty()) {
      header = cells;
      for (const std::string& need : required) {
        if (std::find(header.begin(), header.end(), need) == header.end()) {
          throw InputError(SourceLocation{path, number, 1}, need,
                           "expected this column in the header");
        }
      }
      continue;
    }
    row(number, header, cells);
  }
  if (header.empty()) throw InputError(SourceLocation{path, 0, 0}, "", "no header line");
}

}  // namespace scoville::validation
