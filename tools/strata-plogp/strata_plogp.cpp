// strata-plogp: measures the P-LogP parameters of the links between the sites
// of a job and writes them as the parameter file STRATA_PLOGP reads.
//
//   mpirun -jobfile grid.yaml strata-plogp [-o FILE] [--sizes LIST] [--reps N]
//
// Run it on the job's own layout (the same job file, or one process per site
// is enough). For every two sites, one pair at a time while every other
// process waits, the first process of each site measures with the other, in
// the manner of Kielmann, Bal and Verstoep's fast method:
//   g(m)  the gap: n and then 2n messages of m bytes sent back to back
//         (MPI_Isend, then one acknowledgement); g = (T(2n) - T(n)) / n with
//         the fastest T of the repetitions, so the latency of the
//         acknowledgement cancels out;
//   os(m) the time of an MPI_Isend call of m bytes on an idle link;
//   or(m) the time of an MPI_Recv of m bytes that has had time to arrive, up
//         to the method's eager limit; above it a message waits for its
//         receive to start moving, so the call would include the transfer,
//         which a receive posted early (as the segmented algorithms post
//         theirs) does not pay: or(m) is extended there along the last two
//         measured sizes;
//   L     half the round trip of an empty message, less g(0).
// Each figure is the minimum over --reps repetitions (default 5). Sizes
// default to 0,1K,16K,128K,1M. Rank 0 writes the file (stdout without -o).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "base/knob.hpp"
#include "collectives/plogp/params.hpp"
#include "mpi/runtime.hpp"

namespace {

using strata::coll::plogp::Curve;
using strata::coll::plogp::Link;
using strata::coll::plogp::Params;

enum { kTagData = 1, kTagAck = 2, kTagResult = 3 };

struct Options {
    std::string out;
    std::vector<std::size_t> sizes{0, 1024, 16 * 1024, 128 * 1024, 1024 * 1024};
    int reps = 5;
};

[[noreturn]] void usage_error(int rank, const std::string& what) {
    if (rank == 0) {
        std::fprintf(stderr, "strata-plogp: %s\nusage: mpirun ... strata-plogp [-o FILE] [--sizes LIST] [--reps N]\n",
                     what.c_str());
    }
    MPI_Finalize();
    std::exit(2);
}

Options parse(int argc, char** argv, int rank) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool has_value = i + 1 < argc;
        if ((a == "-o" || a == "--out") && has_value) {
            o.out = argv[++i];
        } else if (a == "--sizes" && has_value) {
            o.sizes.clear();
            std::string list = argv[++i];
            for (std::size_t at = 0; at <= list.size();) {
                const std::size_t comma = std::min(list.find(',', at), list.size());
                const auto v = strata::base::parse_size(list.substr(at, comma - at));
                if (!v || *v < 0 || (!o.sizes.empty() && static_cast<std::size_t>(*v) <= o.sizes.back()))
                    usage_error(rank, "--sizes takes increasing sizes such as 0,1K,64K,1M");
                o.sizes.push_back(static_cast<std::size_t>(*v));
                at = comma + 1;
            }
        } else if (a == "--reps" && has_value) {
            o.reps = std::atoi(argv[++i]);
            if (o.reps < 1) usage_error(rank, "--reps takes a count from 1");
        } else {
            usage_error(rank, "unknown argument '" + a + "'");
        }
    }
    return o;
}

