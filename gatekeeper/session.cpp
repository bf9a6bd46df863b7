#include "gatekeeper/session.hpp"

#include "adapters/adapter_make.hpp"
#include "adapters/slurm_adapter.hpp"
#include "base/keepalive.hpp"
#include "gatekeeper/gatekeeper.hpp"
#include "security/tls.hpp"
#include "wireup/environment.hpp"
#include "wireup/pipe_stream.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <utility>

namespace strata::gatekeeper {

namespace asio = boost::asio;
using asio::ip::tcp;

struct Account {
    std::string name;
    std::string home;
    std::string shell;
    adapters::RunAs ids;
};

namespace {

// How long a session waits, at most, for a relay whose reports ended (it is
// exiting) to become reapable, before it reports a process's exit.
constexpr int kRelayExitingMs = 200;

// The account's passwd entry and groups.
base::Result<Account> account_lookup(const std::string& name) {
    std::array<char, 16384> buf{};
    passwd pw{};
    passwd* found = nullptr;
    const int rc = ::getpwnam_r(name.c_str(), &pw, buf.data(), buf.size(), &found);
    if (rc != 0 || found == nullptr) return base::Error{"the local account '" + name + "' does not exist at this site"};
    Account a;
    a.name = name;
    a.home = pw.pw_dir != nullptr ? pw.pw_dir : "/";
    a.shell = pw.pw_shell != nullptr ? pw.pw_shell : "/bin/sh";
    a.ids.uid = pw.pw_uid;
    a.ids.gid = pw.pw_gid;
    int n = 64;
    std::vector<gid_t> groups(static_cast<std::size_t>(n));
    if (::getgrouplist(name.c_str(), pw.pw_gid, groups.data(), &n) < 0) {
        groups.resize(static_cast<std::size_t>(n));
        if (::getgrouplist(name.c_str(), pw.pw_gid, groups.data(), &n) < 0) n = 0;
    }
    for (int i = 0; i < n; ++i) a.ids.groups.push_back(groups[static_cast<std::size_t>(i)]);
    return a;
}

std::string own_account_name() {
    std::array<char, 16384> buf{};
    passwd pw{};
    passwd* found = nullptr;
    if (::getpwuid_r(::geteuid(), &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr)
        return "uid " + std::to_string(::geteuid());
    return pw.pw_name;
}

std::string dn_quoted(const std::string& dn) { return "\"" + dn + "\""; }

}  // namespace

// How this `--stdio` process was started, and where mpirun's machine is as
// that channel saw it. In an srun step, the node srun ran on
// (SLURM_LAUNCH_NODE_IPADDR, which slurmd sets for the step's tasks; an
// SSH_CONNECTION there is mpirun's own login, passed on by srun with the rest
// of its environment, and names the user's desk, not mpirun). Otherwise over
// ssh, the session's client (SSH_CONNECTION: "client-address client-port
// server-address server-port"). Neither: a pipe from a local process.
StdioOrigin stdio_origin() {
    const char* step = std::getenv("SLURM_STEP_ID");
    const char* srun_from = std::getenv("SLURM_LAUNCH_NODE_IPADDR");
    if (step != nullptr && srun_from != nullptr && *srun_from != '\0') return {"srun", srun_from};
    const char* c = std::getenv("SSH_CONNECTION");
    if (c == nullptr) return {};
    const std::string text = c;
    return {"ssh", text.substr(0, text.find(' '))};
}

Session::Session(Gatekeeper& gk, std::uint64_t id) : gk_(gk), id_(id), timer_(gk.io()) {}

std::shared_ptr<Session> Session::over_tls(Gatekeeper& gk, std::uint64_t id, tcp::socket socket,
                                           std::shared_ptr<asio::ssl::context> tls) {
    std::shared_ptr<Session> s(new Session(gk, id));
    s->tls_ = std::move(tls);
    boost::system::error_code ec;
    const tcp::endpoint peer = socket.remote_endpoint(ec);
    s->peer_address_ = ec ? "unknown peer" : peer.address().to_string();
    s->peer_ = ec ? s->peer_address_ : s->peer_address_ + ":" + std::to_string(peer.port());
    s->tls_conn_ = TlsConnection::make(gram::frame_splitter(static_cast<std::uint32_t>(gk.config().max_request_bytes)),
                                       s->handlers(), std::move(socket), *s->tls_);
    s->conn_ = s->tls_conn_;
    return s;
}

std::shared_ptr<Session> Session::over_stdio(Gatekeeper& gk, std::uint64_t id, int in_fd, int out_fd) {
    std::shared_ptr<Session> s(new Session(gk, id));
    s->stdio_ = true;
    s->origin_ = stdio_origin();
    s->peer_address_ = s->origin_.client.empty() ? "stdin" : s->origin_.client;
    s->peer_ = s->origin_.client.empty() ? "stdin" : s->origin_.tool + " from " + s->peer_address_;
    s->subject_ = own_account_name();
    s->conn_ = codec::FramedConnection<codec::PipeStream>::make(
        gram::frame_splitter(static_cast<std::uint32_t>(gk.config().max_request_bytes)), s->handlers(), gk.io(), in_fd,
        out_fd);
    return s;
}

void Session::start() {
    auto self = shared_from_this();
    timer_.expires_after(std::chrono::seconds(gk_.config().handshake_timeout_s));
    timer_.async_wait([this, self](const boost::system::error_code& ec) {
        if (ec == asio::error::operation_aborted || submitted_) return;
        log("closed: no request within " + std::to_string(gk_.config().handshake_timeout_s) + " s");
        close();
    });
    if (!tls_conn_) return begin();
    tls_conn_->stream().async_handshake(asio::ssl::stream_base::server, [this, self](const boost::system::error_code& ec) {
        SSL* ssl = tls_conn_->stream().native_handle();
        if (ec) {
            const base::Status verified = security::tls_verify_status(ssl);
            presented_ = security::tls_presented_subject(ssl);
            log("refused: TLS handshake failed: " + (verified ? ec.message() : "certificate refused: " + verified.error()));
            close();
            return;
        }
        subject_ = security::tls_peer_subject(ssl);
        int proxies = 0;
        proxy_check_ = security::proxy_chain_check(security::tls_peer_chain(ssl), proxies);
        log("authenticated " + dn_quoted(subject_) +
            (proxies == 0 ? "" : " through a chain of " + std::to_string(proxies) + " prox" + (proxies == 1 ? "y" : "ies")));
        begin();
    });
}

void Session::begin() {
    if (stdio_) {
        const std::string& tool = origin_.tool;
        log((tool == "ssh" ? "ssh login" : tool == "srun" ? "srun step" : "session") + (" as '" + subject_ + "'"));
    }
    conn_->send(gram::encode(gram::Hello{gram::version()}));
    conn_->start();
}

Session::~Session() {
    conn_->close();  // its handlers refer to this session
    adapter_.reset();  // its processes and Slurm job end before their directories go
    bool clean = true;
    if (!job_dir_.empty()) {
        const base::Status removed = job_fd_.remove();
        clean = removed.ok();
        log(clean ? "removed the job directory " + job_dir_ : removed.error());
    }
    if (!record_name_.empty() && clean) gk_.records()->remove(record_name_);
}

void Session::kill(const std::string& reason) {
    if (!closed_ && !subject_.empty() && !final_sent_) {
        log("ending: " + reason);
        return finish_failed(reason);
    }
    if (adapter_) adapter_->cancel(adapters::CancelMode::kill);
    close();
}

void Session::on_started(int rank, long pid) {
    if (adapter_info_->records_local_pids && !record_name_.empty()) {
        // A process of this machine: a restart after our death kills it if it is still this one.
        if (const auto start = process_start_time(pid)) record_.processes.push_back({pid, *start});
        record_save();
    }
    send(gram::encode(gram::Started{static_cast<std::uint32_t>(rank), static_cast<std::uint32_t>(pid)}));
}

void Session::on_start_failed(int rank, const std::string& reason) {
    log("rank " + std::to_string(rank) + " could not start: " + reason);
    send(gram::encode(gram::StartFailed{static_cast<std::uint32_t>(rank), reason}));
}

void Session::on_output(int rank, adapters::Stream stream, std::string_view bytes) {
    send(gram::encode(gram::Output{static_cast<std::uint32_t>(rank), stream, std::string(bytes)}));
}

// The last exit or end of output of a subjob already over (failed, its
// processes killed after) may be what the session still waits for.
void Session::on_output_closed(int rank, adapters::Stream stream) {
    send(gram::encode(gram::OutputClosed{static_cast<std::uint32_t>(rank), stream}));
    maybe_end();
}

void Session::on_exited(int rank, long pid, adapters::ProcessExit how) {
    relay_check();
    send(gram::encode(gram::Exited{static_cast<std::uint32_t>(rank), static_cast<std::uint32_t>(pid), how}));
    maybe_end();
}

void Session::on_subjob_state(int, adapters::JobState state, const std::string& detail) {
    record_save();  // the slurm adapter's job id and work directory are known by now
    log("subjob " + std::string(adapters::job_state_name(state)) + (detail.empty() ? "" : ": " + detail));
    send(gram::encode(gram::State{state, detail}));
    if (state == adapters::JobState::done || state == adapters::JobState::failed) final_sent_ = true;
    maybe_end();  // also when a refused subjob's processes are finally gone
}

// Rewrites this subjob's record (subjob_record.hpp) when it changed.
void Session::record_save() {
    if (record_name_.empty()) return;
    SubjobRecord now = record_;
    now.job_dir = job_dir_;
    if (const auto* slurm = dynamic_cast<const adapters::SlurmAdapter*>(adapter_.get())) {
        now.work_dir = slurm->work_dir();
        now.slurm_job = slurm->job_id();
    }
    if (now == record_ && record_written_) return;
    record_ = std::move(now);
    const base::Status written = gk_.records()->write(record_name_, record_);
    record_written_ = written.ok();
    if (!record_written_) log(written.error());
}

// Until it authenticates, a connection's lines count against its address's
// share of the log (Gatekeeper::log_from): a stranger cannot flood it.
void Session::log(const std::string& what) const {
    const std::string who = stdio_                  ? " '" + subject_ + "'"
                            : !subject_.empty()   ? " " + dn_quoted(subject_)
                            : !presented_.empty() ? " presented " + dn_quoted(presented_)
                                                  : std::string();
    const std::string line = "[" + std::to_string(id_) + " " + peer_ + who + "] " + what;
    if (subject_.empty())
        gk_.log_from(peer_address_, line);
    else
        gk_.log(line);
}

codec::FrameHandlers Session::handlers() {
    codec::FrameHandlers h;
    h.frame = [this](const base::wire::RawFrame& f) { handle(f); };
    h.ended = [this](const codec::FrameEnd& e) {
        if (e.malformed)
            return refuse("the request is malformed or larger than this site's limit of " +
                          std::to_string(gk_.config().max_request_bytes) + " bytes");
        const bool peer_closed = e.error == asio::error::eof || e.error == asio::ssl::error::stream_truncated;
        connection_lost(peer_closed && !e.write ? "mpirun closed the connection" : e.error.message());
    };
    h.drained = [this] { maybe_end(); };
    return h;
}

void Session::handle(const base::wire::RawFrame& f) {
    if (final_sent_) return;  // the conversation is over; only waiting for mpirun to close
    const auto type = static_cast<gram::Type>(f.type);
    if (type == gram::Type::hello) {
        if (hello_) return refuse("a second Hello");
        const auto m = base::wire::decode<gram::Hello>(f.payload);
        return m ? hello(*m) : refuse("a malformed Hello (" + m.error() + ")");
    }
    if (!hello_) return refuse("mpirun sent no Hello first (is it an older Strata than " + std::string(gram::version()) + "?)");
    switch (type) {
        case gram::Type::submit: {
            if (submitted_) return refuse("a second Submit on one connection");
            const auto m = base::wire::decode<gram::Submit>(f.payload);
            return m ? submit(*m) : refuse("a malformed Submit (" + m.error() + ")");
        }
        case gram::Type::cancel:
            if (const auto m = base::wire::decode<gram::Cancel>(f.payload)) {
                log(std::string("cancel requested (") + (m->mode == adapters::CancelMode::kill ? "kill" : "terminate") +
                    ")");
                // Before anything started (still staging) there is nothing to end.
                if (!adapter_) return finish_failed("cancelled before it started");
                adapter_->cancel(m->mode);
            }
            return;
        case gram::Type::stage_data: {
            if (staging_.empty() || adapter_) return refuse("staged data nobody announced");
            const auto d = base::wire::decode<gram::StageData>(f.payload);
            return d ? stage_data(*d) : refuse("malformed staged data (" + d.error() + ")");
        }
        case gram::Type::stdin_data:
            if (auto in = base::wire::decode<gram::Stdin>(f.payload); in && stdin_) {
                stdin_queue_.push_back(std::move(in->bytes));
                if (stdin_queue_.size() == 1) write_stdin();
            }
            return;
        case gram::Type::stdin_closed:
            stdin_eof_ = true;
            if (stdin_ && stdin_queue_.empty()) close_stdin();
            return;
        case gram::Type::delegation: {
            if (!awaiting_delegation_) return refuse("a delegated proxy nobody asked for");
            const auto d = base::wire::decode<gram::Delegation>(f.payload);
            return d ? delegation_received(*d) : refuse("a malformed delegated proxy (" + d.error() + ")");
        }
        default: return refuse("an unexpected message");
    }
}

void Session::hello(const gram::Hello& m) {
    if (m.version != gram::version())
        return refuse("mpirun is Strata " + m.version + " but this site runs Strata " + gram::version() +
                      "; use the same version at both ends");
    hello_ = true;
}

// The local account the subjob runs as, or why it may not run.
base::Result<std::string> Session::account_choose(const gram::Submit& m) const {
    if (stdio_) {
        if (!m.account.empty() && m.account != subject_)
            return base::Error{"not authorized: ssh logged in as '" + subject_ + "', not '" + m.account +
                               "' (name that login in the contact, " + m.account + "@host)"};
        return subject_;
    }
    if (!proxy_check_.ok()) return base::Error{"not authorized: " + proxy_check_.error()};
    const std::vector<std::string>* accounts = gk_.gridmap().accounts(subject_);
    if (accounts == nullptr)
        return base::Error{"not authorized: " + dn_quoted(subject_) + " is not in this site's grid-mapfile"};
    std::string name = m.account.empty() ? accounts->front() : m.account;
    if (std::find(accounts->begin(), accounts->end(), name) == accounts->end())
        return base::Error{"not authorized: the grid-mapfile does not map " + dn_quoted(subject_) + " to '" + name + "'"};
    return name;
}

void Session::submit(const gram::Submit& m) {
    submitted_ = true;
    timer_.cancel();
    base::Result<std::string> name = account_choose(m);
    if (!name) return refuse(name.error());
    base::Result<Account> account = account_lookup(*name);
    if (!account) return refuse(account.error());
    const bool root = ::geteuid() == 0;
    // A root gatekeeper never lends root to a grid identity; a user-level one
    // runs the subjob as the account it already runs as, whichever that is.
    if (account->ids.uid == 0 && !stdio_)
        return refuse("not authorized: the grid-mapfile maps to root, which never runs jobs");
    if (!root && account->ids.uid != ::geteuid())
        return refuse("not authorized: this gatekeeper runs as '" + own_account_name() +
                      "' and can start processes only as that account, not as '" + *name + "'");
    const job::AdapterInfo* info = job::adapter_find(m.adapter);
    if (info == nullptr || !gk_.config().offers(m.adapter))
        return refuse("this site does not offer the '" + m.adapter + "' adapter");
    if (gk_.subjobs_held() >= gk_.config().max_jobs)
        return refuse("this site already runs its limit of " + std::to_string(gk_.config().max_jobs) + " subjobs");
    const int per_user = gk_.config().max_jobs_per_user;
    if (per_user > 0 && gk_.subjobs_held_by(subject_) >= per_user)
        return refuse("this site already runs its limit of " + std::to_string(per_user) + " subjobs for " +
                      dn_quoted(subject_));
    if (stdio_ && m.delegation != "none")
        return refuse("an ssh login has no grid credential to delegate to; mpirun asked for a '" + m.delegation +
                      "' proxy");

    accepted_ = true;
    if (gk_.records() != nullptr) {
        record_name_ = "subjob-" + std::to_string(::time(nullptr)) + "-" + std::to_string(::getpid()) + "-" +
                       std::to_string(id_);
        record_.subject = subject_;
        record_.account = *name;
        record_.adapter = m.adapter;
        record_save();
    }
    log("subjob " + std::to_string(m.subjob) + ": ranks " + std::to_string(m.first_rank) + ".." +
        std::to_string(m.first_rank + m.count - 1) + " of '" + m.command.program + "' as '" + *name + "' via " +
        m.adapter);
    adapter_info_ = info;
    subjob_.index = static_cast<int>(m.subjob);
    subjob_.contact = job::kLocalContact;
    subjob_.count = static_cast<int>(m.count);
    subjob_.first_rank = static_cast<int>(m.first_rank);
    login_prepare(m, *account);
    if (m.delegation != "none") {
        if (base::Status s = delegation_ask(*account); !s) return refuse(s.error());
    }
    if (m.stage.empty()) {
        if (!adapter_info_->reports_pending) on_subjob_state(subjob_.index, adapters::JobState::pending, "");
        launch();
        return;
    }
    std::uint64_t total = 0;
    for (const gram::StagedFile& f : m.stage) total += f.size;
    if (total > static_cast<std::uint64_t>(gk_.config().max_stage_bytes))
        return refuse("the staged files (" + std::to_string(total) + " bytes) exceed this site's limit of " +
                      std::to_string(gk_.config().max_stage_bytes) + " bytes");
    if (base::Status s = job_dir_make(*account); !s) return refuse(s.error());
    if (base::Status s = staging_.open(m.stage, job_fd_, job_dir_); !s) return refuse(s.error());
    if (m.command.directory.empty()) spec_.command.directory = job_dir_;
    if (m.stage_program) spec_.command.program = job_dir_ + "/" + m.stage.front().name;
    on_subjob_state(subjob_.index, adapters::JobState::pending,
                    "staging " + std::to_string(m.stage.size()) + " file(s), " + std::to_string(total) + " bytes");
    stage_check();  // empty files are complete already
}

// The processes' command, environment, directory, account and stdin.
void Session::login_prepare(const gram::Submit& m, const Account& account) {
    spec_.command = m.command;
    spec_.batch = m.batch;
    relay_wanted_ = m.relay;
    hub_port_ = m.hub_port;
    if (stdio_) {
        // The ssh session's environment is the login's (an srun step's, what
        // srun passed on). mpirun is reached at the address the channel came from.
        spec_.inherit_environment = true;
        for (auto& [var, value] : spec_.command.env)
            if (var == wireup::env::kWireup && !origin_.client.empty()) value = wireup::wireup_at(origin_.client, value);
    } else {
        // Before the job's variables (wire-up included): what a login of the
        // account would have and the site's additions; nothing of our own
        // environment.
        job::Environment login = {{"HOME", account.home},   {"USER", account.name}, {"LOGNAME", account.name},
                                  {"SHELL", account.shell}, {"PATH", kLoginPath}};
        login.insert(login.end(), gk_.config().environment.begin(), gk_.config().environment.end());
        spec_.command.env.insert(spec_.command.env.begin(), login.begin(), login.end());
        spec_.inherit_environment = false;
    }
    // As Globus GRAM: without a directory, processes start in the home
    // directory (in the job's directory when it stages files).
    if (spec_.command.directory.empty()) spec_.command.directory = account.home;
    if (::geteuid() == 0) spec_.run_as = account.ids;
    if (m.has_stdin) {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) == 0) {
            spec_.stdin_fd = fds[0];
            stdin_ = std::make_unique<asio::posix::stream_descriptor>(gk_.io(), fds[1]);
        }
    }
}

