// `scoville sweep` runs a design-space sweep; `scoville merge` (re)builds its index.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/base/unit_parser.hpp"
#include "sim/cli/command_table.hpp"
#include "sim/output/output_paths.hpp"
#include "sim/output/provenance.hpp"
#include "sim/sweep/point_runner.hpp"
#include "sim/sweep/sweep_config.hpp"
#include "sim/sweep/sweep_index.hpp"
#include "sim/sweep/sweep_mpi.hpp"

namespace scoville::cli {

OptionSet sweep_options() {
  OptionSet s("sweep");
  s.synopsis("FILE.yaml [options]", "run every point of a sweep file, one process per point")
      .positional("FILE.yaml", "the sweep file (docs/sweeps.md)")
      .text("-o,--output", "DIR", "results directory (default: <sweep name>.sweep)")
      .count("-j,--jobs", "N", "points run at once on this machine (default 1)")
      .text("--shard", "I/N", "run only points with index % N == I (e.g. a SLURM array task)")
      .flag("--mpi", "under mpirun: rank 0 hands out points to the other ranks")
      .flag("--quiet", "no per-point progress lines")
      .note(
          "Finished points are skipped on a rerun; exit 4 if any failed. After shards, "
          "'scoville merge DIR' builds the index.");
  return s;
}

OptionSet merge_options() {
  OptionSet s("merge");
  s.synopsis("DIR", "rebuild DIR/sweep.h5 from the points present (after shards)")
      .positional("DIR", "a sweep's results directory (written by scoville sweep)");
  return s;
}

namespace {

constexpr int kExitSomeFailed = 4;
constexpr long long kMaxJobs = 1024;

struct Shard {
  long long index = 0;
  long long count = 1;
};

Shard parse_shard(const std::string& text) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos) throw UsageError("--shard expects I/N, got '" + text + "'");
  Shard s{parse_count("--shard", text.substr(0, slash)),
          parse_count("--shard", text.substr(slash + 1))};
  if (s.count < 1 || s.index >= s.count) {
    throw UsageError("--shard I/N needs 0 <= I < N, got '" + text + "'");
  }
  return s;
}

}  // namespace

int sweep_command(const Invocation& invocation, std::ostream& out) {
  const ParsedOptions p = sweep_options().parse(invocation.args);
  const std::optional<std::string> dir = p.text("--output");
  const long long jobs = p.count("--jobs").value_or(1);
  if (jobs < 1 || jobs > kMaxJobs) {
    throw UsageError("--jobs expects 1 to " + std::to_string(kMaxJobs));
  }
  std::optional<Shard> shard;
  if (const auto text = p.text("--shard")) shard = parse_shard(*text);
  const bool mpi = p.flag("--mpi"), quiet = p.flag("--quiet");
  if (p.positionals().size() > 1) throw UsageError("'scoville sweep' takes one sweep file");
  if (p.positionals().empty()) throw UsageError("'scoville sweep' needs a sweep file");
  const std::optional<std::string> file = p.positionals().front();
  if (mpi && (shard || jobs != 1)) throw UsageError("--mpi cannot be combined with --shard or -j");

  const sweep::SweepConfig config = sweep::parse_sweep_file(*file);
  const std::vector<sweep::SweepPoint> points = sweep::expand_points(config);
  const std::string out_dir = dir ? *dir : config.name + ".sweep";
  output::RunFiles guard;
  guard.input("sweep file", *file);
  guard.output("-o", out_dir);
  guard.output("-o", out_dir + "/sweep.h5");
  guard.check();
  const output::Provenance provenance =
      output::Provenance::current(invocation.argc, invocation.argv, 0);
  const std::string executable = sweep::own_executable();
  if (mpi) return sweep::run_sweep_mpi(executable, out_dir, config, points, provenance, out);

  sweep::prepare_directory(out_dir, config, points);
  const std::vector<sweep::SweepPoint> mine =
      shard ? sweep::shard_points(points, shard->index, shard->count) : points;
  if (!quiet) {
    out << "sweep '" << config.name << "': " << points.size() << " points";
    if (shard) out << ", shard " << shard->index << "/" << shard->count << " runs " << mine.size();
    out << ", " << jobs << " at a time, results in " << out_dir << "\n" << std::flush;
  }
  const sweep::RunSummary run =
      sweep::run_points(executable, out_dir, mine, jobs, quiet ? nullptr : &out);
  if (shard) {
    out << "shard " << shard->index << "/" << shard->count << ": " << run.done << " done, "
        << run.failed << " failed, " << run.skipped << " already done; when every shard has "
        << "finished: scoville merge " << out_dir << "\n";
    return run.failed > 0 ? kExitSomeFailed : 0;
  }
  const sweep::IndexCounts counts = sweep::write_index(out_dir, config, points, provenance);
  out << "sweep '" << config.name << "': " << counts.done << " done (" << run.skipped
      << " from an earlier run), " << counts.failed << " failed; index " << out_dir
      << "/sweep.h5\n";
  return counts.failed > 0 || counts.pending > 0 ? kExitSomeFailed : 0;
}

int merge_command(const Invocation& invocation, std::ostream& out) {
  const std::vector<std::string> dirs = merge_options().parse(invocation.args).positionals();
  if (dirs.size() != 1 || dirs.front().empty()) {
    throw UsageError("'scoville merge' takes one sweep directory");
  }
  const std::string dir = dirs.front();
  const std::string sweep_file = (std::filesystem::path(dir) / "sweep.yaml").string();
  if (!std::filesystem::exists(sweep_file)) {
    throw InputError(SourceLocation{dir, 0, 0}, "",
                     "not a sweep directory: it has no sweep.yaml (written by `scoville sweep`)");
  }
  const sweep::SweepConfig config = sweep::parse_sweep_file(sweep_file);
  const std::vector<sweep::SweepPoint> points = sweep::expand_points(config);
  const output::Provenance provenance =
      output::Provenance::current(invocation.argc, invocation.argv, 0);
  const sweep::IndexCounts counts = sweep::write_index(dir, config, points, provenance);
  out << "merge: " << counts.done << " done, " << counts.failed << " failed, " << counts.pending
      << " pending; index " << dir << "/sweep.h5\n";
  return counts.failed > 0 || counts.pending > 0 ? kExitSomeFailed : 0;
}

}  // namespace scoville::cli
