// MPI_Init / MPI_Finalize and the rest of the environment.
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "devices/methods.hpp"
#include "base/knob.hpp"
#include "wireup/settings.hpp"
#include "collectives/plogp/measure.hpp"
#include "collectives/plogp/wide_area.hpp"
#include "collectives/registry.hpp"
#include "mpi/comms/attr.hpp"
#include "mpi/coll_support.hpp"
#include "mpi/comms/comm.hpp"
#include "mpi/hetero/convert.hpp"
#include "mpi/datatypes/datatype.hpp"
#include "mpi/errhandler.hpp"
#include "mpi/errors.hpp"
#include "mpi/comms/grid.hpp"
#include "mpi/comms/group.hpp"
#include "mpi/info.hpp"
#include "mpi/comms/named.hpp"
#include "mpi/entry.hpp"
#include "mpi/request.hpp"
#include "mpi/runtime.hpp"
#include "mpi/port.hpp"
#include "mpi/setup.hpp"
#include "placement/placement.hpp"

namespace strata::mpi {

namespace detail {
Runtime* g_runtime = nullptr;
bool g_running = false;
}  // namespace detail

using detail::g_runtime;

Runtime::Runtime()
    : comms(kComm),
      datatypes(kDatatype),
      requests(kRequest),
      errhandlers(kErrhandler),
      groups(kGroup),
      keyvals(kKeyval),
      infos(kInfo),
      ops(kOp) {}
Runtime::~Runtime() = default;

base::Status representation_add(Runtime& r, const wireup::BusinessCard& card, const std::string& who) {
    const Representation& mine = Representation::native();
    base::Result<Representation> peer = Representation::from_bytes(card.entry(adi::kRepresentationEntry));
    if (!peer) return peer.failure().prefixed(who + "'s business card holds ");
    if (base::Status can = convertible(*peer, mine); !can) {
        return base::Error{unconvertible_refusal(who, *peer, mine, can.error())};
    }
    r.foreign.push_back(*peer == mine ? 0 : 1);
    if (std::find(r.forms.begin(), r.forms.end(), *peer) == r.forms.end()) r.forms.push_back(*peer);
    r.representations.push_back(*peer);
    r.heterogeneous = r.heterogeneous || *peer != mine;
    return {};
}

namespace {
// The one piece of process state outside the Runtime: where the library is
// in its life, which MPI_Initialized and MPI_Finalized answer before a
// Runtime exists (detail::g_running mirrors it for api()'s test).
State g_state = State::fresh;

void state_set(State s) {
    g_state = s;
    detail::g_running = s == State::running;
}

const base::KnobInt verbose{wireup::kVerbose.variable, 0,
                            "1: every rank prints, at MPI_Init, which communication method reaches each peer, and "
                            "rank 0 the topology table"};

// Before the runtime exists there is no error handler: report and leave.

// The message goes to stderr, which mpirun forwards; mpirun then reports the
// exit and ends the job.
[[noreturn]] void init_failed(int rank, const std::string& why) {
    std::fprintf(stderr, "strata: rank %d: MPI_Init failed: %s\n", rank, why.c_str());
    std::fflush(stderr);
    _exit(1);
}
}  // namespace

State state() { return g_state; }

}  // namespace strata::mpi

using namespace strata;
using namespace strata::mpi;

