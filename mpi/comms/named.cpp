#include "mpi/comms/named.hpp"

#include <algorithm>

#include "base/knob.hpp"
#include "wireup/settings.hpp"
#include "mpi/comms/comm.hpp"
#include "mpi/errors.hpp"
#include "mpi/object_name.hpp"
#include "mpi/entry.hpp"
#include "mpi/runtime.hpp"

namespace strata::mpi {

namespace {

const base::KnobString comm_file_knob{
    wireup::kCommFile.variable, "",
    "the communicator file (XML or YAML) that names communicators by processor name, for MPIX_Comm_create_named "
    "and mpi_named.h; mpirun -commfile and -gencomm take precedence"};

const std::vector<commfile::Resolved>& groups_of(NamedComms& n) {
    if (!n.resolved) {
        std::vector<std::string> names;
        for (const wireup::BusinessCard& c : rt().world.cards) names.push_back(c.processor_name);
        n.resolved = commfile::resolve(n.file, names);
    }
    return *n.resolved;
}

bool inside(const commfile::Resolved& g, const std::vector<int>& parent) {
    auto in = [&](int w) { return std::find(parent.begin(), parent.end(), w) != parent.end(); };
    return std::all_of(g.group.begin(), g.group.end(), in) && std::all_of(g.second.begin(), g.second.end(), in);
}

bool member(const commfile::Resolved& g, int w) { return rank_of(g.group, w) >= 0 || rank_of(g.second, w) >= 0; }

// The definitions `color` picks among `defs` (indices into the file), every
// one of them buildable inside `parent`; or the error raised.
int definitions_pick(const char* fn, MPI_Comm handle, const Comm& parent, NamedComms& n, const std::string& name,
                     const std::vector<int>& defs, int color, std::vector<int>& out) {
    const std::vector<commfile::Resolved>& groups = groups_of(n);
    auto of = [&](int d) -> const commfile::Resolved& { return groups[static_cast<std::size_t>(d)]; };
    if (color != MPIX_NAMED_MINE) {
        const int d = defs[static_cast<std::size_t>(color)];
        if (!of(d).error.empty()) return error_raise(handle, MPI_ERR_GROUP, fn, of(d).error);
        if (!inside(of(d), parent.world)) {
            return error_raise(handle, MPI_ERR_COMM, fn,
                               n.file.at(n.file.defs[static_cast<std::size_t>(d)].line) + "'" + name +
                                   "' has processes outside the parent communicator");
        }
        out = {d};
        return MPI_SUCCESS;
    }
    for (int d : defs) {
        if (!of(d).error.empty()) return error_raise(handle, MPI_ERR_GROUP, fn, of(d).error);
        if (inside(of(d), parent.world)) out.push_back(d);
    }
    if (out.empty()) {
        return error_raise(handle, MPI_ERR_COMM, fn,
                           "none of the communicators named '" + name + "' in " + n.file.where +
                               " lies inside the parent communicator");
    }
    // Each process must know which one is its own: one pass, remembering
    // which definition took each process.
    std::vector<int> owner(rt().world.cards.size(), -1);
    for (int d : out) {
        for (const std::vector<int>* side : {&of(d).group, &of(d).second}) {
            for (int w : *side) {
                int& o = owner[static_cast<std::size_t>(w)];
                if (o < 0) {
                    o = d;
                    continue;
                }
                const auto& a = n.file.defs[static_cast<std::size_t>(o)];
                const auto& b = n.file.defs[static_cast<std::size_t>(d)];
                return error_raise(handle, MPI_ERR_GROUP, fn,
                                   n.file.at(b.line) + "processor '" +
                                       rt().world.cards[static_cast<std::size_t>(w)].processor_name +
                                       "' is in the communicators named '" + name + "' of colors " +
                                       std::to_string(a.color) + " (line " + std::to_string(a.line) + ") and " +
                                       std::to_string(b.color) + ": with MPIX_NAMED_MINE a process may be in one only");
            }
        }
    }
    return MPI_SUCCESS;
}

// MPIX_Comm_create_named's work, for the API and the transparent mode.
int named_create(const char* fn, MPI_Comm parent, const std::string& name, int color, MPI_Comm* out) {
    *out = MPI_COMM_NULL;
    Comm* p = nullptr;
    if (int e = check::intracomm(Call{fn, parent}, parent, p)) return e;
    NamedComms* n = rt().named.get();
    if (n == nullptr) {
        return error_raise(parent, MPI_ERR_ARG, fn,
                           "no communicator file: set STRATA_COMM_FILE, or run with mpirun -commfile FILE or -gencomm");
    }
    const std::vector<int>* defs = n->file.named(name);
    if (defs == nullptr) {
        return error_raise(parent, MPI_ERR_ARG, fn, "no communicator is named '" + name + "' in " + n->file.where);
    }
    const int count = static_cast<int>(defs->size());
    if (color != MPIX_NAMED_MINE && (color < 0 || color >= count)) {
        return error_raise(parent, MPI_ERR_ARG, fn,
                           "color " + std::to_string(color) + " is out of range: " + std::to_string(count) +
                               " communicator(s) are named '" + name + "' in " + n->file.where + " (colors 0 to " +
                               std::to_string(count - 1) + ", or MPIX_NAMED_MINE)");
    }
    std::vector<int> picked;
    if (int e = definitions_pick(fn, parent, *p, *n, name, *defs, color, picked)) return e;
    int pair = -1;
    if (const MpiError e = comm_pair_agree(*p, pair); !e.ok()) return error_raise(parent, e, fn);
    const int me = rt().world_rank;
    for (int d : picked) {
        const commfile::Resolved& g = (*n->resolved)[static_cast<std::size_t>(d)];
        if (!member(g, me)) continue;
        std::unique_ptr<Comm> made;
        if (!n->file.defs[static_cast<std::size_t>(d)].inter) {
            made = comm_make(*p, pair, g.group, rank_of(g.group, me));
        } else {
            const bool first = rank_of(g.group, me) >= 0;
            const std::vector<int>& local = first ? g.group : g.second;
            made = comm_make(*p, pair, first ? g.second : g.group, rank_of(local, me));
            made->inter = true;
            made->local = local;
        }
        made->name = name;
        *out = comm_register(std::move(made));
    }
    return MPI_SUCCESS;
}

// The transparent mode: what this process has of the communicators called
// `name`, built once, after the communicators they lie in, over the
// communicator of their parents' name.
int transparent_bind(const char* fn, NamedComms& n, const std::string& name, TransparentComm& out) {
    if (const auto it = n.transparent.find(name); it != n.transparent.end()) {
        out = it->second;
        if (comm_get(out.comm) == nullptr) out.comm = MPI_COMM_NULL;  // freed by the program
        if (comm_get(out.raise_on) == nullptr) out.raise_on = MPI_COMM_WORLD;
        return MPI_SUCCESS;
    }
    const std::vector<int>& defs = *n.file.named(name);
    auto parent_name = [&](int d) {
        const int p = n.file.defs[static_cast<std::size_t>(d)].parent;
        return p < 0 ? std::string() : n.file.defs[static_cast<std::size_t>(p)].name;
    };
    const std::string above = parent_name(defs.front());
    for (int d : defs) {
        if (parent_name(d) == above) continue;
        return error_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn,
                           n.file.at(n.file.defs[static_cast<std::size_t>(d)].line) + "the communicators named '" +
                               name + "' lie in communicators of different names ('" + above + "', '" + parent_name(d) +
                               "'); build them with MPIX_Comm_create_named");
    }
    MPI_Comm parent = MPI_COMM_WORLD;
    if (!above.empty()) {
        TransparentComm outer;
        if (int e = transparent_bind(fn, n, above, outer)) return e;
        parent = outer.comm;
    }
    TransparentComm made{MPI_COMM_NULL, parent != MPI_COMM_NULL ? parent : MPI_COMM_WORLD};
    if (parent != MPI_COMM_NULL) {
        if (int e = named_create(fn, parent, name, MPIX_NAMED_MINE, &made.comm)) return e;
    }
    n.transparent[name] = made;
    out = made;
    return MPI_SUCCESS;
}

// MPIX_Comm_rank_named, MPIX_Comm_size_named and MPIX_Comm_test_inter_named:
// `query` on *comm, made first if it is MPI_COMM_NULL and the file defines
// `name`. A process in no communicator of that name keeps MPI_COMM_NULL and
// gets MPI_ERR_COMM, as MPI_Comm_rank on MPI_COMM_NULL gives without the
// file, raised through the error handler of the name's parent (the idiom of
// the MetaMPICH paper: MPI_ERRORS_RETURN, then "== MPI_SUCCESS" means "I am
// in it").
template <class Query>
int named_query(const Call& call, MPI_Comm& comm, const char* name, int& result, Query query) {
    NamedComms* n = rt().named.get();
    if (comm == MPI_COMM_NULL && n != nullptr && n->file.named(name) != nullptr) {
        TransparentComm bound;
        if (int e = transparent_bind(call.fn, *n, name, bound)) return e;
        if (bound.comm == MPI_COMM_NULL) {
            return error_raise(bound.raise_on, MPI_ERR_COMM, call.fn,
                               "this process is in no communicator named '" + std::string(name) + "' in " +
                                   n->file.where + "; the variable stays MPI_COMM_NULL");
        }
        comm = bound.comm;
    }
    return query(comm, &result);
}

}  // namespace

