#include "collectives/plogp/measure.hpp"

#include <algorithm>
#include <chrono>
#include <span>
#include <string>
#include <thread>
#include <utility>

#include "collectives/collectives.hpp"
#include "base/little_endian.hpp"
#include "wireup/routes.hpp"
#include "wireup/topology.hpp"

namespace strata::coll::plogp {

namespace {

double now_us() {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// One side of a measurement between group ranks; `first` is the side that
// times (it sends the data), the other echoes. Each call returns false when a
// message failed (error() says which).
class Pair {
public:
    Pair(const Group& g, int peer, bool first, std::size_t largest)
        : g_(g), peer_(peer), first_(first), buf_(std::max<std::size_t>(largest, 1)) {}

    adi::Error error() const { return out_.error(); }

    // Half of the fastest round trip of an empty message (first side).
    bool half_round_trip(int reps, double& best) {
        best = 1e300;
        for (int r = 0; r < reps; ++r) {
            const double t0 = now_us();
            if (!(first_ ? send(0) && recv(0) : recv(0) && send(0))) return false;
            best = std::min(best, (now_us() - t0) / 2);
        }
        return true;
    }

    // g(m): n messages back to back and one acknowledgement, then 2n (first side).
    bool gap(std::size_t m, int reps, double& g) {
        const int n = m >= 128 * 1024 ? 4 : 16;
        double once = 1e300, twice = 1e300;  // the fastest of each: a difference of minima
        for (int r = 0; r < reps; ++r) {
            double t = 0;
            if (!stream(m, n, t)) return false;
            once = std::min(once, t);
            if (!stream(m, 2 * n, t)) return false;
            twice = std::min(twice, t);
        }
        g = std::max((twice - once) / n, 0.0);
        return true;
    }

    // os(m): one send call on an idle link (first side).
    bool send_overhead(std::size_t m, int reps, double& best) {
        best = 1e300;
        for (int r = 0; r < reps; ++r) {
            if (first_) {
                const double t0 = now_us();
                adi::Request* req = send_start(g_, peer_, kTagMeasure, buf_.data(), m);
                best = std::min(best, now_us() - t0);
                if (!out_.add(wait_all(g_, std::span<adi::Request* const>(&req, 1))) || !recv(0)) return false;
            } else if (!recv(m) || !send(0)) {
                return false;
            }
        }
        return true;
    }

    // or(m): the second side receives m bytes that had `settle` microseconds
    // to arrive and times the receive (second side).
    bool recv_overhead(std::size_t m, int reps, double settle, double& best) {
        best = 1e300;
        for (int r = 0; r < reps; ++r) {
            if (first_) {
                if (!send(m) || !recv(0)) return false;
            } else {
                std::this_thread::sleep_for(std::chrono::duration<double, std::micro>(settle));
                const double t0 = now_us();
                if (!recv(m)) return false;
                best = std::min(best, now_us() - t0);
                if (!send(0)) return false;
            }
        }
        return true;
    }

    // The figure one side measured, on both sides: the first side's unless
    // `from_first` is false.
    bool share(double& figure, bool from_first = true) {
        base::U64 b = base::real(figure);
        if (first_ == from_first) return out_.add(blocking(send_start(g_, peer_, kTagMeasure, b.data(), b.size())));
        if (!out_.add(blocking(recv_start(g_, peer_, kTagMeasure, b.data(), b.size())))) return false;
        figure = base::real_of(b);
        return true;
    }

private:
    adi::Error blocking(adi::Request* r) { return wait_all(g_, std::span<adi::Request* const>(&r, 1)); }
    bool send(std::size_t m) { return out_.add(blocking(send_start(g_, peer_, kTagMeasure, buf_.data(), m))); }
    bool recv(std::size_t m) { return out_.add(blocking(recv_start(g_, peer_, kTagMeasure, buf_.data(), m))); }

    // Microseconds for n messages of m bytes and the acknowledgement (first side).
    bool stream(std::size_t m, int n, double& t) {
        std::vector<adi::Request*> reqs;
        const double t0 = now_us();
        for (int i = 0; i < n; ++i) {
            reqs.push_back(first_ ? send_start(g_, peer_, kTagMeasure, buf_.data(), m)
                                  : recv_start(g_, peer_, kTagMeasure, buf_.data(), m));
        }
        if (!out_.wait(g_, reqs) || !(first_ ? recv(0) : send(0))) return false;
        t = now_us() - t0;
        return true;
    }

    const Group& g_;
    int peer_;
    bool first_;
    Bytes buf_;
    Outcome out_;
};

// What a failed measurement message means to the user.
base::Error failure_of(adi::Error e) {
    return base::Error{e == adi::Error::peer_failed ? "a process failed during the measurement"
                                                    : "a measurement message was truncated"};
}

// The link between this process and `peer` (group ranks), measured together
// with it; both sides return the figures. A failed message is also left in
// `failure`.
base::Result<Link> measure_link(const Group& g, int peer, bool first, const MeasureOptions& o, adi::Error& failure) {
    Pair pair(g, peer, first, o.sizes.back());
    const std::size_t eager = g.engine.eager_limit_to(g.world[static_cast<std::size_t>(peer)]);
    std::vector<Curve::Point> os, orecv, gaps;
    // Both sides need the round trip and the gaps (the second to know how
    // long a message takes to arrive); the first side measured them.
    double half = 0;
    bool ok = pair.half_round_trip(o.reps, half) && pair.share(half);
    for (std::size_t i = 0; ok && i < o.sizes.size(); ++i) {
        const std::size_t m = o.sizes[i];
        double gap = 0, send = 0, recv = 0;
        ok = pair.gap(m, o.reps, gap) && pair.share(gap) && pair.send_overhead(m, o.reps, send) && pair.share(send);
        // Long enough for the message to arrive whole: a round trip and its gap, twice.
        if (ok && m <= eager) ok = pair.recv_overhead(m, o.reps, 2 * (2 * half + gap), recv) && pair.share(recv, false);
        gaps.emplace_back(m, gap);
        os.emplace_back(m, send);
        orecv.emplace_back(m, recv);
    }
    if (!ok) {
        failure = pair.error();
        return failure_of(failure);
    }
    // Above the eager limit, or(m) follows the sizes measured below it.
    std::vector<Curve::Point> measured;
    for (const Curve::Point& pt : orecv) {
        if (pt.first <= eager || measured.empty()) measured.push_back(pt);
    }
    base::Result<Curve> below = Curve::make(measured);
    if (!below.ok()) return std::move(below).failure().prefixed("the measured or(m): ");
    for (Curve::Point& pt : orecv) pt.second = below->at(pt.first);
    Link link;
    link.latency = std::max(0.0, half - gaps.front().second);
    link.eager_limit = eager;
    const std::pair<Curve*, std::vector<Curve::Point>*> curves[] = {
        {&link.gap, &gaps}, {&link.send_overhead, &os}, {&link.recv_overhead, &orecv}};
    const char* const names[] = {"the measured g(m): ", "the measured os(m): ", "the measured or(m): "};
    for (std::size_t i = 0; i < 3; ++i) {
        base::Result<Curve> c = Curve::make(std::move(*curves[i].second));
        if (!c.ok()) return std::move(c).failure().prefixed(names[i]);
        *curves[i].first = std::move(*c);
    }
    return link;
}

// A pair of group ranks to measure, and the sites its link joins.
struct Job {
    int a, b;
    std::string site_a, site_b;
};

// Every two sites' first processes, then inside every site of several
// processes its first and its first on another machine (else its second).
std::vector<Job> pairs_of(const std::vector<std::string>& sites, const std::vector<int>& hosts) {
    std::vector<std::string> names;
    std::vector<int> first, inside;
    for (std::size_t r = 0; r < sites.size(); ++r) {
        const auto at = std::find(names.begin(), names.end(), sites[r]);
        if (at == names.end()) {
            names.push_back(sites[r]);
            first.push_back(static_cast<int>(r));
            inside.push_back(-1);
            continue;
        }
        const auto s = static_cast<std::size_t>(at - names.begin());
        const auto f = static_cast<std::size_t>(first[s]);
        const bool elsewhere = hosts[r] != hosts[f];
        if (inside[s] < 0 || (elsewhere && hosts[static_cast<std::size_t>(inside[s])] == hosts[f])) {
            inside[s] = static_cast<int>(r);
        }
    }
    std::vector<Job> jobs;
    for (std::size_t i = 0; i < names.size(); ++i) {
        for (std::size_t j = i + 1; j < names.size(); ++j) jobs.push_back({first[i], first[j], names[i], names[j]});
    }
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (inside[i] >= 0) jobs.push_back({first[i], inside[i], names[i], names[i]});
    }
    return jobs;
}

// Sends `text` to group rank `to`: its length, then the text.
adi::Error text_send(const Group& g, int to, const std::string& text) {
    const base::U64 n = base::u64(text.size());
    adi::Request* reqs[] = {send_start(g, to, kTagMeasure, n.data(), n.size()),
                            send_start(g, to, kTagMeasure, text.data(), text.size())};
    return wait_all(g, reqs);
}

// Receives what text_send sent from group rank `from` into `text`.
adi::Error text_receive(const Group& g, int from, std::string& text) {
    base::U64 n{};
    adi::Request* size = recv_start(g, from, kTagMeasure, n.data(), n.size());
    adi::Error failure = wait_all(g, std::span<adi::Request* const>(&size, 1));
    text.assign(base::u64_of(n), '\0');
    adi::Request* body = recv_start(g, from, kTagMeasure, text.data(), text.size());
    if (failure == adi::Error::none) failure = wait_all(g, std::span<adi::Request* const>(&body, 1));
    return failure;
}

}  // namespace

bool Layout::one_machine() const {
    const bool one_place = std::all_of(sites.begin(), sites.end(), [&](const std::string& s) { return s == sites.front(); });
    return one_place && std::all_of(machines.begin(), machines.end(), [&](int m) { return m == machines.front(); });
}

Layout layout_of(const adi::World& world) {
    Layout out;
    for (int r = 0; r < world.topology.size(); ++r) {
        out.sites.push_back(world.cards[static_cast<std::size_t>(r)].site);
        out.machines.push_back(world.topology.color(r, wireup::kSystem));
        out.gateways.push_back(wireup::is_private(world.cards[static_cast<std::size_t>(r)]));
    }
    return out;
}

namespace {

// A site label is one word of the parameter text (and the same on every
// process, so every process refuses it alike).
base::Status labels_check(const Layout& where) {
    for (const std::string& site : where.sites) {
        if (site.empty() || site.find_first_of(" \t\r\n#") != std::string::npos) {
            return base::Error{"the site label '" + site +
                               "' cannot be written in a parameter file: it must be one word without '#'"};
        }
    }
    return {};
}

// One process's part in measuring one link. A failed message ends this
// process's part (the job is failing) and stays in `failure`; any other
// failure is kept in `local` (the first only) while the process goes on, so
// that no process returns while others wait for it.
class Part {
public:
    Part(const Group& g, const MeasureOptions& o) : g_(g), o_(o) { mine_.set_sizes(o.sizes); }