void Session::launch() {
    if (awaiting_delegation_) {
        launch_ready_ = true;
        return;
    }
    // Everything this process writes there is written: only now may the
    // account change what is in it.
    if (!job_dir_.empty() && ::geteuid() == 0) {
        if (base::Status s = job_fd_.give(owner_.uid, owner_.gid); !s) return refuse(s.error());
    }
    if (relay_wanted_) {
        if (base::Status s = relay_start(); !s) return refuse(s.error());
    }
    adapter_ = adapters::adapter_make(adapter_info_->kind, gk_.io(), {gk_.config().scratch});
    adapter_->start(subjob_, std::move(spec_), *this);
}

std::string Session::own_address() const {
    if (tls_conn_) {
        boost::system::error_code ec;
        const tcp::endpoint local = tls_conn_->stream().lowest_layer().local_endpoint(ec);
        if (!ec && local.address().is_v4()) return local.address().to_string();
    }
    // SSH_CONNECTION: client address, client port, server address, server port.
    if (const char* c = std::getenv("SSH_CONNECTION"); c != nullptr && origin_.tool == "ssh") {
        const std::string text = c;
        const std::size_t a = text.find(' ');
        const std::size_t b = a == std::string::npos ? a : text.find(' ', a + 1);
        const std::size_t e = b == std::string::npos ? b : text.find(' ', b + 1);
        if (e != std::string::npos) return text.substr(b + 1, e - b - 1);
    }
    return "127.0.0.1";
}

