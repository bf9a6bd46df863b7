// A process group (MPI_Comm_group and the group constructors).
#pragma once

#include <vector>

namespace strata::mpi {

struct Group {
    std::vector<int> world;  // group rank -> world rank
};

}  // namespace strata::mpi
