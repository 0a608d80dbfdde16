#include "sim/cli/commands.hpp"

#include "sim/base/error.hpp"
#include "sim/config/config_files.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/engine/study_runner.hpp"
#include "sim/output/atomic_file.hpp"
#include "sim/output/study_report.hpp"

namespace scoville::cli {

namespace {

study::StudyConfig study_from(const RunOptions& r) {
  study::StudyConfig s =
      r.study_file ? study::parse_study_file(*r.study_file) : study::default_study();
  const SourceLocation cli{"<command line>", 0, 0};
  auto count = [&](const std::optional<long long>& v, int64_t& field, const char* flag,
                   int64_t max) {
    if (!v) return;
    if (*v < 1 || *v > max) {
      throw InputError(cli, flag,
                       "expected 1 to " + std::to_string(max) + ", got " + std::to_string(*v));
    }
    field = *v;
  };
  if (!r.chips.empty()) s.chips = r.chips;
  if (r.model) s.model = *r.model;
  count(r.batch, s.batch, "--batch", study::kMaxBatch);
  count(r.isl, s.isl, "--isl", study::kMaxSequenceTokens);
  count(r.osl, s.osl, "--osl", study::kMaxSequenceTokens);
  if (r.seed) s.seed = static_cast<uint64_t>(*r.seed);
  return s;
}

int run(const RunOptions& r, int argc, const char* const* argv, std::ostream& out) {
  const study::StudyConfig s = study_from(r);
  const engine::StudyResult result = engine::run_study(s, config::DataPaths::from_environment());
  const output::Provenance provenance = output::Provenance::current(argc, argv, s.seed);
  if (r.h5_output) output::write_h5_atomically(output::build_h5(result, provenance), *r.h5_output);
  out << (r.json ? output::render_json(result, provenance) : output::render_text(result));
  return 0;
}

int config_check(const std::vector<std::string>& files, std::ostream& out) {
  std::vector<Diagnostic> problems;
  for (const std::string& file : files) {
    try {
      const config::FileKind kind = config::check_file(file);
      out << file << ": ok (" << config::to_string(kind) << ")\n";
    } catch (const InputError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  if (!problems.empty()) throw InputError(problems);
  return 0;
}

}  // namespace

int execute(const Options& options, int argc, const char* const* argv, std::ostream& out) {
  switch (options.command) {
    case Command::kHelp:
      out << usage();
      return 0;
    case Command::kVersion:
      out << "scoville " << output::tool_version() << " (git " << output::git_sha()
          << "), C++17, SystemC 2.3\n";
      return 0;
    case Command::kRun:
      return run(options.run, argc, argv, out);
    case Command::kConfigCheck:
      return config_check(options.files, out);
    case Command::kConfigDump:
      out << config::dump_file(options.files.front());
      return 0;
  }
  return 0;
}

}  // namespace scoville::cli
