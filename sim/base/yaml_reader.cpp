#include "sim/base/yaml_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "sim/base/utf8.hpp"

namespace scoville {

SourceLocation location_of(const YAML::Node& node, const std::string& file) {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return SourceLocation{file, 0, 0};
  return SourceLocation{file, mark.line + 1, mark.column + 1};
}

YAML::Node load_yaml_string(const std::string& text, const std::string& display_name) {
  require_utf8(text, display_name);
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    SourceLocation where{display_name, 0, 0};
    if (!e.mark.is_null()) where = SourceLocation{display_name, e.mark.line + 1, e.mark.column + 1};
    throw InputError(where, "", "YAML syntax error: " + e.msg);
  }
}

std::string read_text_file(const std::string& path) {
  // An ifstream opens a directory without complaint on Linux and then reads nothing, which would
  // surface later as a misleading "not a Scoville file".
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(SourceLocation{path, 0, 0}, "", "is a directory, not a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(SourceLocation{path, 0, 0}, "",
                     "cannot open file (does it exist and is it readable?)");
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(SourceLocation{path, 0, 0}, "", "error while reading the file");
  return text.str();
}

YAML::Node load_yaml_file(const std::string& path) {
  return load_yaml_string(read_text_file(path), path);
}

namespace {
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string join_options(const std::vector<std::string>& options) {
  std::string out;
  for (const std::string& o : options) out += (out.empty() ? "" : ", ") + o;
  return out;
}
}  // namespace

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const std::string& c : candidates) {
    // The distance is at least the length difference: a candidate that far off in length cannot
    // win, and skipping it keeps a pasted 16 KB "name" from costing 16 KB x candidate per name.
    const size_t length_gap =
        word.size() > c.size() ? word.size() - c.size() : c.size() - word.size();
    if (length_gap >= best_distance) continue;
    const size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

MapReader::MapReader(const YAML::Node& node, std::string file, std::string path,
                     Diagnostics& diagnostics)
    : node_(node), file_(std::move(file)), path_(std::move(path)), diagnostics_(&diagnostics) {
  is_map_ = node_.IsMap();
  if (!is_map_ && node_.IsDefined() && !node_.IsNull()) {
    diagnostics_->error(location(), path_, "expected a mapping of key: value pairs");
    report_missing_ = false;
  }
}

SourceLocation MapReader::location() const { return location_of(node_, file_); }

SourceLocation MapReader::location_of_key(const std::string& key) const {
  if (is_map_) {
    for (const auto& kv : node_) {
      if (kv.first.Scalar() == key) return location_of(kv.second, file_);
    }
  }
  return location();
}

bool MapReader::has(const std::string& key) const { return is_map_ && child(key).IsDefined(); }

bool MapReader::has_value(const std::string& key) const { return has(key) && !child(key).IsNull(); }

std::string MapReader::key_path(const std::string& key) const {
  if (path_.empty()) return key;
  if (key.empty()) return path_;
  return path_ + "." + key;
}

void MapReader::error(const std::string& key, const std::string& message) {
  diagnostics_->error(key.empty() ? location() : location_of_key(key), key_path(key), message);
}

std::optional<std::string> MapReader::scalar(const std::string& key, bool required) {
  known_keys_.insert(key);
  if (!is_map_ || !child(key).IsDefined() || child(key).IsNull()) {
    // Located at this map (the key has no position of its own), named by the key's full path.
    if (required && report_missing_) {
      diagnostics_->error(location(), key_path(key), "missing required field '" + key + "'");
    }
    return std::nullopt;
  }
  const YAML::Node value = child(key);
  if (!value.IsScalar()) {
    error(key, "expected a single value, found a " +
                   std::string(value.IsMap() ? "mapping" : "sequence"));
    return std::nullopt;
  }
  return value.Scalar();
}

namespace {
// Skips one leading '+' (which from_chars rejects) unless another sign follows it ("+-1").
const char* skip_plus(const char* begin, const char* end) {
  if (begin != end && *begin == '+' && begin + 1 != end && begin[1] != '-' && begin[1] != '+') {
    return begin + 1;
  }
  return begin;
}

bool parse_double(const std::string& text, double* out) {
  const char* end = text.data() + text.size();
  const char* begin = skip_plus(text.data(), end);
  // from_chars also accepts "inf", "nan" and "-inf", which are not numbers a user means.
  if (begin == end ||
      !(std::isdigit(static_cast<unsigned char>(*begin)) || *begin == '-' || *begin == '.')) {
    return false;
  }
  double value = 0.0;
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value)) return false;
  *out = value;
  return true;
}