base::Status Session::relay_start() {
    const auto value = [&](const char* name) {
        const auto it = std::find_if(spec_.command.env.begin(), spec_.command.env.end(),
                                     [&](const auto& v) { return v.first == name; });
        return it == spec_.command.env.end() ? std::string() : it->second;
    };
    const std::string key = value(wireup::env::kJobKey);
    const std::string mpirun = value(wireup::env::kWireup);
    if (key.empty() || mpirun.empty())
        return base::Error{"a private site's relay needs the job's key and mpirun's address, which the submission lacks"};
    // mpirun's hub is at its wire-up listener's address.
    const std::string hub = hub_port_ == 0 ? std::string()
                                           : mpirun.substr(0, mpirun.rfind(':') + 1) + std::to_string(hub_port_);
    base::Result<std::unique_ptr<RelayProcess>> relay =
        RelayProcess::spawn(own_address(), mpirun, hub, key, value(base::peer_timeout_knob_name()), spec_.run_as);
    if (!relay) return base::Error{"cannot start this site's relay: " + relay.error()};
    relay_ = std::move(*relay);
    log("started the relay of this private site, pid " + std::to_string(relay_->pid()) + ", at " + relay_->endpoint());
    spec_.command.env.emplace_back(wireup::env::kRelay, relay_->endpoint());
    relay_watch();
    return {};
}

