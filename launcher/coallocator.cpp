#include "launcher/coallocator.hpp"

#include "adapters/fork_adapter.hpp"
#include "base/knob.hpp"
#include "commfile/comm_file.hpp"
#include "launcher/messages.hpp"
#include "security/job_key.hpp"
#include "wireup/shared_links.hpp"
#include "wireup/environment.hpp"
#include "wireup/routes.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

namespace strata::launcher {

namespace {

const base::KnobInt kKillGraceMs("STRATA_KILL_GRACE_MS", 2000,
                                 "when mpirun ends a job: how long processes get between SIGTERM and SIGKILL (also how "
                                 "long a process that dropped its mpirun connection has to exit)");

const base::KnobInt kStartupTimeoutS("STRATA_STARTUP_TIMEOUT_S", 300,
                                     "how long a subjob's processes may take, from their start, until all have "
                                     "called MPI_Init (mpirun -startup-timeout overrides)");

namespace asio = boost::asio;
using ConnectionId = ControlServer::ConnectionId;

const char* type_name(wireup::Type t) {
    switch (t) {
        case wireup::Type::checkin: return "Checkin";
        case wireup::Type::release: return "Release";
        case wireup::Type::abort: return "Abort";
        case wireup::Type::finalize: return "Finalize";
        case wireup::Type::finalize_done: return "FinalizeDone";
        case wireup::Type::hello: return "Hello";
        case wireup::Type::challenge: return "Challenge";
        case wireup::Type::names: return "Names";
        case wireup::Type::names_reply: return "NamesReply";
    }
    return "unknown";
}

// Signals a user sends to end the job. One that mpirun inherited as ignored
// (nohup, a background job of a non-interactive shell) stays ignored.
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

}  // namespace

CoAllocator::CoAllocator(asio::io_context& io, const Options& options, const job::JobPlan& plan, CommFileText comm)
    : io_(io),
      options_(options),
      plan_(plan),
      comm_(std::move(comm)),
      server_(io, *this),
      output_(options.label, OutputForwarder::fd_sink()),
      signals_(io),
      kill_timer_(io),
      ranks_(static_cast<std::size_t>(plan.size)),
      startup_timers_(plan.subjobs.size()) {}

CoAllocator::~CoAllocator() = default;

void CoAllocator::say(const std::string& message) const {
    const std::string line = "mpirun: " + message + "\n";
    OutputForwarder::fd_sink()(adapters::Stream::err, line);
}

namespace {

// When mpirun began (its static initialisation), for -v's startup trace.
const std::chrono::steady_clock::time_point kBegan = std::chrono::steady_clock::now();

// "+12.3 ms": the time since mpirun began.
std::string since_began() {
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - kBegan).count();
    char text[32];
    std::snprintf(text, sizeof text, "+%.1f ms", ms);
    return text;
}

}  // namespace

void CoAllocator::narrate(const std::string& message) const {
    if (options_.verbose) say(message);
}

std::vector<std::pair<std::string, std::string>> CoAllocator::environment() const {
    std::vector<std::pair<std::string, std::string>> env;
    for (const auto& [name, value] : options_.exports) {
        if (value) {
            env.emplace_back(name, *value);
        } else if (const char* mine = std::getenv(name.c_str())) {
            env.emplace_back(name, mine);
        }
    }
    for (const auto& [setting, value] : options_.settings) env.emplace_back(setting->variable, value);
    // Last, so -x cannot override the wire-up contract.
    env.emplace_back(wireup::env::kWireup, "127.0.0.1:" + std::to_string(server_.port()));
    env.emplace_back(wireup::env::kSize, std::to_string(plan_.size));
    env.emplace_back(wireup::env::kJobKey, job_key_);
    return env;
}