namespace {

// STRATA_PLOGP=measure: the wide-area model's parameters, measured over
// MPI_COMM_WORLD (rank 0 prints them with STRATA_VERBOSE, to keep as a file).
// A job on one machine has no link the model has.
void model_measure() {
    const coll::plogp::Layout where = coll::plogp::layout_of(rt().world);
    if (where.one_machine()) return;
    const base::Result<coll::plogp::Params> measured =
        coll::plogp::measure(group_of(*comm_get(MPI_COMM_WORLD)), where, {});
    if (!measured.ok()) init_failed(rt().world_rank, "STRATA_PLOGP=measure: " + measured.error());
    const base::Status installed = coll::plogp::WideArea::install(*measured, where.sites, where.gateways);
    if (!installed.ok()) init_failed(rt().world_rank, "STRATA_PLOGP=measure: " + installed.error());
    if (verbose.get() != 0 && rt().world_rank == 0) {
        std::fprintf(stderr, "strata: measured P-LogP parameters (STRATA_PLOGP=measure):\n%s",
                     measured->text().c_str());
    }
}

// Every process's representation from its card (representation_add): a job
// with a representation that cannot be converted is refused here, before
// any message could arrive garbled.
base::Status representations_read(Runtime& r) {
    r.representations.clear();
    r.foreign.clear();
    r.forms.clear();
    r.heterogeneous = false;
    for (std::size_t i = 0; i < r.world.cards.size(); ++i) {
        if (base::Status read = representation_add(r, r.world.cards[i], "rank " + std::to_string(i)); !read)
            return read;
    }
    r.sends_foreign = Representation::published() != Representation::native();
    return {};
}

// A binding that failed warns once; mpirun -v shows every rank's binding.
void binding_report(int rank, const placement::BindChoice& choice) {
    if (!choice.failure.empty())
        std::fprintf(stderr, "strata: rank %d: warning: %s; running unbound\n", rank, choice.failure.c_str());
    else if (verbose.get() != 0)
        std::fprintf(stderr, "strata: rank %d: %s\n", rank, choice.text.c_str());
}

// mpirun -v's trace of MPI_Init: how long each phase took, from its start.
class InitPhases {
public:
    explicit InitPhases(std::chrono::steady_clock::time_point start) : start_(start), last_(start) {}
    void end(const char* phase) {
        if (verbose.get() == 0) return;
        const auto now = std::chrono::steady_clock::now();
        text_ += std::string(text_.empty() ? "" : ", ") + phase + " " + ms(now - last_);
        last_ = now;
    }
    void report(int rank) const {
        if (verbose.get() == 0) return;
        std::fprintf(stderr, "strata: rank %d: MPI_Init phases: %s (total %s)\n", rank, text_.c_str(),
                     ms(last_ - start_).c_str());
    }

private:
    static std::string ms(std::chrono::steady_clock::duration d) {
        char text[32];
        std::snprintf(text, sizeof text, "%.1f ms", std::chrono::duration<double, std::milli>(d).count());
        return text;
    }
    std::chrono::steady_clock::time_point start_, last_;
    std::string text_;
};

// mpirun -v: this process's representation.
void representation_report(const Runtime& r) {
    std::fprintf(stderr, "strata: rank %d: representation: %s\n", r.world_rank,
                 r.representations[static_cast<std::size_t>(r.world_rank)].text().c_str());
}

// MPI_Init and MPI_Init_thread: `thread_level` is the level provided.
int init(const char* fn, int thread_level) {
    if (g_state != State::fresh) {
        fatal(fn, g_state == State::running ? "MPI is already initialized" : "MPI was already finalized");
    }
    base::Result<std::optional<wireup::Client>> contacted = wireup::Client::from_environment();
    if (!contacted) init_failed(0, contacted.error());
    std::optional<wireup::Client> client = std::move(*contacted);

    auto r = std::make_unique<Runtime>();
    r->start = std::chrono::steady_clock::now();
    InitPhases phases(r->start);
    if (client) {
        r->world_rank = client->rank();
        r->world_size = client->size();
    }
    wireup::BusinessCard card;
    card.publish(adi::kRepresentationEntry, Representation::published().bytes());
    if (base::Status placed = placement::placement_fill(card, client ? client->subjob() : 0); !placed)
        init_failed(r->world_rank, placed.error());
    adi::MethodContext ctx{r->world_rank, r->world_size, client ? client->job_key() : std::string(), card.hostname};
    auto methods = dev::methods_create(ctx);
    if (!methods) init_failed(r->world_rank, methods.error());
    r->engine = std::make_unique<adi::Engine>(std::move(*methods));
    traffic_setup(*r);
    if (base::Status published = r->engine->publish(card); !published) init_failed(r->world_rank, published.error());
    phases.end("methods");

    adi::World& world = r->world;
    world.rank = r->world_rank;
    wireup::Release release;
    std::vector<wireup::CpuPlace> places;  // by world rank, from the bindings
    // Before binding narrows the affinity to one core.
    const long cores = placement::affinity_cpus();
    if (client) {
        base::Result<wireup::Release> released = client->checkin(card);
        if (!released) init_failed(r->world_rank, released.error());
        release = std::move(*released);
        if (release.cards.size() != static_cast<std::size_t>(r->world_size)) {
            init_failed(r->world_rank, "the launcher released " + std::to_string(release.cards.size()) +
                                                   " cards for a job of " + std::to_string(r->world_size));
        }
        world.cards = std::move(release.cards);
        phases.end("check-in and barrier");
        // Bound here, the first moment the ranks of this host are known, and
        // before any method connects (placement/binding.hpp has the rule).
        base::Result<placement::BindChoice> bound = placement::placement_bind(world.cards, r->world_rank, places);
        if (!bound) init_failed(r->world_rank, bound.error());
        binding_report(r->world_rank, *bound);
    } else {
        card.processor_name = card.hostname;
        world.cards.push_back(card);
    }
    if (base::Status read = representations_read(*r); !read) init_failed(r->world_rank, read.error());
    if (base::Status named = named_setup(*r, release.comm_file, release.comm_text); !named)
        init_failed(r->world_rank, named.error());
    phases.end("binding and representations");
    world.topology = wireup::Topology::build(world.cards, dev::fast_link, places);
    phases.end("topology");
    if (base::Status connected = r->engine->connect_world(world); !connected)
        init_failed(r->world_rank, connected.error());
    phases.end("connections");
    if (base::Status rules = coll::RegistryBase::rules_configure(); !rules)
        init_failed(r->world_rank, rules.error());
    const coll::plogp::Layout layout = coll::plogp::layout_of(world);
    if (base::Status model = coll::plogp::WideArea::configure(layout.sites, layout.gateways); !model)
        init_failed(r->world_rank, model.error());
    const wireup::BusinessCard& mine = world.cards[static_cast<std::size_t>(r->world_rank)];
    const auto local = std::count_if(world.cards.begin(), world.cards.end(),
                                     [&](const wireup::BusinessCard& c) { return c.hostname == mine.hostname; });
    r->engine->set_oversubscribed(local > cores);
    phases.end("collectives");
    phases.report(r->world_rank);
    if (verbose.get() != 0) {
        std::fprintf(stderr, "strata: rank %d: methods: %s\n", r->world_rank, r->engine->routes_text().c_str());
        representation_report(*r);
        if (r->world_rank == 0) topology_report(world.topology);
    }
    r->client = std::move(client);

    r->thread_level = thread_level;
    r->main_thread = std::this_thread::get_id();
    setup_predefined(*r);
    g_runtime = r.release();
    if (coll::plogp::WideArea::measuring()) model_measure();
    state_set(State::running);
    return MPI_SUCCESS;
}

}  // namespace