void Session::relay_watch() {
    // Duplicates: the RelayProcess keeps (and closes) its own descriptors.
    relay_reports_ = std::make_unique<asio::posix::stream_descriptor>(gk_.io(), ::dup(relay_->reports_fd()));
    relay_reports_wait();
    if (relay_->exit_fd() < 0) return;
    relay_exit_ = std::make_unique<asio::posix::stream_descriptor>(gk_.io(), ::dup(relay_->exit_fd()));
    auto self = shared_from_this();
    relay_exit_->async_wait(asio::posix::stream_descriptor::wait_read, [this, self](const boost::system::error_code& ec) {
        if (!ec) relay_ended();
    });
}

void Session::relay_reports_wait() {
    auto self = shared_from_this();
    relay_reports_->async_wait(asio::posix::stream_descriptor::wait_read,
                               [this, self](const boost::system::error_code& ec) {
                                   if (ec || !relay_) return;
                                   relay_reported();
                                   if (relay_ && relay_->reports_fd() >= 0) relay_reports_wait();
                               });
}

// What the relay reported: the subjob fails with the first report; later
// ones (and empty lines) change nothing and are not logged.
void Session::relay_reported() {
    for (const std::string& line : relay_->reports_read()) {
        if (line.empty() || final_sent_) continue;
        const std::string why = "this site's relay (" + relay_->endpoint() + ") " + line;
        log(why);
        finish_failed(why);
        if (!relay_) return;
    }
}