int CoAllocator::run() {
    base::Result<std::string> key = security::job_key_create();
    if (!key) {
        say(key.error());
        return 1;
    }
    job_key_ = std::move(*key);
    // Emulated links are shared by the job's processes: their table lives
    // as long as the job, its name until every process has attached.
    if (plan_emulated(plan_, options_)) {
        base::Result<std::unique_ptr<wireup::SharedLinks>> made = wireup::SharedLinks::create(job_key_);
        if (!made) {
            say(made.error());
            return 1;
        }
        links_ = std::move(*made);
    }
    bool remote = false;
    for (const job::Subjob& s : plan_.subjobs) remote = remote || s.contact != job::kLocalContact;
    if (base::Status listening = server_.listen(remote); !listening) {
        say(listening.error());
        return 1;
    }
    if (base::Status hub = hub_start(remote); !hub) {
        say(hub.error());
        return 1;
    }
    for (int sig : kStopSignals) {
        struct sigaction old;
        if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        boost::system::error_code ec;
        signals_.add(sig, ec);
    }
    watch_signals();

    for (const job::Subjob& s : plan_.subjobs) {
        base::Result<std::unique_ptr<adapters::SchedulerAdapter>> adapter = adapter_make(s);
        if (!adapter) {
            say(adapter.error());
            return 1;
        }
        adapters_.push_back(std::move(*adapter));
    }
    narrate("control listener on " + std::string(remote ? "every interface" : "127.0.0.1") + ", port " +
            std::to_string(server_.port()) + "; " + std::to_string(plan_.size) +
            " processes in " + std::to_string(plan_.subjobs.size()) + " subjob(s)");

    const auto env = environment();
    for (std::size_t i = 0; i < plan_.subjobs.size() && !ending_; ++i) {
        const job::Subjob& s = plan_.subjobs[i];
        adapters::LaunchSpec spec;
        spec.command = s.command;
        spec.batch = s.batch;
        if (hub_) spec.relay_hub_port = static_cast<std::uint16_t>(hub_->port());
        if (s.command.program.empty()) {
            spec.command.program = options_.program;
            spec.command.args = options_.args;
        }
        // The job file's variables first, so they cannot override the wire-up contract either.
        spec.command.env.insert(spec.command.env.end(), env.begin(), env.end());
        if (s.first_rank == 0 && s.command.stdin_file.empty()) spec.stdin_fd = ::fcntl(0, F_DUPFD_CLOEXEC, 3);
        narrate("starting subjob " + std::to_string(s.index) + ": ranks " + std::to_string(s.first_rank) + ".." +
                std::to_string(s.first_rank + s.count - 1) + " on " + s.machine + " via the " + adapters_[i]->name() +
                " adapter");
        adapters_[i]->start(s, std::move(spec), *this);
    }
    check_done();
    if (!finished_) io_.run();
    // Now, while mpirun -v can still say them: the sites' last log lines
    // (an ssh or srun channel reads the rest of its stderr as it goes).
    adapters_.clear();
    hub_.reset();
    links_.reset();
    output_.close_all();
    return exit_code_;
}

base::Status CoAllocator::hub_start(bool all_interfaces) {
    std::vector<std::string> sites;
    for (const job::Subjob& s : plan_.subjobs)
        if (s.network_private && std::find(sites.begin(), sites.end(), s.site) == sites.end()) sites.push_back(s.site);
    if (sites.size() < 2) return {};
    auto log = [this](const std::string& line) { narrate("relay hub: " + line); };
    base::Result<std::unique_ptr<RelayHub>> hub = RelayHub::start(job_key_, all_interfaces, std::move(log));
    if (!hub) return hub.failure();
    hub_ = std::move(*hub);
    narrate("relay hub on port " + std::to_string(hub_->port()) + ", for links between the " +
            std::to_string(sites.size()) + " private sites' relays that cannot reach each other");
    return {};
}