const char* range_text(Range range) {
  switch (range) {
    case Range::kPositive:
      return "greater than zero";
    case Range::kNonNegative:
      return "zero or more";
    case Range::kAny:
      return "";
  }
  return "";
}

bool in_range(double v, Range range) {
  switch (range) {
    case Range::kPositive:
      return v > 0;
    case Range::kNonNegative:
      return v >= 0;
    case Range::kAny:
      return true;
  }
  return true;
}
}  // namespace

double MapReader::quantity_si(const std::string& key, Dimension dimension, Range range,
                              std::optional<double> fallback) {
  const std::optional<std::string> text = scalar(key, !fallback.has_value());
  if (!text) return fallback.value_or(0.0);
  double value = 0.0;
  try {
    value = parse_quantity(*text, dimension);
  } catch (const UnitParseError& e) {
    error(key, e.what());
    return fallback.value_or(0.0);
  }
  if (!in_range(value, range)) {
    error(key, "value \"" + *text + "\" is out of range: expected " + range_text(range));
    return fallback.value_or(0.0);
  }
  return value;
}

double MapReader::number(const std::string& key, double min, double max) {
  const std::optional<std::string> text = scalar(key, true);
  if (!text) return min;
  double value = 0.0;
  if (!parse_double(*text, &value)) {
    error(key, "expected a plain number, found \"" + *text + "\"");
    return min;
  }
  if (value < min || value > max) {
    std::ostringstream msg;
    msg << "value " << *text << " is out of range: expected " << min << " to " << max;
    error(key, msg.str());
    return min;
  }
  return value;
}

double MapReader::number_or(const std::string& key, double fallback, double min, double max) {
  if (!has(key) || child(key).IsNull()) {  // an empty value means "use the default"
    known_keys_.insert(key);
    return fallback;
  }
  return number(key, min, max);
}

int64_t MapReader::integer(const std::string& key, int64_t min, int64_t max) {
  const std::optional<std::string> text = scalar(key, true);
  if (!text) return min;
  int64_t value = 0;
  const char* end = text->data() + text->size();
  const char* begin = skip_plus(text->data(), end);
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  const bool too_large = ec == std::errc::result_out_of_range && ptr == end;
  if (!too_large && (ec != std::errc() || ptr != end)) {
    error(key, "expected a whole number, found \"" + *text + "\"");
    return min;
  }
  if (too_large || value < min || value > max) {
    error(key, "value " + *text + " is out of range: expected " + std::to_string(min) + " to " +
                   std::to_string(max));
    return min;
  }
  return value;
}

int64_t MapReader::integer_or(const std::string& key, int64_t fallback, int64_t min, int64_t max) {
  if (!has(key) || child(key).IsNull()) {  // an empty value means "use the default"
    known_keys_.insert(key);
    return fallback;
  }
  return integer(key, min, max);
}

std::string MapReader::string(const std::string& key) { return scalar(key, true).value_or(""); }

std::string MapReader::string_or(const std::string& key, const std::string& fallback) {
  return scalar(key, false).value_or(fallback);
}

std::string MapReader::choice(const std::string& key, const std::vector<std::string>& options) {
  const std::optional<std::string> text = scalar(key, true);
  if (!text) return options.front();
  if (std::find(options.begin(), options.end(), *text) == options.end()) {
    error(key, "\"" + *text + "\" is not one of: " + join_options(options));
    return options.front();
  }
  return *text;
}