// The relay ended before the subjob: the subjob fails, naming it.
void Session::relay_ended() {
    if (!relay_) return;
    relay_reported();  // what it said before it ended came first
    if (!relay_) return;
    const std::string how = relay_->reap();
    const std::string why = "this site's relay (" + relay_->endpoint() + ") " + how +
                            ": its processes lost their way to other sites and to mpirun";
    log(why);
    relay_.reset();
    if (!final_sent_) finish_failed(why);
}

// Whether the relay reported a failure or ended, checked before a process's
// exit is reported: a process that lost its way through the relay exits
// after the relay reported or ended, and mpirun must hear the cause (the
// relay) before the effect.
void Session::relay_check() {
    if (!relay_) return;
    relay_reported();
    if (!relay_ || relay_->exit_fd() < 0) return;
    // An exiting relay closes its standard output (the reports) before its
    // sockets, whose end its processes see: once the reports ended, wait
    // the moment until the relay can be reaped.
    const int wait_ms = relay_->reports_fd() < 0 ? kRelayExitingMs : 0;
    pollfd ended{relay_->exit_fd(), POLLIN, 0};
    if (::poll(&ended, 1, wait_ms) == 1) relay_ended();
}

// Makes the per-job directory (mode 0700) once. It stays this process's
// until launch(), which gives it to the account: the staged files and
// the proxy are written before the account can touch anything there.
base::Status Session::job_dir_make(const Account& account) {
    owner_ = account.ids;
    if (!job_dir_.empty()) return {};
    base::Result<base::DirFd> dir = base::DirFd::make(gk_.config().scratch, "strata-job-" + account.name + "-");
    if (!dir) return dir.failure();
    job_fd_ = std::move(*dir);
    job_dir_ = job_fd_.path();
    record_save();
    return {};
}

