// Reading YAML into plain *Spec structs with located, collected errors (../shared/FORMATS.md §4).
// A MapReader wraps one YAML mapping; every accessor records the key as known, and finish()
// reports the keys nobody asked for as errors with a "did you mean" suggestion. Errors never throw
// from accessors: they go to the shared Diagnostics, so one pass reports every problem.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/base/unit_parser.hpp"
#include "sim/base/units.hpp"

namespace scoville {

// Reads a whole file; a missing or unreadable file throws InputError naming it.
std::string read_text_file(const std::string& path);
// Loads a YAML file; a missing file or a syntax error throws InputError naming file:line:col.
YAML::Node load_yaml_file(const std::string& path);
// Parses YAML text; `display_name` is used as the file name in errors.
YAML::Node load_yaml_string(const std::string& text, const std::string& display_name);

// Location of a node in a file (yaml-cpp marks are 0-based; ours are 1-based).
SourceLocation location_of(const YAML::Node& node, const std::string& file);

// The closest candidate to `word` by edit distance, or "" if none is close enough.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

enum class Range {
  kAny,
  kPositive,     // > 0
  kNonNegative,  // >= 0
};

class MapReader {
 public:
  // `node` must be a mapping; if it is not, an error is recorded and all reads see no keys.
  MapReader(const YAML::Node& node, std::string file, std::string path, Diagnostics& diagnostics);

  const std::string& path() const { return path_; }
  const std::string& file() const { return file_; }
  SourceLocation location() const;
  SourceLocation location_of_key(const std::string& key) const;
  bool has(const std::string& key) const;
  // The key is there with a non-empty value (an empty value means "use the default").
  bool has_value(const std::string& key) const;

  // Quantities with units ("4.8 TB/s"). Missing required key -> error, returns Q().
  template <class Q>
  Q quantity(const std::string& key, Range range = Range::kPositive) {
    return Q(quantity_si(key, DimensionOf<Q>::value, range, std::nullopt));
  }
  template <class Q>
  Q quantity_or(const std::string& key, Q fallback, Range range = Range::kPositive) {
    return Q(quantity_si(key, DimensionOf<Q>::value, range, fallback.si()));
  }

  // Dimensionless numbers, with an inclusive range.
  double number(const std::string& key, double min, double max);
  double number_or(const std::string& key, double fallback, double min, double max);
  int64_t integer(const std::string& key, int64_t min, int64_t max);
  int64_t integer_or(const std::string& key, int64_t fallback, int64_t min, int64_t max);
  std::string string(const std::string& key);
  std::string string_or(const std::string& key, const std::string& fallback);
  // One of a fixed set of names; anything else is an error listing the options.
  std::string choice(const std::string& key, const std::vector<std::string>& options);
  std::string choice_or(const std::string& key, const std::string& fallback,
                        const std::vector<std::string>& options);
  bool boolean_or(const std::string& key, bool fallback);
  // A non-empty list of names, written as a YAML sequence ([a, b] or one "- a" per line).
  std::vector<std::string> string_list(const std::string& key);

  // Nested mappings. A missing (or empty) required map is one error; the returned reader then
  // sees no keys and reports nothing further. An empty optional map counts as absent.
  MapReader map(const std::string& key);
  std::optional<MapReader> optional_map(const std::string& key);

  // The node at `key` (undefined when absent), marked as known, for structures the accessors
  // above do not model, such as lists of mappings; the caller reports its own errors.
  YAML::Node raw(const std::string& key);

  // Keys of this mapping in file order (for open-ended maps such as per-precision tables);
  // marks them all as known.
  std::vector<std::string> keys();
  // The node at key as it is (any YAML), marked known; nullopt when absent. For values whose
  // meaning is decided elsewhere (e.g. a sweep axis' values, applied to another file's schema).
  std::optional<YAML::Node> optional_raw(const std::string& key);

  // Records an error at `key` (or at this map if key is empty).
  void error(const std::string& key, const std::string& message);

  // Reports every key that no accessor asked for, and every key given twice.
  void finish();

 private:
  double quantity_si(const std::string& key, Dimension dimension, Range range,
                     std::optional<double> fallback);
  // Returns the scalar at key, recording "missing" or "not a scalar" errors as needed.
  std::optional<std::string> scalar(const std::string& key, bool required);
  std::string key_path(const std::string& key) const;
  // Const lookup: yaml-cpp's non-const operator[] would insert the key.
  YAML::Node child(const std::string& key) const {
    const YAML::Node& node = node_;
    return node[key];
  }

  YAML::Node node_;
  std::string file_;
  std::string path_;
  Diagnostics* diagnostics_;
  std::set<std::string> known_keys_;
  bool is_map_ = false;
  // False for a reader whose own section was already reported missing or malformed: its
  // required fields are then not reported again, one error per cause.
  bool report_missing_ = true;
};

}  // namespace scoville
