// A sweep file: a base study plus axes over any of its configuration keys, combined as a
// cartesian product or zipped, expanded into points with stable ids. Each point is a complete
// study file, so a point runs exactly as `scoville run --study POINT.yaml` would.
//
// The base is a study (points run `scoville run --study`) or a serving scenario (`scenario:`
// inline, or a base file whose top-level key is scenario:; points run `scoville serve
// --scenario`), docs/sweeps.md.
//
//   sweep:
//     name: batch-by-chip
//     study: {chips: [h200], model: llama-3.1-8b, batch: 1, isl: 1024, osl: 128, seed: 1}
//     # or: base: path/to/study.yaml (relative to the sweep file)
//     combine: cartesian          # or zip (all axes the same length)
//     axes:
//       - key: study.batch
//         values: [1, 4, 16]
//       - key: study.isl
//         range: {from: 1024, to: 8192, factor: 2}   # or step: 1024; units allowed ("1 TB/s")
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/error.hpp"

namespace scoville::sweep {

struct SweepAxis {
  std::string key;                 // dotted path into the study document, e.g. "study.batch"
  std::vector<YAML::Node> values;  // each value as YAML (scalar, list or map)
  SourceLocation where;
};

// What a point is: a study (`scoville run --study POINT.yaml`) or a serving scenario
// (`scoville serve --scenario POINT.yaml`).
enum class PointKind { kStudy, kScenario };
std::string to_string(PointKind kind);

struct SweepConfig {
  std::string name;
  std::string source;  // the sweep file
  std::string text;    // the sweep file as written
  // The sweep file with a base: FILE replaced by the file's contents inline, so that the copy in
  // the output directory (which `scoville merge` reads) stands on its own.
  std::string self_contained_text;
  PointKind kind = PointKind::kStudy;
  YAML::Node base;  // the base document (top-level `study:` or `scenario:` map)
  bool zip = false;
  std::vector<SweepAxis> axes;
};

struct SweepPoint {
  int64_t index = 0;  // position in expansion order (cartesian: last axis fastest)
  PointKind kind = PointKind::kStudy;
  std::string id;  // stable: hash of the assignments, independent of index and axis order
  std::vector<std::pair<std::string, std::string>> assignments;  // key, value as flow YAML
  std::string study_yaml;  // the complete study (or scenario) file of this point
};

// Points beyond this are refused up front: a sweep that big is a mistake or needs splitting.
constexpr int64_t kMaxPoints = 1'000'000;

SweepConfig parse_sweep_file(const std::string& path);
SweepConfig parse_sweep_string(const std::string& text, const std::string& display_name);

// Expands the axes and checks every point's study (InputError naming the point and its axis
// values, with the study's own message).
std::vector<SweepPoint> expand_points(const SweepConfig& sweep);

}  // namespace scoville::sweep
