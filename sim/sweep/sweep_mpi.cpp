#include "sim/sweep/sweep_mpi.hpp"

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <boost/mpi/status.hpp>

#include "sim/sweep/point_runner.hpp"
#include "sim/sweep/sweep_index.hpp"

namespace scoville::sweep {

namespace {

constexpr int kReadyTag = 1;  // worker -> rank 0: index of the point it finished (-1: none yet)
constexpr int kWorkTag = 2;   // rank 0 -> worker: index of the next point (-1: stop)
constexpr int64_t kNoPoint = -1;

}  // namespace

bool mpi_available() { return true; }

int run_sweep_mpi(const std::string& executable, const std::string& dir, const SweepConfig& sweep,
                  const std::vector<SweepPoint>& points, const output::Provenance& provenance,
                  std::ostream& out) {
  boost::mpi::environment environment;
  boost::mpi::communicator world;
  if (world.rank() == 0) prepare_directory(dir, sweep, points);
  world.barrier();  // workers start only once the point files exist

  if (world.rank() != 0) {
    int64_t finished = kNoPoint;
    while (true) {
      world.send(0, kReadyTag, finished);
      int64_t index = kNoPoint;
      world.recv(0, kWorkTag, index);
      if (index == kNoPoint) break;
      run_point(executable, dir, points[static_cast<size_t>(index)]);
      finished = index;
    }
    world.barrier();
    return 0;
  }

  std::vector<int64_t> todo;
  for (const SweepPoint& p : points) {
    if (point_status(dir, p) != PointStatus::kDone) todo.push_back(p.index);
  }
  out << "sweep '" << sweep.name << "': " << points.size() << " points, " << todo.size()
      << " to run on " << world.size() - 1 << " MPI worker rank(s)\n";
  if (world.size() == 1) {
    run_points(executable, dir, points, 1, &out);
  } else {
    size_t next = 0;
    int stopped = 0;
    while (stopped < world.size() - 1) {
      int64_t finished = kNoPoint;
      const boost::mpi::status status = world.recv(boost::mpi::any_source, kReadyTag, finished);
      if (finished != kNoPoint) {
        out << "point " << points[static_cast<size_t>(finished)].id << " "
            << to_string(point_status(dir, points[static_cast<size_t>(finished)])) << " (rank "
            << status.source() << ")\n"
            << std::flush;
      }
      const int64_t index = next < todo.size() ? todo[next++] : kNoPoint;
      if (index == kNoPoint) ++stopped;
      world.send(status.source(), kWorkTag, index);
    }
  }
  const IndexCounts counts = write_index(dir, sweep, points, provenance);
  out << "sweep '" << sweep.name << "': " << counts.done << " done, " << counts.failed
      << " failed, " << counts.pending << " pending; index " << dir << "/sweep.h5\n";
  if (world.size() > 1) world.barrier();
  return counts.failed > 0 || counts.pending > 0 ? 4 : 0;
}

}  // namespace scoville::sweep