double now_us() {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// One side of a measurement between `me` and `peer`; `first` is the side that
// times (it sends the data), the other echoes.
class Pair {
public:
    Pair(int peer, bool first, std::size_t largest)
        : peer_(peer), first_(first), buf_(std::max<std::size_t>(largest, 1)) {}

    // Half of the fastest round trip of an empty message (first side).
    double half_round_trip(int reps) {
        double best = 1e300;
        for (int r = 0; r < reps; ++r) {
            if (first_) {
                const double t0 = now_us();
                MPI_Send(buf_.data(), 0, MPI_BYTE, peer_, kTagData, MPI_COMM_WORLD);
                MPI_Recv(buf_.data(), 0, MPI_BYTE, peer_, kTagAck, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                best = std::min(best, (now_us() - t0) / 2);
            } else {
                MPI_Recv(buf_.data(), 0, MPI_BYTE, peer_, kTagData, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf_.data(), 0, MPI_BYTE, peer_, kTagAck, MPI_COMM_WORLD);
            }
        }
        return best;
    }

    // g(m): n messages back to back and one acknowledgement, then 2n (first side).
    double gap(std::size_t m, int reps) {
        const int n = m >= 128 * 1024 ? 4 : 16;
        double once = 1e300, twice = 1e300;  // the fastest of each: a difference of minima
        for (int r = 0; r < reps; ++r) {
            once = std::min(once, stream(m, n));
            twice = std::min(twice, stream(m, 2 * n));
        }
        return std::max((twice - once) / n, 0.0);
    }

    // os(m): an MPI_Isend call on an idle link.
    double send_overhead(std::size_t m, int reps) {
        double best = 1e300;
        for (int r = 0; r < reps; ++r) {
            if (first_) {
                MPI_Request req;
                const double t0 = now_us();
                MPI_Isend(buf_.data(), static_cast<int>(m), MPI_BYTE, peer_, kTagData, MPI_COMM_WORLD, &req);
                best = std::min(best, now_us() - t0);
                MPI_Wait(&req, MPI_STATUS_IGNORE);
                MPI_Recv(buf_.data(), 0, MPI_BYTE, peer_, kTagAck, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf_.data(), static_cast<int>(m), MPI_BYTE, peer_, kTagData, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                MPI_Send(buf_.data(), 0, MPI_BYTE, peer_, kTagAck, MPI_COMM_WORLD);
            }
        }
        return first_ ? best : 0;
    }

    // or(m): the second side receives m bytes that had `settle` microseconds
    // to arrive, and both sides return the time of its MPI_Recv.
    double recv_overhead(std::size_t m, int reps, double settle) {
        double best = 1e300;
        for (int r = 0; r < reps; ++r) {
            if (first_) {
                MPI_Send(buf_.data(), static_cast<int>(m), MPI_BYTE, peer_, kTagData, MPI_COMM_WORLD);
                MPI_Recv(buf_.data(), 0, MPI_BYTE, peer_, kTagAck, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                std::this_thread::sleep_for(std::chrono::duration<double, std::micro>(settle));
                const double t0 = now_us();
                MPI_Recv(buf_.data(), static_cast<int>(m), MPI_BYTE, peer_, kTagData, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                best = std::min(best, now_us() - t0);
                MPI_Send(buf_.data(), 0, MPI_BYTE, peer_, kTagAck, MPI_COMM_WORLD);
            }
        }
        return share(best, false);
    }

    // The figure one side measured, on both sides: the first side's unless
    // `from_first` is false.
    double share(double figure, bool from_first = true) {
        if (first_ == from_first) {
            MPI_Send(&figure, 1, MPI_DOUBLE, peer_, kTagResult, MPI_COMM_WORLD);
        } else {
            MPI_Recv(&figure, 1, MPI_DOUBLE, peer_, kTagResult, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        return figure;
    }

private:
    // Microseconds for n messages of m bytes and the acknowledgement (first side).
    double stream(std::size_t m, int n) {
        std::vector<MPI_Request> reqs(static_cast<std::size_t>(n));
        const double t0 = now_us();
        for (int i = 0; i < n; ++i) {
            if (first_) {
                MPI_Isend(buf_.data(), static_cast<int>(m), MPI_BYTE, peer_, kTagData, MPI_COMM_WORLD,
                          &reqs[static_cast<std::size_t>(i)]);
            } else {
                MPI_Irecv(buf_.data(), static_cast<int>(m), MPI_BYTE, peer_, kTagData, MPI_COMM_WORLD,
                          &reqs[static_cast<std::size_t>(i)]);
            }
        }
        MPI_Waitall(n, reqs.data(), MPI_STATUSES_IGNORE);
        if (first_) {
            MPI_Recv(buf_.data(), 0, MPI_BYTE, peer_, kTagAck, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Send(buf_.data(), 0, MPI_BYTE, peer_, kTagAck, MPI_COMM_WORLD);
        }
        return now_us() - t0;
    }

    int peer_;
    bool first_;
    std::vector<char> buf_;
};

// The link between this process and `peer`, measured together with it; the
// first side returns the figures.
Link measure(int peer, bool first, const Options& o) {
    Pair pair(peer, first, o.sizes.back());
    std::vector<Curve::Point> os, orecv, g;
    // Both sides need the round trip and the gaps (the second to know how
    // long a message takes to arrive); the first side measured them.
    const double half = pair.share(pair.half_round_trip(o.reps));
    for (std::size_t m : o.sizes) {
        const double gap = pair.share(pair.gap(m, o.reps));
        g.emplace_back(m, gap);
        os.emplace_back(m, pair.send_overhead(m, o.reps));
        // Long enough for the message to arrive whole: a round trip and its gap, twice.
        const bool eager = m <= strata::mpi::rt().engine->eager_limit_to(peer);
        orecv.emplace_back(m, eager ? pair.recv_overhead(m, o.reps, 2 * (2 * half + gap)) : 0.0);
    }
    // Above the eager limit, or(m) follows the sizes measured below it.
    const std::size_t eager = strata::mpi::rt().engine->eager_limit_to(peer);
    std::vector<Curve::Point> measured;
    for (const Curve::Point& pt : orecv) {
        if (pt.first <= eager || measured.empty()) measured.push_back(pt);
    }
    const Curve below(measured);
    for (Curve::Point& pt : orecv) pt.second = below.at(pt.first);
    Link link;
    link.latency = std::max(0.0, half - g.front().second);
    link.gap = Curve(g);
    link.send_overhead = Curve(os);
    link.recv_overhead = Curve(orecv);
    link.eager_limit = eager;
    return link;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const Options o = parse(argc, argv, rank);

    // Each site's first process, in order of first appearance.
    std::vector<std::string> sites;
    std::vector<int> first;
    for (int r = 0; r < size; ++r) {
        const std::string& s = strata::mpi::rt().world.cards[static_cast<std::size_t>(r)].site;
        if (std::find(sites.begin(), sites.end(), s) == sites.end()) {
            sites.push_back(s);
            first.push_back(r);
        }
    }
    if (sites.size() < 2) usage_error(rank, "the job has one site: there is no link between sites to measure");

    Params params;
    params.set_sizes(o.sizes);
    for (std::size_t i = 0; i < sites.size(); ++i) {
        for (std::size_t j = i + 1; j < sites.size(); ++j) {
            MPI_Barrier(MPI_COMM_WORLD);
            const int a = first[i], b = first[j];
            Link link;
            if (rank == a || rank == b) link = measure(rank == a ? b : a, rank == a, o);
            // The first side hands its figures to rank 0 as text of one link.
            if (rank == a && a != 0) {
                Params one;
                one.set_sizes(o.sizes);
                one.set(sites[i], sites[j], link);
                const std::string text = one.text();
                MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, 0, kTagResult, MPI_COMM_WORLD);
            }
            if (rank == 0) {
                if (a != 0) {
                    MPI_Status st;
                    int n = 0;
                    MPI_Probe(a, kTagResult, MPI_COMM_WORLD, &st);
                    MPI_Get_count(&st, MPI_CHAR, &n);
                    std::string text(static_cast<std::size_t>(n), '\0');
                    MPI_Recv(text.data(), n, MPI_CHAR, a, kTagResult, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    Params one;
                    std::string error;
                    if (!Params::parse(text, "rank " + std::to_string(a), one, error)) {
                        std::fprintf(stderr, "strata-plogp: %s\n", error.c_str());
                        MPI_Abort(MPI_COMM_WORLD, 1);
                    }
                    link = *one.link(sites[i], sites[j]);
                }
                params.set(sites[i], sites[j], link);
            }
        }
    }
    int rc = 0;
    if (rank == 0) {
        const std::string text = params.text();
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
