// A per-run override of a model's number formats, per tensor class (the keys of a model file's
// `precision:` map): from a study file's `precision:` map or `scoville run --precision
// weights=fp8,kv_cache=fp8`. Every entry remembers where it was written, so that an override the
// model cannot take (experts on a dense model) is reported there.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/base/number_format.hpp"
#include "sim/base/yaml_reader.hpp"
#include "workloads/model_config.hpp"

namespace scoville::workloads {

// "weights", "experts", "embeddings", "activations", "kv_cache", "mlp", "mlp_activations",
// "residual".
std::vector<std::string> precision_class_names();

struct PrecisionOverride {
  struct Entry {
    NumberFormat format = NumberFormat::kBf16;
    SourceLocation where;
    std::string key_path;
  };
  std::map<std::string, Entry> entries;  // by tensor class

  bool empty() const { return entries.empty(); }
  // This override with `other`'s entries replacing or adding to its own (command line over file).
  PrecisionOverride merged_with(const PrecisionOverride& other) const;
  std::string str() const;  // "experts=mxfp4,kv_cache=fp8" (class order of the map)
};

// Reads a `precision:` mapping; unknown classes and formats go to the reader's diagnostics.
PrecisionOverride read_precision_override(MapReader reader);

// Parses "class=format[,class=format...]" given to `flag`; throws InputError listing every bad
// item (unknown class or format with did-you-mean, a missing '=', a class given twice).
PrecisionOverride parse_precision_override(const std::string& text, const std::string& flag);

// The model with the override applied. Throws InputError at the entry when the model has no such
// tensor class (experts on a dense model).
ModelConfig apply_precision_override(const ModelConfig& model, const PrecisionOverride& override_);

}  // namespace scoville::workloads
