// A process group (MPI_Comm_group and the group constructors): the object
// behind an MPI_Group handle. (coll::Group is the collectives' view of a
// communicator's members.)
#pragma once

#include <vector>

namespace strata::mpi {

struct ProcessGroup {
    std::vector<int> world;  // group rank -> world rank
};

}  // namespace strata::mpi
