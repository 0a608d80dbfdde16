#include "workloads/precision_override.hpp"

#include <algorithm>
#include <sstream>

namespace scoville::workloads {

namespace {

std::string trimmed(const std::string& s) {
  const size_t first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

std::string unknown_message(const std::string& what, const std::string& found,
                            const std::vector<std::string>& known) {
  std::string message = "unknown " + what + " '" + found + "'";
  const std::string guess = closest_match(found, known);
  if (!guess.empty()) message += "; did you mean '" + guess + "'?";
  message += " Expected one of:";
  for (const std::string& k : known) message += " " + k;
  return message;
}

void set_class(PrecisionConfig& p, const std::string& tensor_class, NumberFormat format) {
  if (tensor_class == "weights") {
    p.weights = format;
  } else if (tensor_class == "experts") {
    p.experts = format;
  } else if (tensor_class == "embeddings") {
    p.embeddings = format;
  } else if (tensor_class == "activations") {
    p.activations = format;
  } else if (tensor_class == "mlp") {
    p.mlp = format;
  } else if (tensor_class == "mlp_activations") {
    p.mlp_activations = format;
  } else if (tensor_class == "residual") {
    p.residual = format;
  } else {
    p.kv_cache = format;
  }
}

}  // namespace

std::vector<std::string> precision_class_names() {
  return {"weights",  "experts", "embeddings",      "activations",
          "kv_cache", "mlp",     "mlp_activations", "residual"};
}

PrecisionOverride PrecisionOverride::merged_with(const PrecisionOverride& other) const {
  PrecisionOverride out = *this;
  for (const auto& [tensor_class, entry] : other.entries) out.entries[tensor_class] = entry;
  return out;
}

std::string PrecisionOverride::str() const {
  std::string out;
  for (const auto& [tensor_class, entry] : entries) {
    out += (out.empty() ? "" : ",") + tensor_class + "=" + to_string(entry.format);
  }
  return out;
}

PrecisionOverride read_precision_override(MapReader reader) {
  PrecisionOverride out;
  const std::vector<std::string> formats = number_format_names();
  for (const std::string& tensor_class : precision_class_names()) {
    // choice_or marks every class as known, so that a misspelt one gets a did-you-mean.
    const std::string name = reader.choice_or(tensor_class, "", formats);
    if (name.empty()) continue;
    const std::optional<NumberFormat> format = number_format_from_string(name);
    if (!format) continue;  // choice() has reported it
    const std::string path =
        reader.path().empty() ? tensor_class : reader.path() + "." + tensor_class;
    out.entries[tensor_class] = {*format, reader.location_of_key(tensor_class), path};
  }
  reader.finish();  // unknown classes, with did-you-mean
  return out;
}

PrecisionOverride parse_precision_override(const std::string& text, const std::string& flag) {
  const SourceLocation cli{"<command line>", 0, 0};
  const std::vector<std::string> classes = precision_class_names();
  const std::vector<std::string> formats = number_format_names();
  Diagnostics diagnostics;
  PrecisionOverride out;
  std::stringstream in(text);
  std::string item;
  bool any = false;
  while (std::getline(in, item, ',')) {
    item = trimmed(item);
    if (item.empty()) continue;
    any = true;
    const size_t eq = item.find('=');
    if (eq == std::string::npos) {
      diagnostics.error(cli, flag, "found '" + item + "': expected class=format, e.g. weights=fp8");
      continue;
    }
    const std::string tensor_class = trimmed(item.substr(0, eq));
    const std::string format_name = trimmed(item.substr(eq + 1));
    const std::string key = flag + " " + tensor_class;
    bool ok = true;
    if (std::find(classes.begin(), classes.end(), tensor_class) == classes.end()) {
      diagnostics.error(cli, flag, unknown_message("tensor class", tensor_class, classes));
      ok = false;
    }
    const std::optional<NumberFormat> format = number_format_from_string(format_name);
    if (!format) {
      diagnostics.error(cli, ok ? key : flag,
                        unknown_message("number format", format_name, formats));
      ok = false;
    }
    if (ok && out.entries.count(tensor_class) > 0) {
      diagnostics.error(cli, key, "given twice: expected each tensor class at most once");
      ok = false;
    }
    if (ok) out.entries[tensor_class] = {*format, cli, key};
  }
  if (!any) {
    diagnostics.error(
        cli, flag, "empty: expected class=format[,class=format...], e.g. weights=fp8,kv_cache=fp8");
  }
  diagnostics.throw_if_any();
  return out;
}

ModelConfig apply_precision_override(const ModelConfig& model, const PrecisionOverride& override_) {
  if (override_.empty()) return model;
  PrecisionConfig precision = model.precision();
  Diagnostics diagnostics;
  for (const auto& [tensor_class, entry] : override_.entries) {
    if (tensor_class == "experts" && model.ffn().type != FfnType::kMoe) {
      diagnostics.error(entry.where, entry.key_path,
                        "model " + model.name() +
                            " is dense and has no routed experts: expected no experts override "
                            "(use weights)");
      continue;
    }
    if (weight_only(entry.format) &&
        (tensor_class == "activations" || tensor_class == "kv_cache" ||
         tensor_class == "mlp_activations" || tensor_class == "residual")) {
      diagnostics.error(entry.where, entry.key_path,
                        to_string(entry.format) +
                            " is a weight-only format (W4A16: widened before the math): expected "
                            "bf16, fp8, mxfp4 or nvfp4 for " +
                            tensor_class);
      continue;
    }
    set_class(precision, tensor_class, entry.format);
  }
  diagnostics.throw_if_any();
  // A dense model stores no expert matrices; keep the unused class equal to weights, as the
  // loader resolves it.
  if (model.ffn().type != FfnType::kMoe) precision.experts = precision.weights;
  return model.with_precision(precision);
}

}  // namespace scoville::workloads
