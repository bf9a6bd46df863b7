// strata-plogp: measures the P-LogP parameters of the links between and
// inside the sites of a job and writes them as the parameter file
// STRATA_PLOGP reads.
//
//   mpirun -jobfile grid.yaml strata-plogp [-o FILE] [--sizes LIST] [--reps N]
//   mpirun -jobfile grid.yaml -x STRATA_PLOGP=FILE strata-plogp --predict LIST [--root R]
//
// Run it on the job's own layout (the same job file; one process per site is
// enough for the links between sites, two machines of a site for the link
// inside it). The measurement is the library's (collectives/plogp/measure.hpp,
// which STRATA_PLOGP=measure runs in MPI_Init): for every two sites, one pair
// at a time, the first process of each, and inside every site of several
// processes its first and its first on another machine, by Kielmann, Bal and
// Verstoep's fast method. Each figure is the minimum over --reps repetitions
// (default 5). Sizes default to 0,1K,16K,128K,1M. Rank 0 writes the file
// (stdout without -o).
//
// --predict reads STRATA_PLOGP's file instead and prints, for an MPI_Bcast of
// each size from --root (default 0) over MPI_COMM_WORLD, what the model
// chooses (the tree, the segment size, the time it predicts) and the
// exhaustive optimum over the same trees (the catalogue's and the greedy
// trees built for that size), as CSV on rank 0, times in the
// shortest form that reads back exactly (so two runs compare bit for bit):
//   size,plan,segment,predicted_us,optimum_plan,optimum_segment,optimum_us
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "base/knob.hpp"
#include "base/numbers.hpp"
#include "collectives/plogp/measure.hpp"
#include "collectives/plogp/wide_area.hpp"
#include "mpi/coll_support.hpp"
#include "mpi/comms/comm.hpp"
#include "mpi/runtime.hpp"

namespace {

using strata::coll::plogp::Candidates;
using strata::coll::plogp::Choice;
using strata::coll::plogp::MeasureOptions;
using strata::coll::plogp::Params;
using strata::coll::plogp::Plan;
using strata::coll::plogp::WideArea;
using strata::coll::plogp::shortest;

struct Options {
    std::string out;
    MeasureOptions measure;
    std::vector<std::size_t> predict;  // sizes; empty: measure
    int root = 0;
};

[[noreturn]] void usage_error(int rank, const std::string& what) {
    if (rank == 0) {
        std::fprintf(stderr,
                     "strata-plogp: %s\nusage: mpirun ... strata-plogp [-o FILE] [--sizes LIST] [--reps N]\n"
                     "       mpirun ... -x STRATA_PLOGP=FILE strata-plogp --predict LIST [--root R]\n",
                     what.c_str());
    }
    MPI_Finalize();
    std::exit(2);
}

// "0,1K,64K,1M": increasing sizes.
std::vector<std::size_t> size_list(const std::string& list, int rank) {
    std::vector<std::size_t> sizes;
    for (std::size_t at = 0; at <= list.size();) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        const auto v = strata::base::parse_size(list.substr(at, comma - at));
        if (!v || *v < 0 || (!sizes.empty() && static_cast<std::size_t>(*v) <= sizes.back()))
            usage_error(rank, "--sizes and --predict take increasing sizes such as 0,1K,64K,1M");
        sizes.push_back(static_cast<std::size_t>(*v));
        at = comma + 1;
    }
    return sizes;
}

Options parse(int argc, char** argv, int rank) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool has_value = i + 1 < argc;
        if ((a == "-o" || a == "--out") && has_value) {
            o.out = argv[++i];
        } else if (a == "--sizes" && has_value) {
            o.measure.sizes = size_list(argv[++i], rank);
        } else if (a == "--predict" && has_value) {
            o.predict = size_list(argv[++i], rank);
        } else if (a == "--root" && has_value) {
            const auto root = strata::base::parse_int<int>(argv[++i], 0);
            if (!root) usage_error(rank, "--root takes a rank of MPI_COMM_WORLD, not '" + std::string(argv[i]) + "'");
            o.root = *root;
        } else if (a == "--reps" && has_value) {
            const auto reps = strata::base::parse_int<int>(argv[++i], 1);
            if (!reps) usage_error(rank, "--reps takes a count from 1, not '" + std::string(argv[i]) + "'");
            o.measure.reps = *reps;
        } else {
            usage_error(rank, "unknown argument '" + a + "'");
        }
    }
    return o;
}

// --predict: the model's choices for MPI_COMM_WORLD, and the optimum (rank 0).
int predict(const Options& o, int rank, int size) {
    const WideArea* model = WideArea::get();
    std::vector<int> world(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) world[static_cast<std::size_t>(r)] = r;
    if (model == nullptr) usage_error(rank, "--predict needs STRATA_PLOGP to name a parameter file");
    if (o.root < 0 || o.root >= size) usage_error(rank, "--root takes a rank of MPI_COMM_WORLD");
    if (!model->covers(world)) {
        usage_error(rank,
                    "STRATA_PLOGP's file lacks the link inside a site of several processes: MPI_Bcast on "
                    "MPI_COMM_WORLD runs the multilevel algorithm then, which --predict does not model");
    }
    if (rank == 0) {
        std::printf("size,plan,segment,predicted_us,optimum_plan,optimum_segment,optimum_us\n");
        for (std::size_t bytes : o.predict) {
            const Plan& plan = model->plan(world, o.root, bytes, 1);
            const Candidates all = model->candidates(world, o.root, bytes, 1);
            const Choice best = optimum(all.trees, bytes, 1);
            std::printf("%zu,%s,%zu,%s,%s,%zu,%s\n", bytes, plan.name.c_str(), plan.choice.segment,
                        shortest(plan.choice.time).c_str(), all.names[best.tree].c_str(), best.segment,
                        shortest(best.time).c_str());
        }
    }
    MPI_Finalize();
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const Options o = parse(argc, argv, rank);
    if (!o.predict.empty()) return predict(o, rank, size);

    const strata::coll::plogp::Layout where = strata::coll::plogp::layout_of(strata::mpi::rt().world);
    if (where.one_machine())
        usage_error(rank, "the job runs on one machine: there is no link between sites or machines to measure");

    const strata::base::Result<Params> params =
        strata::coll::plogp::measure(strata::mpi::group_of(*strata::mpi::comm_get(MPI_COMM_WORLD)), where, o.measure);
    if (!params.ok()) {
        if (rank == 0) std::fprintf(stderr, "strata-plogp: %s\n", params.error().c_str());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int rc = 0;
    if (rank == 0) {
        const std::string text = params->text();
        if (o.out.empty()) {
            std::cout << text;
        } else {
            std::ofstream f(o.out);
            if (!(f << text) || !(f.close(), f)) {
                std::fprintf(stderr, "strata-plogp: cannot write %s\n", o.out.c_str());
                rc = 1;
            }
        }
    }
    MPI_Finalize();
    return rc;
}
