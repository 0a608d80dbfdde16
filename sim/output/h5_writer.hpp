// A small document model for results files and its atomic HDF5 writer (FORMATS.md §3).
// The model is plain data so that producers of results never see HDF5 types.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace scoville::output {

using AttributeValue = std::variant<double, int64_t, std::string>;
using Attributes = std::vector<std::pair<std::string, AttributeValue>>;

struct Column {
  std::string name;
  std::string units;  // SI base units: "s", "J", "W", "B", "B/s", "FLOP"; "1" for dimensionless
  std::variant<std::vector<double>, std::vector<int64_t>, std::vector<std::string>> values;
};

// A "table group": one 1-D dataset per column, all of the same length, under path (e.g. "/ops").
// The group also gets kind="table", columns (ordered names) and nrows, besides `attributes`.
struct Table {
  std::string path;
  std::vector<Column> columns;
  Attributes attributes;
};

// A group that only carries scalar attributes, e.g. "/summary".
struct Group {
  std::string path;
  Attributes attributes;
};

// A scalar vlen UTF-8 string dataset, e.g. "/config/resolved_yaml" or "/config/inputs/h200.yaml".
struct StringDataset {
  std::string path;
  std::string text;
};

struct H5Document {
  Attributes root_attributes;
  std::vector<Group> groups;
  std::vector<Table> tables;
  std::vector<StringDataset> strings;
};

// Builds the file in memory, then writes it with write_text_atomically (temporary_path_for(path),
// fsync, rename over path): path holds the old file or the new one, never a torn one. Intermediate
// groups are created as needed. The same document always gives the same bytes. Throws
// std::logic_error, before any file is created, for a malformed document (columns of unequal
// length, duplicate column names, relative paths, reserved table attribute names). Throws
// scoville::OutputError naming path and the HDF5 reason if writing fails; no temporary is left
// behind.
void write_h5_atomically(const H5Document& doc, const std::string& path);

}  // namespace scoville::output
