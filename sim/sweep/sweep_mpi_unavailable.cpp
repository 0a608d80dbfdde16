// Built when Boost.MPI is not found: --mpi is refused with what to install.
#include "sim/base/error.hpp"
#include "sim/sweep/sweep_mpi.hpp"

namespace scoville::sweep {

bool mpi_available() { return false; }

int run_sweep_mpi(const std::string&, const std::string&, const SweepConfig& sweep,
                  const std::vector<SweepPoint>&, const output::Provenance&, std::ostream&) {
  throw InputError(SourceLocation{sweep.source, 0, 0}, "--mpi",
                   "this scoville was built without MPI; install libboost-mpi-dev and "
                   "openmpi-bin (tools/setup does) and rebuild, or use -j N / --shard i/N");
}

}  // namespace scoville::sweep