base::Result<std::unique_ptr<adapters::SchedulerAdapter>> CoAllocator::adapter_make(const job::Subjob& subjob) {
    if (subjob.contact == job::kLocalContact) return std::unique_ptr<adapters::SchedulerAdapter>(std::make_unique<adapters::ForkAdapter>(io_));
    base::Result<job::Contact> contact = job::contact_parse(subjob.contact);
    if (!contact) {
        std::string prefix = "subjob ";
        prefix += std::to_string(subjob.index);
        prefix += ": ";
        return std::move(contact).failure().prefixed(prefix);
    }
    if (contact->transport != job::Transport::gatekeeper) {
        auto log = [this, where = subjob.machine](const std::string& line) { narrate(where + ": " + line); };
        return std::unique_ptr<adapters::SchedulerAdapter>(std::make_unique<GatekeeperAdapter>(io_, *contact, log));
    }
    base::Result<std::shared_ptr<boost::asio::ssl::context>> tls = gatekeeper_tls_.context(subjob);
    if (!tls) return tls.failure();
    return std::unique_ptr<adapters::SchedulerAdapter>(std::make_unique<GatekeeperAdapter>(io_, *contact, std::move(*tls)));
}

void CoAllocator::watch_signals() {
    signals_.async_wait([this](const boost::system::error_code& ec, int sig) {
        if (ec == asio::error::operation_aborted) return;
        if (ec) return;
        if (ending_) {
            // A second Ctrl-C: the user does not want to wait for the grace period.
            narrate("signal " + std::to_string(sig) + " while ending the job; killing everything now");
            kill_all();
        } else {
            end_job(128 + sig, messages::interrupted(sig));
        }
        if (!finished_) watch_signals();
    });
}

void CoAllocator::on_started(int rank, long pid) {
    ranks_[static_cast<std::size_t>(rank)].pid = pid;
    if (options_.verbose) last_started_at_ = since_began();
    narrate("rank " + std::to_string(rank) + " started (pid " + std::to_string(pid) + ", " + last_started_at_ + ")");
}

void CoAllocator::on_subjob_state(int subjob, adapters::JobState state, const std::string& detail) {
    const job::Subjob& s = plan_.subjobs[static_cast<std::size_t>(subjob)];
    narrate("subjob " + std::to_string(subjob) + " (" + s.contact + "): " + adapters::job_state_name(state) +
            (detail.empty() ? "" : ": " + detail));
    if (state == adapters::JobState::active) watch_startup(s);
    if (state == adapters::JobState::failed) {
        // A relay's report names other relays by endpoint: say their sites.
        std::vector<wireup::BusinessCard> cards;
        for (const RankState& r : ranks_) cards.push_back(r.card);
        end_job(1, messages::subjob_failed(s.index, s.site, s.contact, wireup::relays_named(detail, cards)));
    }
    check_done();
}

void CoAllocator::watch_startup(const job::Subjob& subjob) {
    const int seconds = options_.startup_timeout_s > 0 ? options_.startup_timeout_s : kStartupTimeoutS.get();
    if (seconds <= 0) return;
    auto& timer = startup_timers_[static_cast<std::size_t>(subjob.index)];
    timer = std::make_unique<asio::steady_timer>(io_, std::chrono::seconds(seconds));
    const int index = subjob.index;
    timer->async_wait([this, index, seconds](const boost::system::error_code& ec) {
        // Before anyone checked in, the program may not use MPI at all.
        if (ec == asio::error::operation_aborted || ending_ || released_ || checked_in_ == 0) return;
        const job::Subjob& s = plan_.subjobs[static_cast<std::size_t>(index)];
        std::vector<int> missing;
        for (int r = s.first_rank; r < s.first_rank + s.count; ++r)
            if (!ranks_[static_cast<std::size_t>(r)].checked_in) missing.push_back(r);
        if (missing.empty()) return;
        end_job(1, messages::subjob_failed(s.index, s.site, s.contact,
                                           messages::startup_timeout(missing, s.count, seconds)));
    });
}