// Asks mpirun for a proxy for a key made here (gram.hpp); launch() waits for it.
base::Status Session::delegation_ask(const Account& account) {
    if (base::Status s = job_dir_make(account); !s) return s;
    auto key = security::key_create();
    if (!key.ok()) return key.failure();
    auto pem = security::public_key_pem(key.value().get());
    if (!pem.ok()) return pem.failure();
    delegation_key_ = std::move(key.value());
    awaiting_delegation_ = true;
    send(gram::encode(gram::DelegationRequest{std::move(pem.value())}));
    return {};
}

// The proxy arrived: checked, written beside the job as X509_USER_PROXY.
void Session::delegation_received(const gram::Delegation& d) {
    auto cred = security::delegation_accept(gk_.trust(), delegation_key_.get(), d.certificates_pem, subject_);
    if (!cred.ok()) return refuse(cred.error());
    auto pem = security::proxy_pem(cred.value());
    if (!pem.ok()) return refuse(pem.error());
    const std::string path = job_dir_ + "/x509up";
    if (base::Status s = job_fd_.file_write("x509up", pem.value(), 0600, owner_.uid, owner_.gid); !s)
        return refuse(s.error());
    spec_.command.env.emplace_back("X509_USER_PROXY", path);
    log("received a " +
        std::string(security::proxy_policy(cred.value().cert.get()) == security::ProxyPolicy::limited ? "limited"
                                                                                                      : "full") +
        " proxy for " + dn_quoted(subject_) + ", valid until " +
        security::asn1_time_text(X509_get0_notAfter(cred.value().cert.get())) + ": " + path);
    awaiting_delegation_ = false;
    if (launch_ready_) launch();
}