std::string MapReader::choice_or(const std::string& key, const std::string& fallback,
                                 const std::vector<std::string>& options) {
  if (!has(key) || child(key).IsNull()) {  // an empty value means "use the default"
    known_keys_.insert(key);
    return fallback;
  }
  return choice(key, options);
}

bool MapReader::boolean_or(const std::string& key, bool fallback) {
  const std::optional<std::string> text = scalar(key, false);
  if (!text) return fallback;
  if (*text == "true") return true;
  if (*text == "false") return false;
  error(key, "expected true or false, found \"" + *text + "\"");
  return fallback;
}

YAML::Node MapReader::raw(const std::string& key) {
  known_keys_.insert(key);
  return is_map_ ? child(key) : YAML::Node();
}

MapReader MapReader::map(const std::string& key) {
  known_keys_.insert(key);
  if (!has(key) || child(key).IsNull()) {
    if (report_missing_) {
      diagnostics_->error(location(), key_path(key), "missing required section '" + key + "'");
    }
    MapReader missing(YAML::Node(), file_, key_path(key), *diagnostics_);
    missing.report_missing_ = false;
    return missing;
  }
  return MapReader(child(key), file_, key_path(key), *diagnostics_);
}

std::optional<MapReader> MapReader::optional_map(const std::string& key) {
  known_keys_.insert(key);
  if (!has(key) || child(key).IsNull()) return std::nullopt;
  return MapReader(child(key), file_, key_path(key), *diagnostics_);
}

std::vector<std::string> MapReader::string_list(const std::string& key) {
  known_keys_.insert(key);
  std::vector<std::string> out;
  if (!is_map_ || !child(key).IsDefined() || child(key).IsNull()) {
    if (report_missing_) {
      diagnostics_->error(location(), key_path(key), "missing required field '" + key + "'");
    }
    return out;
  }
  const YAML::Node list = child(key);
  if (!list.IsSequence() || list.size() == 0) {
    error(key, "expected a non-empty list, e.g. [a, b]");
    return out;
  }
  for (const auto& item : list) {
    if (!item.IsScalar()) {
      diagnostics_->error(location_of(item, file_), key_path(key), "expected a name in the list");
      continue;
    }
    out.push_back(item.Scalar());
  }
  return out;
}

std::vector<std::string> MapReader::keys() {
  std::vector<std::string> out;
  if (!is_map_) return out;
  for (const auto& kv : node_) {
    out.push_back(kv.first.Scalar());
    known_keys_.insert(kv.first.Scalar());
  }
  return out;
}

std::optional<YAML::Node> MapReader::optional_raw(const std::string& key) {
  known_keys_.insert(key);
  if (!is_map_) return std::nullopt;
  const YAML::Node node = child(key);
  if (!node.IsDefined() || node.IsNull()) return std::nullopt;
  return node;
}

void MapReader::finish() {
  if (!is_map_) return;
  const std::vector<std::string> known(known_keys_.begin(), known_keys_.end());
  // yaml-cpp keeps both copies of a repeated key and lookups see only the first one, so a
  // repeated key would silently ignore the later value.
  std::map<std::string, SourceLocation> first_seen;
  for (const auto& kv : node_) {
    const std::string key = kv.first.Scalar();
    const SourceLocation where = location_of(kv.first, file_);
    const auto [first, inserted] = first_seen.emplace(key, where);
    if (!inserted) {
      diagnostics_->error(
          where, key_path(key),
          "duplicate key '" + key + "' (first given at " + first->second.str() + ")");
      continue;
    }
    if (known_keys_.count(key)) continue;
    std::string message = "unknown key '" + key + "'";
    const std::string suggestion = closest_match(key, known);
    if (!suggestion.empty()) {
      message += "; did you mean '" + suggestion + "'?";
    } else {
      message += "; known keys here: " + join_options(known);
    }
    diagnostics_->error(location_of(kv.first, file_), key_path(key), message);
  }
}

}  // namespace scoville
