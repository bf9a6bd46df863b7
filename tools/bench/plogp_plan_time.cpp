// plogp-plan-time: what WideArea::plan() costs for 64 ranks, on grids of
// 64 sites x 1 rank, 8 x 8 and 2 x 32, for broadcasts of 1 KiB to 4 MiB
// (microseconds per plan: 20 fresh models, since plan() remembers its plans,
// timed together; the fastest of 3 rounds).
//
//   plogp-plan-time FILE
//
// FILE is a parameter file with a link inside site A ("link A A") and one
// between sites A and B ("link A B"); every site gets the first, every two
// sites the second. It uses only the interfaces collectives/plogp has had
// since the model's first version (Params, WideArea::make, plan), so the same
// source also builds against an earlier commit's model, for a before and after.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "base/file.hpp"
#include "collectives/plogp/params.hpp"
#include "collectives/plogp/wide_area.hpp"
#include "tools/bench/plogp_grid.hpp"

namespace {

using namespace strata::coll::plogp;

struct Grid {
    int sites, ranks;
};

double plan_time(Grid g, const Params& file, std::size_t bytes) {
    constexpr int kModels = 20;
    const std::vector<std::string> labels = strata::bench::site_labels(g.sites, g.ranks);
    const Params grid = strata::bench::uniform_grid(g.sites, *file.link("A", "A"), *file.link("A", "B"), file.sizes());
    std::vector<int> world(labels.size());
    for (std::size_t r = 0; r < world.size(); ++r) world[r] = static_cast<int>(r);
    double best = 0;
    for (int round = 0; round < 3; ++round) {
        std::vector<std::unique_ptr<WideArea>> models;
        for (int i = 0; i < kModels; ++i) models.push_back(std::move(*WideArea::make(grid, labels)));
        const auto start = std::chrono::steady_clock::now();
        for (const auto& m : models) (void)m->plan(world, 0, bytes, 1);
        const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
        if (round == 0 || took.count() / kModels < best) best = took.count() / kModels;
    }
    return best;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: plogp-plan-time FILE\n");
        return 2;
    }
    const strata::base::Result<std::string> text = strata::base::file_read(argv[1], "the parameter file");
    const strata::base::Result<Params> file = text.ok() ? Params::parse(*text, argv[1]) : text.failure();
    if (!file.ok() || file->link("A", "A") == nullptr || file->link("A", "B") == nullptr) {
        std::fprintf(stderr, "plogp-plan-time: %s\n",
                     file.ok() ? "the file needs the links A A and A B" : file.error().c_str());
        return 2;
    }
    std::printf("| grid | 1 KiB | 4 KiB | 16 KiB | 64 KiB | 256 KiB | 1 MiB | 4 MiB |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    for (const Grid g : {Grid{64, 1}, Grid{8, 8}, Grid{2, 32}}) {
        std::printf("| %dx%d |", g.sites, g.ranks);
        for (std::size_t bytes = 1 << 10; bytes <= (std::size_t{4} << 20); bytes *= 4) {
            std::printf(" %.0f |", plan_time(g, *file, bytes));
        }
        std::printf("\n");
    }
    return 0;
}
