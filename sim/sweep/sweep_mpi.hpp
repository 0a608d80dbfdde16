// The MPI launcher for sweeps: `mpirun -n N scoville sweep FILE.yaml --mpi`. Rank 0 prepares the
// directory, hands out points one at a time to ranks 1..N-1 as they become free (so long and short
// points balance), and writes sweep.h5 when all are back; each worker runs its points as child
// processes like `-j 1`. With one rank, rank 0 runs every point itself.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "sim/output/provenance.hpp"
#include "sim/sweep/sweep_config.hpp"

namespace scoville::sweep {

// True when this build has Boost.MPI (otherwise --mpi is refused with a message).
bool mpi_available();

// Returns the process exit code (0: all points done, 4: some failed). Only rank 0 prints.
int run_sweep_mpi(const std::string& executable, const std::string& dir, const SweepConfig& sweep,
                  const std::vector<SweepPoint>& points, const output::Provenance& provenance,
                  std::ostream& out);

}  // namespace scoville::sweep