    void link(const Job& job) {
        if (failure_ == adi::Error::none) failure_ = barrier(g_);
        Link link;
        if (failure_ == adi::Error::none && (g_.rank == job.a || g_.rank == job.b)) {
            base::Result<Link> measured = measure_link(g_, g_.rank == job.a ? job.b : job.a, g_.rank == job.a, o_, failure_);
            if (measured.ok()) {
                link = std::move(*measured);
            } else {
                keep(measured.error());
            }
        }
        // The first side hands its figures to rank 0 as the text of one link.
        if (failure_ == adi::Error::none && g_.rank == job.a && job.a != 0) {
            Params one;
            one.set_sizes(o_.sizes);
            one.set(job.site_a, job.site_b, link);
            failure_ = text_send(g_, 0, one.text());
        }
        if (failure_ == adi::Error::none && g_.rank == 0 && job.a != 0) link = received(job);
        if (g_.rank == 0) mine_.set(job.site_a, job.site_b, link);
    }

    // Rank 0 learns every process's failure, if any; then every process
    // reads rank 0's text: the parameters, or "!" and the first failure.
    base::Result<Params> finish() {
        if (g_.rank == 0) {
            std::string first = local_.empty() ? std::string() : "rank 0: " + local_;
            for (int r = 1; r < g_.size() && failure_ == adi::Error::none; ++r) {
                std::string theirs;
                failure_ = text_receive(g_, r, theirs);
                if (first.empty() && !theirs.empty()) first = "rank " + std::to_string(r) + ": " + theirs;
            }
            local_ = first;
        } else if (failure_ == adi::Error::none) {
            failure_ = text_send(g_, 0, local_);
        }
        std::string text = g_.rank != 0 ? std::string() : local_.empty() ? mine_.text() : "!" + local_;
        base::U64 n = base::u64(text.size());
        if (failure_ == adi::Error::none) failure_ = bcast(g_, n.data(), n.size(), 0);
        text.resize(base::u64_of(n));
        if (failure_ == adi::Error::none) failure_ = bcast(g_, text.data(), text.size(), 0);
        if (failure_ != adi::Error::none) return failure_of(failure_);
        if (text.starts_with('!')) return base::Error{text.substr(1)};
        return Params::parse(text, "the measured parameters");
    }

private:
    void keep(std::string what) {
        if (local_.empty()) local_ = std::move(what);
    }

    // At rank 0: the link the first side of `job` measured.
    Link received(const Job& job) {
        std::string text;
        failure_ = text_receive(g_, job.a, text);
        if (failure_ != adi::Error::none) return {};
        base::Result<Params> one = Params::parse(text, "rank " + std::to_string(job.a));
        const Link* got = one.ok() ? one->link(job.site_a, job.site_b) : nullptr;
        if (got != nullptr) return *got;
        keep(one.ok() ? "rank " + std::to_string(job.a) + " sent no link " + job.site_a + " " + job.site_b
                      : one.error());
        return {};
    }

    const Group& g_;
    const MeasureOptions& o_;
    Params mine_;  // rank 0's
    adi::Error failure_ = adi::Error::none;
    std::string local_;
};

}  // namespace

base::Result<Params> measure(const Group& g, const Layout& where, const MeasureOptions& o) {
    if (base::Status s = labels_check(where); !s) return s.failure();
    const std::vector<Job> jobs = pairs_of(where.sites, where.machines);
    if (jobs.empty()) return base::Error{"one process at one site: there is no link to measure"};
    Part part(g, o);
    for (const Job& job : jobs) part.link(job);
    return part.finish();
}

}  // namespace strata::coll::plogp