void CoAllocator::on_start_failed(int rank, const std::string& reason) {
    std::string program = options_.program;
    std::string contact = job::kLocalContact;
    for (const job::Subjob& s : plan_.subjobs) {
        if (rank < s.first_rank || rank >= s.first_rank + s.count) continue;
        if (!s.command.program.empty()) program = s.command.program;
        contact = s.contact;
    }
    end_job(127, messages::start_failed(program, rank, contact, reason));
}

void CoAllocator::on_output(int rank, adapters::Stream stream, std::string_view bytes) {
    if (stream == adapters::Stream::out && stdout_gone_) return;
    if (output_.write(rank, stream, bytes) || stream != adapters::Stream::out) return;
    // Like any program writing into a closed pipe (`mpirun ... | head`): stop.
    stdout_gone_ = true;
    narrate("standard output is closed; ending the job");
    end_job(128 + SIGPIPE, "");
}

void CoAllocator::on_output_closed(int rank, adapters::Stream stream) {
    if (!(stream == adapters::Stream::out && stdout_gone_)) output_.close(rank, stream);
    check_done();
}

void CoAllocator::on_exited(int rank, long pid, adapters::ProcessExit how) {
    RankState& r = ranks_[static_cast<std::size_t>(rank)];
    // Whatever the process sent before it died (its Checkin, Finalize or
    // Abort) must count before its exit is judged.
    if (r.conn)
        server_.drain(*r.conn);
    else
        server_.drain_all();
    r.exited = true;
    r.lost_timer.reset();
    narrate("rank " + std::to_string(rank) + " (pid " + std::to_string(pid) + ") " + how.describe());

    if (!ending_) {
        if (r.finalized) {
            if (!how.success()) {
                say(messages::exit_after_finalize(rank, pid, how));
                if (exit_code_ == 0) exit_code_ = how.job_exit_code();
            }
        } else if (r.checked_in) {
            end_job(how.success() ? 1 : how.job_exit_code(),
                    messages::process_failed(rank, pid, how, messages::Phase::checked_in));
        } else if (!how.success()) {
            end_job(how.job_exit_code(), messages::process_failed(rank, pid, how, messages::Phase::never_checked_in));
        } else if (checked_in_ > 0) {
            end_job(1, messages::exit_without_init(rank, pid));
        } else if (!exited_without_init_) {
            // Fine for a program that does not use MPI; fatal if others turn
            // out to use MPI (handle_checkin looks at this).
            exited_without_init_ = rank;
        }
    }
    check_done();
}

void CoAllocator::on_frame(ConnectionId id, const wireup::Frame& frame) {
    if (ending_) {
        // Acknowledge a late Abort so its sender stops waiting; ignore the rest.
        if (frame.type == wireup::Type::abort) server_.close(id);
        return;
    }
    auto it = conn_rank_.find(id);
    if (it == conn_rank_.end()) {
        if (frame.type == wireup::Type::hello)
            handle_hello(id, frame);
        else if (frame.type == wireup::Type::checkin)
            handle_checkin(id, frame);
        else if (frame.type == wireup::Type::names)
            handle_names(id, frame);
        else
            drop(id, std::string("a ") + type_name(frame.type) + " message before Checkin");
        return;
    }
    const int rank = it->second;
    switch (frame.type) {
        case wireup::Type::abort: handle_abort(rank, id, frame); break;
        case wireup::Type::finalize: handle_finalize(rank, id, frame); break;
        default:
            drop(id,
                 std::string("an unexpected ") + type_name(frame.type) + " message from rank " + std::to_string(rank));
    }
}

void CoAllocator::handle_hello(ConnectionId id, const wireup::Frame& frame) {
    const base::Result<wireup::Hello> m = base::wire::decode<wireup::Hello>(frame.payload);
    if (!m) {
        drop(id, "a malformed Hello (" + m.error() + ")");
        return;
    }
    if (challenged_.count(id) != 0) {
        drop(id, "a second Hello");
        return;
    }
    Challenged c{m->nonce, {}};
    wireup::Challenge answer;
    if (!security::nonce_fill(c.mpirun_nonce)) {
        drop(id, "a Hello that cannot be answered (the OpenSSL random generator is not seeded)");
        return;
    }
    answer.nonce = c.mpirun_nonce;
    answer.proof =
        security::proof_make(job_key_, security::ProofRole::control_mpirun, c.rank_nonce, c.mpirun_nonce, 0, 0);
    challenged_[id] = c;
    server_.send(id, std::make_shared<const std::vector<std::uint8_t>>(wireup::encode(answer)));
}

