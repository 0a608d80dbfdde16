#include "sim/sweep/sweep_index.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/base/error.hpp"
#include "sim/output/h5_reader.hpp"
#include "sim/sweep/axis_column.hpp"
#include "sim/sweep/point_runner.hpp"

namespace scoville::sweep {

namespace fs = std::filesystem;

namespace {

constexpr int64_t kSchemaVersion = 1;

// The status line of an .err file, then the last non-empty line of the run's output (usually
// the error message).
std::string error_summary(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::stringstream rest;
  rest << in.rdbuf();
  std::string last;
  std::string l;
  while (std::getline(rest, l)) {
    if (!l.empty()) last = l;
  }
  return last.empty() ? line : line + ": " + last;
}

const output::Table* find_table(const output::H5Document& doc, const std::string& path) {
  for (const output::Table& t : doc.tables) {
    if (t.path == path) return &t;
  }
  return nullptr;
}

// Appends a point's /summary rows to the /results columns, creating columns on first sight.
// Columns missing from a point are filled with NaN (numbers) or "" (text).
void append_results(output::Table& results, const std::string& point_id,
                    const output::Table& summary, size_t& rows) {
  const size_t n = summary.columns.empty() ? 0
                                           : std::visit([](const auto& v) { return v.size(); },
                                                        summary.columns.front().values);
  auto column_for = [&](const output::Column& like) -> output::Column& {
    for (output::Column& c : results.columns) {
      if (c.name == like.name) return c;
    }
    output::Column c{like.name, like.units, {}};
    if (std::holds_alternative<std::vector<std::string>>(like.values)) {
      c.values = std::vector<std::string>(rows, "");
    } else {
      c.values = std::vector<double>(rows, std::nan(""));
    }
    results.columns.push_back(std::move(c));
    return results.columns.back();
  };
  std::get<std::vector<std::string>>(results.columns[0].values)
      .insert(std::get<std::vector<std::string>>(results.columns[0].values).end(), n, point_id);
  for (const output::Column& src : summary.columns) {
    output::Column& dst = column_for(src);
    if (auto* text = std::get_if<std::vector<std::string>>(&dst.values)) {
      if (const auto* s = std::get_if<std::vector<std::string>>(&src.values)) {
        text->insert(text->end(), s->begin(), s->end());
      } else {
        text->insert(text->end(), n, "");
      }
    } else {
      auto& numbers = std::get<std::vector<double>>(dst.values);
      if (const auto* d = std::get_if<std::vector<double>>(&src.values)) {
        numbers.insert(numbers.end(), d->begin(), d->end());
      } else if (const auto* i = std::get_if<std::vector<int64_t>>(&src.values)) {
        for (int64_t v : *i) numbers.push_back(static_cast<double>(v));
      } else {
        numbers.insert(numbers.end(), n, std::nan(""));
      }
    }
  }
  rows += n;
  // Columns this point lacks stay aligned.
  for (output::Column& c : results.columns) {
    if (auto* text = std::get_if<std::vector<std::string>>(&c.values)) {
      text->resize(rows, "");
    } else {
      std::get<std::vector<double>>(c.values).resize(rows, std::nan(""));
    }
  }
}

}  // namespace

output::H5Document build_index(const std::string& dir, const SweepConfig& sweep,
                               const std::vector<SweepPoint>& points,
                               const output::Provenance& provenance, IndexCounts& counts) {
  counts = {};
  output::H5Document doc;
  doc.root_attributes = {{"schema", std::string("scoville.results")},
                         {"schema_version", kSchemaVersion},
                         {"file_kind", std::string("sweep")},
                         {"sweep_name", sweep.name},
                         {"point_kind", to_string(sweep.kind)},
                         {"tool_version", provenance.tool_version},
                         {"git_sha", provenance.git_sha},
                         {"command_line", provenance.command_line},
                         {"created_utc", provenance.created_utc}};
  doc.strings.push_back({"/config/sweep_yaml", sweep.text});

  std::vector<std::string> ids, statuses, errors, paths;
  std::vector<int64_t> indices;
  std::vector<std::vector<std::string>> axis_values(sweep.axes.size());
  output::Table results{"/results", {{"point_id", "", std::vector<std::string>{}}}, {}};
  size_t result_rows = 0;
  for (const SweepPoint& p : points) {
    const PointStatus status = point_status(dir, p);
    const PointFiles files = point_files(dir, p);
    ids.push_back(p.id);
    indices.push_back(p.index);
    statuses.push_back(to_string(status));
    for (size_t a = 0; a < p.assignments.size(); ++a)
      axis_values[a].push_back(p.assignments[a].second);
    paths.push_back(fs::relative(files.result, dir).string());
    std::string error;
    if (status == PointStatus::kDone) {
      ++counts.done;
      const output::H5Document run = output::read_results_file(files.result);
      // A study point's key metrics are its /summary rows (per chip, or one row for a system
      // run); a scenario point's are its /points row (serving metrics).
      const std::string table = sweep.kind == PointKind::kScenario ? "/points" : "/summary";
      if (const output::Table* summary = find_table(run, table)) {
        append_results(results, p.id, *summary, result_rows);
      }
    } else if (status == PointStatus::kFailed) {
      ++counts.failed;
      error = error_summary(files.error);
    } else {
      ++counts.pending;
    }
    errors.push_back(error);
  }
  output::Table index{"/points", {}, {{"description", std::string("one row per sweep point")}}};
  index.columns.push_back({"point_id", "", ids});
  index.columns.push_back({"index", "1", indices});
  for (size_t a = 0; a < sweep.axes.size(); ++a) {
    index.columns.push_back(axis_column(sweep.axes[a].key, axis_values[a]));
  }
  index.columns.push_back({"status", "", statuses});
  index.columns.push_back({"error", "", errors});
  index.columns.push_back({"path", "", paths});
  doc.tables.push_back(std::move(index));
  results.attributes = {{"description", std::string(sweep.kind == PointKind::kScenario
                                                        ? "each done point's /points row"
                                                        : "each done point's /summary rows")}};
  doc.tables.push_back(std::move(results));
  return doc;
}

IndexCounts write_index(const std::string& dir, const SweepConfig& sweep,
                        const std::vector<SweepPoint>& points,
                        const output::Provenance& provenance) {
  IndexCounts counts;
  const output::H5Document doc = build_index(dir, sweep, points, provenance, counts);
  output::write_h5_atomically(doc, (fs::path(dir) / "sweep.h5").string());
  return counts;
}

}  // namespace scoville::sweep