base::Status named_setup(Runtime& r, const std::string& where, const std::string& text) {
    if (where.empty() && comm_file_knob.get().empty()) return {};
    base::Result<commfile::File> f =
        !where.empty() ? commfile::parse(text, where) : commfile::load(comm_file_knob.get());
    if (!f) return f.failure();
    r.named = std::make_shared<NamedComms>();
    r.named->file = std::move(*f);
    return {};
}

namespace body {

int MPIX_Comm_create_named(const Call& call, MPI_Comm parent, const char* name, int color, MPI_Comm& newcomm) {
    newcomm = MPI_COMM_NULL;
    if (name == nullptr) return error_raise(parent, MPI_ERR_ARG, call.fn, "name is NULL");
    return named_create(call.fn, parent, name, color, &newcomm);
}

int MPIX_Comm_named_count(const Call&, int& count) {
    const NamedComms* n = rt().named.get();
    count = n == nullptr ? 0 : static_cast<int>(n->file.names.size());
    return MPI_SUCCESS;
}

int MPIX_Comm_named_nth(const Call& call, int nth, char* name, int& colors, int& inter) {
    const NamedComms* n = rt().named.get();
    const int count = n == nullptr ? 0 : static_cast<int>(n->file.names.size());
    if (nth < 0 || nth >= count) {
        return call.raise(MPI_ERR_ARG, "n " + std::to_string(nth) + " is out of range: the communicator file defines " +
                                           std::to_string(count) + " name(s)");
    }
    const std::string& found = n->file.names[static_cast<std::size_t>(nth)];
    const std::vector<int>& defs = *n->file.named(found);
    int length = 0;
    object_name_copy(found, name, &length);
    colors = static_cast<int>(defs.size());
    inter = n->file.defs[static_cast<std::size_t>(defs.front())].inter ? 1 : 0;
    return MPI_SUCCESS;
}

int MPIX_Comm_rank_named(const Call& call, MPI_Comm& comm, const char* name, int& rank) {
    return named_query(call, comm, name, rank, PMPI_Comm_rank);
}

int MPIX_Comm_size_named(const Call& call, MPI_Comm& comm, const char* name, int& size) {
    return named_query(call, comm, name, size, PMPI_Comm_size);
}

int MPIX_Comm_test_inter_named(const Call& call, MPI_Comm& comm, const char* name, int& flag) {
    return named_query(call, comm, name, flag, PMPI_Comm_test_inter);
}

}  // namespace body
}  // namespace strata::mpi

#include "named.inc"