void CoAllocator::handle_names(ConnectionId id, const wireup::Frame& frame) {
    const base::Result<wireup::Names> m = base::wire::decode<wireup::Names>(frame.payload);
    const auto challenged = challenged_.find(id);
    if (!m || challenged == challenged_.end()) {
        drop(id, m ? "a name service request before any Challenge"
                   : "a malformed name service request (" + m.error() + ")");
        return;
    }
    const Challenged c = challenged->second;
    challenged_.erase(challenged);
    const auto expected = security::proof_make(job_key_, security::ProofRole::control_names, c.rank_nonce,
                                               c.mpirun_nonce, m->rank, m->pid);
    if (!security::proof_equal(expected, m->proof) || m->rank >= static_cast<std::uint32_t>(plan_.size)) {
        drop(id, "a name service request (claiming rank " + std::to_string(m->rank) +
                     ") that fails the job-key challenge");
        return;
    }
    const wireup::NamesReply r = names_.handle(*m);
    server_.send(id, std::make_shared<const std::vector<std::uint8_t>>(wireup::encode(r)));
}

void CoAllocator::handle_checkin(ConnectionId id, const wireup::Frame& frame) {
    base::Result<wireup::Checkin> m = base::wire::decode<wireup::Checkin>(frame.payload);
    if (!m) {
        drop(id, "a malformed Checkin (" + m.error() + ")");
        return;
    }
    const auto challenged = challenged_.find(id);
    if (challenged == challenged_.end()) {
        drop(id, "a Checkin (claiming rank " + std::to_string(m->rank) + ", pid " + std::to_string(m->pid) +
                     ") before any Challenge");
        return;
    }
    const Challenged c = challenged->second;
    challenged_.erase(challenged);
    const auto expected = security::proof_make(job_key_, security::ProofRole::control_rank, c.rank_nonce,
                                               c.mpirun_nonce, m->rank, m->pid);
    if (!security::proof_equal(expected, m->proof)) {
        drop(id, "a Checkin (claiming rank " + std::to_string(m->rank) + ", pid " + std::to_string(m->pid) +
                     ") that fails the job-key challenge");
        return;
    }
    if (m->rank >= static_cast<std::uint32_t>(plan_.size)) {
        drop(id, "a Checkin for rank " + std::to_string(m->rank) + " in a job of " + std::to_string(plan_.size) +
                     " processes");
        return;
    }
    const int rank = static_cast<int>(m->rank);
    RankState& r = ranks_[m->rank];
    if (r.checked_in) {
        drop(id, "a second Checkin for rank " + std::to_string(rank) + " (pid " + std::to_string(m->pid) + ")");
        return;
    }
    if (r.exited) {
        drop(id, "a Checkin for rank " + std::to_string(rank) + " (pid " + std::to_string(m->pid) +
                     "), whose process has already exited");
        return;
    }
    r.checked_in = true;
    r.conn = id;
    r.card = std::move(m->card);
    // What the job description says of where the process is, which every
    // process receives with the Release; mpirun's word counts over a process's.
    for (const job::Subjob& s : plan_.subjobs) {
        if (rank < s.first_rank || rank >= s.first_rank + s.count) continue;
        r.card.site = s.site;
        r.card.subjob = static_cast<std::uint32_t>(s.index);
        r.card.machine = s.machine_label;
        r.card.processor_name = s.processor_name.empty() ? r.card.hostname : s.processor_name;
        // An emulated host refines the real one: processes of two identities
        // never share memory, and one identity on two real hosts stays two.
        if (s.host.empty()) continue;
        r.card.host += '#';
        r.card.host += s.host;
        if (s.host_nodes > 1) {
            r.card.host += '/';
            r.card.host += std::to_string(s.host_node(rank - s.first_rank) + 1);
        }
    }
    conn_rank_[id] = rank;
    ++checked_in_;
    if (options_.verbose) {
        const std::string at = since_began();
        if (checked_in_ == 1) first_checkin_at_ = at;
        narrate("rank " + std::to_string(rank) + " checked in (" + std::to_string(checked_in_) + "/" +
                std::to_string(plan_.size) + ", " + at + ")");
    }
    if (exited_without_init_) {
        const int early = *exited_without_init_;
        end_job(1, messages::exit_without_init(early, ranks_[static_cast<std::size_t>(early)].pid));
        return;
    }
    if (checked_in_ == plan_.size) release_barrier();
}