void Session::stage_data(const gram::StageData& d) {
    if (base::Status s = staging_.add(d.bytes); !s) return refuse(s.error());
    stage_check();
}

// Starts the subjob once every staged file is complete and intact.
void Session::stage_check() {
    if (!staging_.complete()) return;
    if (base::Status s = staging_.finish(owner_, ::geteuid() == 0); !s) return refuse(s.error());
    log("staged " + std::to_string(staging_.size()) + " file(s) into " + job_dir_);
    launch();
}

void Session::write_stdin() {
    auto self = shared_from_this();
    asio::async_write(*stdin_, asio::buffer(stdin_queue_.front()),
                      [this, self](const boost::system::error_code& ec, std::size_t) {
                          if (!stdin_) return;
                          if (ec) {  // rank 0 closed its stdin or exited
                              stdin_queue_.clear();
                              close_stdin();
                              return;
                          }
                          stdin_queue_.pop_front();
                          if (!stdin_queue_.empty())
                              write_stdin();
                          else if (stdin_eof_)
                              close_stdin();
                      });
}

void Session::close_stdin() {
    boost::system::error_code ec;
    if (stdin_) stdin_->close(ec);
    stdin_.reset();
}

// Refuses the request: the reason goes back as State FAILED, then the
// connection closes.
void Session::refuse(const std::string& reason) {
    log("refused: " + reason);
    finish_failed(reason);
}