extern "C" {

STRATA_PMPI_ALIAS(MPI_Init);
int PMPI_Init(int* /*argc*/, char*** /*argv*/) { return init("MPI_Init", MPI_THREAD_SINGLE); }

STRATA_PMPI_ALIAS(MPI_Init_thread);
int PMPI_Init_thread(int* /*argc*/, char*** /*argv*/, int required, int* provided) {
    // Strata is not thread-safe: it provides MPI_THREAD_FUNNELED at most, so a
    // program may run threads of its own as long as only this one calls MPI.
    const int level = required < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE : std::min(required, MPI_THREAD_FUNNELED);
    const int rc = init("MPI_Init_thread", level);
    if (provided != nullptr) *provided = level;
    return rc;
}

STRATA_PMPI_ALIAS(MPI_Finalized);
int PMPI_Finalized(int* flag) {
    // Like MPI_Initialized, callable at any time.
    if (flag == nullptr) return MPI_ERR_ARG;
    *flag = g_state == State::finalized ? 1 : 0;
    return MPI_SUCCESS;
}

STRATA_PMPI_ALIAS(MPI_Initialized);
int PMPI_Initialized(int* flag) {
    if (flag == nullptr) return MPI_ERR_ARG;
    *flag = g_state != State::fresh;
    return MPI_SUCCESS;
}

STRATA_PMPI_ALIAS(MPI_Abort);
int PMPI_Abort(MPI_Comm /*comm*/, int errorcode) {
    // MPI-1 allows aborting every process, not only the communicator's.
    std::fflush(stdout);
    std::fflush(stderr);
    if (g_state == State::running && rt().client) {
        rt().client->abort(errorcode, "");
    } else {
        std::fprintf(stderr, "strata: MPI_Abort called with error code %d\n", errorcode);
    }
    const int code = errorcode & 255;
    _exit(code != 0 ? code : 1);
}

STRATA_PMPI_ALIAS(MPI_Wtime);
double PMPI_Wtime(void) {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

STRATA_PMPI_ALIAS(MPI_Wtick);
double PMPI_Wtick(void) {
    timespec ts{};
    clock_getres(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

MPI_Status STRATA_status_ignore[1];
char STRATA_in_place[1];

// Profiling control: the library itself keeps no profile, so every level is
// accepted and changes nothing; profiling interposers intercept MPI_Pcontrol.
STRATA_PMPI_ALIAS(MPI_Pcontrol);
int PMPI_Pcontrol(const int level, ...) {
    (void)level;
    return MPI_SUCCESS;
}

STRATA_PMPI_ALIAS(MPI_Get_version);
int PMPI_Get_version(int* version, int* subversion) {
    if (version == nullptr || subversion == nullptr) return MPI_ERR_ARG;
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

}  // extern "C"

namespace strata::mpi::body {

int Query_thread(const Call&, int& provided) {
    provided = rt().thread_level;
    return MPI_SUCCESS;
}

int Is_thread_main(const Call&, int& flag) {
    flag = std::this_thread::get_id() == rt().main_thread ? 1 : 0;
    return MPI_SUCCESS;
}

int Alloc_mem(const Call& call, MPI_Aint size, MPI_Info info, void* baseptr) {
    if (size < 0) return call.raise(MPI_ERR_ARG, "size " + std::to_string(size) + " is negative");
    // No key means anything to this call (MPI-2 4.10: unknown keys are ignored).
    if (!info_lookup(info)) {
        return call.raise(MPI_ERR_INFO, "info names no info object (never created, or freed); MPI_INFO_NULL will do");
    }
    // Plain memory: no method here needs registered buffers.
    void* p = std::malloc(size > 0 ? static_cast<std::size_t>(size) : 1);
    if (p == nullptr) return call.raise(MPI_ERR_NO_MEM, "cannot allocate " + std::to_string(size) + " bytes");
    rt().allocations.insert(p);
    *static_cast<void**>(baseptr) = p;
    return MPI_SUCCESS;
}

int Free_mem(const Call& call, void* base) {
    if (rt().allocations.erase(base) == 0)
        return call.raise(MPI_ERR_ARG, "the memory was not allocated by MPI_Alloc_mem");
    std::free(base);
    return MPI_SUCCESS;
}

int Finalize(const Call&) {
    Runtime& r = rt();
    // STRATA_POLL_STATS counts what the program's communication polled,
    // before MPI_Finalize polls every method.
    const auto polls = r.engine->poll_counts();
    r.engine->finalizing();
    // Buffered sends are delivered, and nothing we owe a peer stays queued.
    r.engine->wait([&] { return r.bsend.in_use() == 0 && r.engine->sends_drained(); });
    if (r.client) {
        if (base::Status sent = r.client->send_finalize(); !sent) fatal("MPI_Finalize", sent.error());
        r.engine->watch_fd(r.client->fd());
        base::Status finalized;
        r.engine->wait([&] {
            base::Result<bool> done = r.client->poll_finalize_done();
            if (!done) finalized = done.failure();
            return !done || *done;
        });
        if (!finalized) fatal("MPI_Finalize", finalized.error());
    }
    r.engine->shutdown();
    if (adi::Engine::poll_stats_wanted()) {
        std::string text;
        for (const auto& [name, count] : polls) {
            text += (text.empty() ? "" : ", ") + name + " " + std::to_string(count);
        }
        std::fprintf(stderr, "strata: rank %d: polls: %s\n", r.world_rank, text.c_str());
        std::fprintf(stderr, "strata: rank %d: waiting: %llu yields, %llu sleeps\n", r.world_rank,
                     static_cast<unsigned long long>(r.engine->yields()),
                     static_cast<unsigned long long>(r.engine->sleeps()));
    }
    traffic_report(r);
    state_set(State::finalized);
    // The runtime stays allocated: requests the user never freed may still point into it.
    return MPI_SUCCESS;
}

int Get_processor_name(const Call&, char* name, int& resultlen) {
    const Runtime& r = rt();
    std::snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s",
                  r.world.cards[static_cast<std::size_t>(r.world_rank)].processor_name.c_str());
    resultlen = static_cast<int>(std::strlen(name));
    return MPI_SUCCESS;
}

}  // namespace strata::mpi::body

#include "init.inc"