void CoAllocator::release_barrier() {
    // Every process attached to the emulated links' table before it checked in.
    if (links_) links_->unlink_name();
    wireup::Release release;
    release.cards.reserve(ranks_.size());
    for (const RankState& r : ranks_) release.cards.push_back(r.card);
    if (options_.gencomm) {
        // A machine is its label, else the subjob's emulated host, else the real host.
        std::vector<commfile::Place> places;
        for (const wireup::BusinessCard& c : release.cards) {
            const job::Subjob& s = plan_.subjobs[c.subjob];
            const std::string& machine = !c.machine.empty() ? c.machine : !s.host.empty() ? s.host : c.hostname;
            places.push_back({c.site, machine, c.processor_name});
        }
        const base::Result<std::string> text = commfile::generate(places);
        if (!text) {
            end_job(1, messages::gencomm_failed(text.error()));
            return;
        }
        comm_ = {"mpirun -gencomm", *text};
        narrate("the communicator file written for -gencomm:\n" + *text);
    }
    release.comm_file = comm_.where;
    release.comm_text = comm_.text;
    // The routes every process computes alike from these cards.
    if (options_.verbose) {
        const std::string routes = wireup::routes_text(release.cards);
        std::size_t at = 0;
        while (at < routes.size()) {
            const std::size_t end = std::min(routes.find('\n', at), routes.size());
            say(routes.substr(at, end - at));
            at = end + 1;
        }
    }
    auto frame = std::make_shared<const std::vector<std::uint8_t>>(wireup::encode(release));
    for (const RankState& r : ranks_)
        if (r.conn) server_.send(*r.conn, frame);
    released_ = true;
    if (options_.verbose) {
        // The phases of the start mpirun sees; each rank's own (MPI_Init's
        // after the barrier: topology, connections) follow from the ranks.
        narrate("every rank checked in; startup barrier released (" + since_began() + ")");
        // A gatekeeper reports a start after the fact, sometimes after the
        // rank has checked in.
        const std::string spawn = last_started_at_.empty() ? std::string("not yet reported (spawn)")
                                                            : "at " + last_started_at_ + " (spawn)";
        narrate("startup: the last start reported " + spawn + ", the first check-in at " +
                first_checkin_at_ + ", the last at " + since_began() + " (check-in)");
    }
}

void CoAllocator::handle_abort(int rank, ConnectionId id, const wireup::Frame& frame) {
    const base::Result<wireup::Abort> m = base::wire::decode<wireup::Abort>(frame.payload);
    if (!m) {
        drop(id, "a malformed Abort from rank " + std::to_string(rank) + " (" + m.error() + ")");
        return;
    }
    // Exit codes are 8 bits; an abort must never look like success.
    int code = m->code & 255;
    if (code == 0) code = 1;
    // Closing tells the aborting process we took note (Client::abort waits for it).
    server_.close(id);
    ranks_[static_cast<std::size_t>(rank)].conn.reset();
    conn_rank_.erase(id);
    end_job(code, messages::aborted(rank, m->code, m->message));
}