// The subjob is over as FAILED: whatever runs is killed, mpirun hears why.
void Session::finish_failed(const std::string& reason) {
    if (adapter_) adapter_->cancel(adapters::CancelMode::kill);
    send(gram::encode(gram::State{adapters::JobState::failed, reason}));
    final_sent_ = true;
    maybe_end();
}

// Nothing follows the final state (a subjob killed after a refusal still
// reports its exits to us).
void Session::send(std::vector<std::uint8_t> frame) {
    if (closed_ || final_sent_) return;
    conn_->send(std::move(frame));
}

void Session::connection_lost(const std::string& why) {
    if (!final_sent_) log("connection lost (" + why + ")" + (adapter_ ? "; killing the subjob" : ""));
    if (adapter_) adapter_->cancel(adapters::CancelMode::kill);
    close();
}

// After the final state: stop sending and wait for mpirun to close, so it
// reads the state even if it was still sending (closing at once could
// reset the connection and lose it); a peer that never closes is dropped.
void Session::drain() {
    draining_ = true;
    conn_->shutdown_after_drain();
    timer_.expires_after(std::chrono::seconds(gk_.config().handshake_timeout_s));
    auto self = shared_from_this();
    timer_.async_wait([this, self](const boost::system::error_code& tec) {
        if (tec != asio::error::operation_aborted) close();
    });
}

void Session::close() {
    if (closed_) return;
    closed_ = true;
    timer_.cancel();
    conn_->close();
    close_stdin();
    maybe_end();
}

// The session ends when the connection is finished with and no process
// of the subjob is left.
void Session::maybe_end() {
    if (final_sent_ && !closed_ && !draining_ && conn_->idle()) drain();
    if (ended_ || !closed_ || running()) return;
    ended_ = true;
    if (relay_exit_) relay_exit_->close();
    if (relay_reports_) relay_reports_->close();
    if (relay_) {
        relay_.reset();
        log("ended the relay");
    }
    // Later: the gatekeeper drops its reference, possibly destroying us.
    asio::post(gk_.io(), [gk = &gk_, id = id_] { gk->session_ended(id); });
}

}  // namespace strata::gatekeeper