void CoAllocator::handle_finalize(int rank, ConnectionId id, const wireup::Frame& frame) {
    RankState& r = ranks_[static_cast<std::size_t>(rank)];
    if (!frame.payload.empty() || !released_ || r.finalized) {
        drop(id, "an out-of-order Finalize from rank " + std::to_string(rank));
        return;
    }
    r.finalized = true;
    ++finalized_;
    if (finalized_ < plan_.size) return;
    auto done = std::make_shared<const std::vector<std::uint8_t>>(wireup::encode_empty(wireup::Type::finalize_done));
    for (const RankState& s : ranks_)
        if (s.conn) server_.send(*s.conn, done);
    narrate("every rank reached MPI_Finalize");
}

void CoAllocator::drop(ConnectionId id, const std::string& reason) {
    say(messages::connection_dropped(reason));
    server_.close(id);
    challenged_.erase(id);
    auto it = conn_rank_.find(id);
    if (it == conn_rank_.end()) return;
    const int rank = it->second;
    conn_rank_.erase(it);
    ranks_[static_cast<std::size_t>(rank)].conn.reset();
    watch_lost_connection(rank);
}

void CoAllocator::on_closed(ConnectionId id, const std::string& why, bool malformed) {
    challenged_.erase(id);
    auto it = conn_rank_.find(id);
    // A stranger's junk is refused like any other stranger's message
    // (docs/SECURITY.md); one that only connects and closes is not worth a line.
    if (it == conn_rank_.end()) {
        if (malformed) say(messages::connection_dropped(why));
        return;
    }
    const int rank = it->second;
    conn_rank_.erase(it);
    ranks_[static_cast<std::size_t>(rank)].conn.reset();
    narrate("rank " + std::to_string(rank) + "'s control connection: " + why);
    watch_lost_connection(rank);
}

void CoAllocator::watch_lost_connection(int rank) {
    RankState& r = ranks_[static_cast<std::size_t>(rank)];
    if (ending_ || r.exited || r.finalized) return;
    // Normally the process is exiting and its exit status (the better report)
    // follows at once; a process that lives on without its connection would
    // hang everyone at the next barrier.
    r.lost_timer = std::make_unique<asio::steady_timer>(io_, std::chrono::milliseconds(kKillGraceMs.get()));
    r.lost_timer->async_wait([this, rank](const boost::system::error_code& ec) {
        if (ec == asio::error::operation_aborted) return;
        const RankState& s = ranks_[static_cast<std::size_t>(rank)];
        if (!ending_ && !s.exited) end_job(1, messages::connection_lost(rank, s.pid));
    });
}

void CoAllocator::end_job(int exit_code, const std::string& message) {
    if (ending_) return;
    ending_ = true;
    exit_code_ = exit_code;
    if (!message.empty()) say(message);
    for (auto& a : adapters_)
        if (a) a->cancel(adapters::CancelMode::terminate);
    kill_timer_.expires_after(std::chrono::milliseconds(kKillGraceMs.get()));
    kill_timer_.async_wait([this](const boost::system::error_code& ec) {
        if (ec == asio::error::operation_aborted) return;
        narrate("grace period over; killing what is left");
        kill_all();
    });
    check_done();
}

void CoAllocator::kill_all() {
    for (auto& a : adapters_)
        if (a) a->cancel(adapters::CancelMode::kill);
}

void CoAllocator::check_done() {
    if (finished_) return;
    for (const auto& a : adapters_)
        if (a && a->state() == adapters::SubjobState::running) return;
    // Adapters not started (the job ended first) count as done.
    finished_ = true;
    boost::system::error_code ignored;
    kill_timer_.cancel();
    for (RankState& r : ranks_) r.lost_timer.reset();
    for (auto& t : startup_timers_) t.reset();
    signals_.cancel(ignored);
    server_.stop();
    io_.stop();
}

}  // namespace strata::launcher
