#include "gatekeeper/gatekeeper.hpp"

#include "adapters/adapter_make.hpp"
#include "adapters/slurm_adapter.hpp"
#include "base/dir_fd.hpp"
#include "base/keepalive.hpp"
#include "wireup/codec.hpp"
#include "wireup/framed_connection.hpp"
#include "gram/gram.hpp"
#include "security/digest.hpp"
#include "security/proxy.hpp"
#include "security/tls.hpp"

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <deque>
#include <optional>
#include <utility>

namespace strata::gatekeeper {

namespace asio = boost::asio;
using asio::ip::tcp;
using adapters::JobState;

namespace {

struct Account {
    std::string name;
    std::string home;
    std::string shell;
    adapters::RunAs ids;
};

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

}  // namespace

// One connection from an mpirun: handshake, authorization, one subjob.
class Session final : public adapters::ProcessEvents, public std::enable_shared_from_this<Session> {
    using Connection = codec::FramedConnection<asio::ssl::stream<tcp::socket>>;

public:
    // `tls`: the context of when the connection came; a reload may replace the gatekeeper's meanwhile.
    Session(Gatekeeper& gk, std::uint64_t id, tcp::socket socket, std::shared_ptr<asio::ssl::context> tls)
        : gk_(gk),
          id_(id),
          tls_(std::move(tls)),
          conn_(Connection::make(gram::frame_splitter(static_cast<std::uint32_t>(gk.config().max_request_bytes)),
                                 handlers(), std::move(socket), *tls_)),
          timer_(conn_->stream().get_executor()) {
        boost::system::error_code ec;
        const tcp::endpoint peer = conn_->stream().lowest_layer().remote_endpoint(ec);
        peer_address_ = ec ? "unknown peer" : peer.address().to_string();
        peer_ = ec ? peer_address_ : peer_address_ + ":" + std::to_string(peer.port());
    }

    void start() {
        auto self = shared_from_this();
        timer_.expires_after(std::chrono::seconds(gk_.config().handshake_timeout_s));
        timer_.async_wait([this, self](const boost::system::error_code& ec) {
            if (ec == asio::error::operation_aborted || submitted_) return;
            log("closed: no request within " + std::to_string(gk_.config().handshake_timeout_s) + " s");
            close();
        });
        conn_->stream().async_handshake(asio::ssl::stream_base::server, [this, self](const boost::system::error_code& ec) {
            if (ec) {
                const base::Status verified = security::tls_verify_status(conn_->stream().native_handle());
                presented_ = security::tls_presented_subject(conn_->stream().native_handle());
                log("refused: TLS handshake failed: " +
                    (verified ? ec.message() : "certificate refused: " + verified.error()));
                close();
                return;
            }
            subject_ = security::tls_peer_subject(conn_->stream().native_handle());
            int proxies = 0;
            proxy_check_ =
                security::proxy_chain_check(security::tls_peer_chain(conn_->stream().native_handle()), proxies);
            log("authenticated " + quoted(subject_) +
                (proxies == 0 ? "" : " through a chain of " + std::to_string(proxies) + " prox" +
                                         (proxies == 1 ? "y" : "ies")));
            conn_->start();
        });
    }

    ~Session() override {
        conn_->close();  // its handlers refer to this session
        for (Staged& s : staged_)
            if (s.fd >= 0) ::close(s.fd);
        adapter_.reset();  // its processes and Slurm job end before their directories go
        bool clean = true;
        if (!job_dir_.empty()) {
            const base::Status removed = job_fd_.remove();
            clean = removed.ok();
            log(clean ? "removed the job directory " + job_dir_ : removed.error());
        }
        if (!record_name_.empty() && clean) gk_.records()->remove(record_name_);
    }

    // Gatekeeper shutdown: the subjob ends now, and mpirun hears `reason` as
    // its final state rather than a connection that just breaks. A connection
    // still in its handshake (no subject yet), or past its final state, closes.
    void kill(const std::string& reason) {
        if (!closed_ && !subject_.empty() && !final_sent_) {
            log("ending: " + reason);
            return finish_failed(reason);
        }
        if (adapter_) adapter_->cancel(adapters::CancelMode::kill);
        close();
    }

    bool running() const { return adapter_ && adapter_->state() == adapters::SubjobState::running; }
    // Counts against max_jobs: accepted (staging or running) and not over.
    bool holds_subjob() const { return accepted_ && !ended_; }
    const std::string& subject() const { return subject_; }

    // ProcessEvents: everything goes back to mpirun as it happens.
    void on_started(int rank, long pid) override {
        if (adapter_info_->records_local_pids) {
            // A process of this machine: a restart after our death kills it if it is still this one.
            if (const auto start = process_start_time(pid)) record_.processes.push_back({pid, *start});
            record_save();
        }
        send(gram::encode(gram::Started{static_cast<std::uint32_t>(rank), static_cast<std::uint32_t>(pid)}));
    }
    void on_start_failed(int rank, const std::string& reason) override {
        log("rank " + std::to_string(rank) + " could not start: " + reason);
        send(gram::encode(gram::StartFailed{static_cast<std::uint32_t>(rank), reason}));
    }
    void on_output(int rank, adapters::Stream stream, std::string_view bytes) override {
        send(gram::encode(gram::Output{static_cast<std::uint32_t>(rank), stream, std::string(bytes)}));
    }
    void on_output_closed(int rank, adapters::Stream stream) override {
        send(gram::encode(gram::OutputClosed{static_cast<std::uint32_t>(rank), stream}));
    }
    void on_exited(int rank, long pid, adapters::ProcessExit how) override {
        send(gram::encode(gram::Exited{static_cast<std::uint32_t>(rank), static_cast<std::uint32_t>(pid), how}));
    }
    void on_subjob_state(int, adapters::JobState state, const std::string& detail) override {
        record_save();  // the slurm adapter's job id and work directory are known by now
        log("subjob " + std::string(adapters::job_state_name(state)) + (detail.empty() ? "" : ": " + detail));
        send(gram::encode(gram::State{state, detail}));
        if (state == adapters::JobState::done || state == adapters::JobState::failed) final_sent_ = true;
        maybe_end();  // also when a refused subjob's processes are finally gone
    }

private:
    static std::string quoted(const std::string& dn) { return "\"" + dn + "\""; }

    // Rewrites this subjob's record (subjob_record.hpp) when it changed.
    void record_save() {
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
    void log(const std::string& what) const {
        const std::string who = !subject_.empty()     ? " " + quoted(subject_)
                                : !presented_.empty() ? " presented " + quoted(presented_)
                                                      : std::string();
        const std::string line = "[" + std::to_string(id_) + " " + peer_ + who + "] " + what;
        if (subject_.empty())
            gk_.log_from(peer_address_, line);
        else
            gk_.log(line);
    }

    Connection::Handlers handlers() {
        Connection::Handlers h;
        h.frame = [this](const codec::RawFrame& f) { handle(f); };
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

    void handle(const codec::RawFrame& f) {
        if (final_sent_) return;  // the conversation is over; only waiting for mpirun to close
        switch (static_cast<gram::Type>(f.type)) {
            case gram::Type::submit:
                if (submitted_) return refuse("a second Submit on one connection");
                if (auto m = gram::decode_submit(f.payload)) return submit(*m);
                return refuse("a malformed Submit");
            case gram::Type::cancel:
                if (auto m = gram::decode_cancel(f.payload)) {
                    log(std::string("cancel requested (") +
                        (m->mode == adapters::CancelMode::kill ? "kill" : "terminate") + ")");
                    // Before anything started (still staging) there is nothing to end.
                    if (!adapter_) return finish_failed("cancelled before it started");
                    adapter_->cancel(m->mode);
                }
                return;
            case gram::Type::stage_data:
                if (staged_.empty() || adapter_) return refuse("staged data nobody announced");
                if (auto d = gram::decode_stage_data(f.payload)) return stage_data(*d);
                return refuse("malformed staged data");
            case gram::Type::stdin_data:
                if (auto bytes = gram::decode_stdin(f.payload); bytes && stdin_) {
                    stdin_queue_.push_back(std::move(*bytes));
                    if (stdin_queue_.size() == 1) write_stdin();
                }
                return;
            case gram::Type::stdin_closed:
                stdin_eof_ = true;
                if (stdin_ && stdin_queue_.empty()) close_stdin();
                return;
            case gram::Type::delegation:
                if (!awaiting_delegation_) return refuse("a delegated proxy nobody asked for");
                if (auto d = gram::decode_delegation(f.payload)) return delegation_received(*d);
                return refuse("a malformed delegated proxy");
            default: return refuse("an unexpected message");
        }
    }

    void submit(const gram::Submit& m) {
        submitted_ = true;
        timer_.cancel();
        if (!proxy_check_.ok()) return refuse("not authorized: " + proxy_check_.error());
        const GridMap& map = gk_.gridmap();
        const std::vector<std::string>* accounts = map.accounts(subject_);
        if (accounts == nullptr) return refuse("not authorized: " + quoted(subject_) + " is not in this site's grid-mapfile");
        std::string name = m.account.empty() ? accounts->front() : m.account;
        if (std::find(accounts->begin(), accounts->end(), name) == accounts->end())
            return refuse("not authorized: the grid-mapfile does not map " + quoted(subject_) + " to '" + name + "'");
        base::Result<Account> account = account_lookup(name);
        if (!account) return refuse(account.error());
        const bool root = ::geteuid() == 0;
        if (account->ids.uid == 0) return refuse("not authorized: the grid-mapfile maps to root, which never runs jobs");
        if (!root && account->ids.uid != ::geteuid())
            return refuse("not authorized: this gatekeeper runs as '" + own_account_name() +
                          "' and can start processes only as that account, not as '" + name + "'");
        const job::AdapterInfo* info = job::adapter_find(m.adapter);
        if (info == nullptr || !gk_.config().offers(m.adapter))
            return refuse("this site does not offer the '" + m.adapter + "' adapter");
        if (gk_.subjobs_held() >= gk_.config().max_jobs)
            return refuse("this site already runs its limit of " + std::to_string(gk_.config().max_jobs) + " subjobs");
        const int per_user = gk_.config().max_jobs_per_user;
        if (per_user > 0 && gk_.subjobs_held_by(subject_) >= per_user)
            return refuse("this site already runs its limit of " + std::to_string(per_user) + " subjobs for " +
                          quoted(subject_));

        accepted_ = true;
        record_name_ = "subjob-" + std::to_string(::time(nullptr)) + "-" + std::to_string(::getpid()) + "-" +
                       std::to_string(id_);
        record_.subject = subject_;
        record_.account = name;
        record_.adapter = m.adapter;
        record_save();
        log("subjob " + std::to_string(m.subjob) + ": ranks " + std::to_string(m.first_rank) + ".." +
            std::to_string(m.first_rank + m.count - 1) + " of '" + m.command.program + "' as '" + name + "' via " + m.adapter);
        adapter_info_ = info;
        subjob_.index = static_cast<int>(m.subjob);
        subjob_.contact = job::kLocalContact;
        subjob_.count = static_cast<int>(m.count);
        subjob_.first_rank = static_cast<int>(m.first_rank);
        spec_.command = m.command;
        // Before the job's variables (wire-up included): what a login of the
        // account would have and the site's additions; nothing of our own
        // environment.
        job::Environment login = {{"HOME", account->home}, {"USER", name},        {"LOGNAME", name},
                                  {"SHELL", account->shell}, {"PATH", kLoginPath}};
        login.insert(login.end(), gk_.config().environment.begin(), gk_.config().environment.end());
        spec_.command.env.insert(spec_.command.env.begin(), login.begin(), login.end());
        spec_.inherit_environment = false;
        // As Globus GRAM: without a directory, processes start in the home
        // directory (in the job's directory when it stages files).
        if (spec_.command.directory.empty()) spec_.command.directory = account->home;
        if (root) spec_.run_as = account->ids;
        if (m.has_stdin) {
            int fds[2];
            if (::pipe2(fds, O_CLOEXEC) == 0) {
                spec_.stdin_fd = fds[0];
                stdin_ = std::make_unique<asio::posix::stream_descriptor>(conn_->stream().get_executor(), fds[1]);
            }
        }
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
        if (base::Status s = stage_open(m, *account); !s) return refuse(s.error());
        if (m.command.directory.empty()) spec_.command.directory = job_dir_;
        if (m.stage_program) spec_.command.program = job_dir_ + "/" + m.stage.front().name;
        on_subjob_state(subjob_.index, adapters::JobState::pending,
                        "staging " + std::to_string(m.stage.size()) + " file(s), " + std::to_string(total) + " bytes");
        stage_check();  // empty files are complete already
    }

    void launch() {
        if (awaiting_delegation_) {
            launch_ready_ = true;
            return;
        }
        // Everything this process writes there is written: only now may the
        // account change what is in it.
        if (!job_dir_.empty() && ::geteuid() == 0) {
            if (base::Status s = job_fd_.give(owner_.uid, owner_.gid); !s) return refuse(s.error());
        }
        adapter_ = adapters::adapter_make(adapter_info_->kind, gk_.io(), {gk_.config().scratch});
        adapter_->start(subjob_, std::move(spec_), *this);
    }

    // Makes the per-job directory (mode 0700) once. It stays this process's
    // until launch(), which gives it to the account: the staged files and
    // the proxy are written before the account can touch anything there.
    base::Status job_dir_make(const Account& account) {
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
    base::Status delegation_ask(const Account& account) {
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
    void delegation_received(const gram::Delegation& d) {
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
            " proxy for " + quoted(subject_) + ", valid until " +
            security::asn1_time_text(X509_get0_notAfter(cred.value().cert.get())) + ": " + path);
        awaiting_delegation_ = false;
        if (launch_ready_) launch();
    }

    // Makes the per-job directory and opens the files.
    base::Status stage_open(const gram::Submit& m, const Account& account) {
        if (base::Status s = job_dir_make(account); !s) return s;
        for (const gram::StagedFile& f : m.stage) {
            Staged s;
            s.file = f;
            s.path = job_dir_ + "/" + f.name;
            base::Result<base::UniqueFd> fd = job_fd_.file_create(f.name, 0600);
            if (!fd) return fd.failure();
            s.fd = fd->release();
            staged_.push_back(std::move(s));
        }
        return {};
    }

    void stage_data(const gram::StageData& d) {
        std::size_t at = 0;
        while (at < d.bytes.size()) {
            while (stage_at_ < staged_.size() && staged_[stage_at_].received == staged_[stage_at_].file.size)
                ++stage_at_;
            if (stage_at_ == staged_.size()) return refuse("more staged data than the request announced");
            Staged& s = staged_[stage_at_];
            const std::size_t n = std::min<std::size_t>(d.bytes.size() - at, s.file.size - s.received);
            for (std::size_t done = 0; done < n;) {
                const ssize_t w = ::write(s.fd, d.bytes.data() + at + done, n - done);
                if (w < 0 && errno == EINTR) continue;
                if (w <= 0) return refuse("cannot write " + s.path + ": " + std::strerror(errno));
                done += static_cast<std::size_t>(w);
            }
            s.sha.update(d.bytes.data() + at, n);
            s.received += static_cast<std::uint32_t>(n);
            at += n;
        }
        stage_check();
    }

    // Starts the subjob once every staged file is complete and intact.
    void stage_check() {
        for (const Staged& s : staged_)
            if (s.received < s.file.size) return;
        for (Staged& s : staged_) {
            if (s.fd < 0) continue;
            const std::string got = s.sha.hex();
            const bool owned = ::geteuid() != 0 || ::fchown(s.fd, owner_.uid, owner_.gid) == 0;
            // Never setuid, setgid or sticky.
            const bool moded = ::fchmod(s.fd, s.file.mode & 0777) == 0;
            ::close(s.fd);
            s.fd = -1;
            if (got != s.file.sha256)
                return refuse("the staged file '" + s.file.name + "' arrived damaged (SHA-256 " + got + ", expected " +
                              s.file.sha256 + ")");
            if (!owned || !moded) return refuse("cannot set the owner and mode of " + s.path + ": " + std::strerror(errno));
        }
        log("staged " + std::to_string(staged_.size()) + " file(s) into " + job_dir_);
        launch();
    }

    void write_stdin() {
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

    void close_stdin() {
        boost::system::error_code ec;
        if (stdin_) stdin_->close(ec);
        stdin_.reset();
    }

    // Refuses the request: the reason goes back as State FAILED, then the
    // connection closes.
    void refuse(const std::string& reason) {
        log("refused: " + reason);
        finish_failed(reason);
    }

    // The subjob is over as FAILED: whatever runs is killed, mpirun hears why.
    void finish_failed(const std::string& reason) {
        if (adapter_) adapter_->cancel(adapters::CancelMode::kill);
        send(gram::encode(gram::State{adapters::JobState::failed, reason}));
        final_sent_ = true;
        maybe_end();
    }

    // Nothing follows the final state (a subjob killed after a refusal still
    // reports its exits to us).
    void send(std::vector<std::uint8_t> frame) {
        if (closed_ || final_sent_) return;
        conn_->send(std::move(frame));
    }

    void connection_lost(const std::string& why) {
        if (!final_sent_) log("connection lost (" + why + ")" + (adapter_ ? "; killing the subjob" : ""));
        if (adapter_) adapter_->cancel(adapters::CancelMode::kill);
        close();
    }

    // After the final state: stop sending and wait for mpirun to close, so it
    // reads the state even if it was still sending (closing at once could
    // reset the connection and lose it); a peer that never closes is dropped.
    void drain() {
        draining_ = true;
        conn_->shutdown_after_drain();
        timer_.expires_after(std::chrono::seconds(gk_.config().handshake_timeout_s));
        auto self = shared_from_this();
        timer_.async_wait([this, self](const boost::system::error_code& tec) {
            if (tec != asio::error::operation_aborted) close();
        });
    }

    void close() {
        if (closed_) return;
        closed_ = true;
        timer_.cancel();
        conn_->close();
        close_stdin();
        maybe_end();
    }

    // The session ends when the connection is finished with and no process
    // of the subjob is left.
    void maybe_end() {
        if (final_sent_ && !closed_ && !draining_ && conn_->idle()) drain();
        if (ended_ || !closed_ || running()) return;
        ended_ = true;
        // Later: the gatekeeper drops its reference, possibly destroying us.
        asio::post(conn_->stream().get_executor(), [gk = &gk_, id = id_] { gk->session_ended(id); });
    }

    Gatekeeper& gk_;
    std::uint64_t id_;
    std::shared_ptr<asio::ssl::context> tls_;  // outlives conn_'s stream, which uses it
    std::string peer_;
    std::string peer_address_;
    std::string subject_;
    base::Status proxy_check_;  // fails when the client's proxy chain may not start jobs
    std::string presented_;     // the subject of a certificate the handshake refused
    std::shared_ptr<Connection> conn_;
    asio::steady_timer timer_;
    bool submitted_ = false;
    bool accepted_ = false;  // authorized and within the limits
    bool final_sent_ = false;
    bool draining_ = false;
    bool closed_ = false;
    bool ended_ = false;
    struct Staged {
        gram::StagedFile file;
        std::string path;
        int fd = -1;
        std::uint32_t received = 0;
        security::Sha256 sha;
    };

    job::Subjob subjob_;
    adapters::LaunchSpec spec_;
    base::DirFd job_fd_;   // the job directory, reached only through its descriptor
    std::string job_dir_;  // its path (staged files, the proxy); removed with the session
    std::vector<Staged> staged_;
    std::size_t stage_at_ = 0;
    adapters::RunAs owner_;
    security::PkeyPtr delegation_key_;  // its public half went to mpirun; it never leaves
    bool awaiting_delegation_ = false;
    bool launch_ready_ = false;  // launch() came while the delegation was awaited
    const job::AdapterInfo* adapter_info_ = nullptr;  // set once accepted
    std::string record_name_;  // set once accepted
    SubjobRecord record_;
    bool record_written_ = false;
    std::unique_ptr<adapters::SchedulerAdapter> adapter_;
    std::unique_ptr<asio::posix::stream_descriptor> stdin_;
    std::deque<std::string> stdin_queue_;
    bool stdin_eof_ = false;
};

namespace {

std::string names_text(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

}  // namespace

Gatekeeper::Gatekeeper(asio::io_context& io, Config config, GridMap gridmap, Log log)
    : io_(io),
      config_(std::move(config)),
      gridmap_(std::move(gridmap)),
      log_(std::move(log)),
      acceptor_(io),
      accept_timer_(io) {}

Gatekeeper::~Gatekeeper() = default;

base::Status Gatekeeper::open() {
    base::Result<RecordStore> records = RecordStore::open(config_.state_dir);
    if (!records) return records.failure();
    records_ = std::move(*records);
    // Subjobs an earlier run left (it died without cleaning up) go first.
    records_reclaim(*records_, config_.scratch, log_);
    // Stamped before the context reads anything, so a change in between is seen later.
    security::CaDirStamp trust = security::ca_dir_stamp(config_.ca_dir);
    auto ctx = security::tls_context_make(security::TlsRole::server, {config_.cert, config_.key, config_.ca_dir});
    if (!ctx.ok()) return ctx.failure();
    tls_ = std::move(ctx.value());
    tls_trust_ = std::move(trust);
    boost::system::error_code ec;
    tcp::endpoint ep;
    if (config_.listen.empty()) {
        ep = tcp::endpoint(asio::ip::address_v4::any(), static_cast<unsigned short>(config_.port));
    } else {
        const asio::ip::address a = asio::ip::make_address(config_.listen, ec);
        if (ec) return base::Error{"'" + config_.listen + "' is not an address to listen on"};
        ep = tcp::endpoint(a, static_cast<unsigned short>(config_.port));
    }
    acceptor_.open(ep.protocol(), ec);
    if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor_.bind(ep, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (!ec) port_ = acceptor_.local_endpoint(ec).port();
    if (ec) {
        return base::Error{"cannot listen on " + ep.address().to_string() + ":" + std::to_string(config_.port) + ": " +
                           ec.message()};
    }
    ::fcntl(acceptor_.native_handle(), F_SETFD, FD_CLOEXEC);
    accept_next();
    return {};
}

base::Status Gatekeeper::reload(const std::string& config_path) {
    base::Result<Config> config = Config::load(config_path);
    if (!config) return config.failure();
    base::Result<GridMap> gridmap = GridMap::load(config->gridmap);
    if (!gridmap) return gridmap.failure();
    security::CaDirStamp trust = security::ca_dir_stamp(config->ca_dir);
    auto ctx = security::tls_context_make(security::TlsRole::server, {config->cert, config->key, config->ca_dir});
    if (!ctx.ok()) return ctx.failure();
    // The socket is bound: these would need a new listener, and mpiruns know the old address.
    if (config->listen != config_.listen || config->port != config_.port) {
        boost::system::error_code ec;
        const tcp::endpoint at = acceptor_.local_endpoint(ec);
        log("the new listen address or port (" + (config->listen.empty() ? "every interface" : config->listen) +
            ", port " + std::to_string(config->port) + ") takes effect only at a restart; still listening on " +
            (ec ? "port " + std::to_string(port_) : at.address().to_string() + ":" + std::to_string(at.port())));
        config->listen = config_.listen;
        config->port = config_.port;
    }
    config_ = std::move(*config);
    gridmap_ = std::move(*gridmap);
    tls_ = std::move(ctx.value());
    tls_trust_ = std::move(trust);
    return {};
}

void Gatekeeper::trust_refresh() {
    security::CaDirStamp now = security::ca_dir_stamp(config_.ca_dir);
    if (now == tls_trust_) return;
    const std::string changed = names_text(now.changed_since(tls_trust_));
    auto ctx = security::tls_context_make(security::TlsRole::server, {config_.cert, config_.key, config_.ca_dir});
    if (!ctx.ok()) {
        // Tried again at the next connection, which may find the files complete.
        log("the trusted-CA directory changed (" + changed + ") but cannot be used: " + ctx.error() +
            "; keeping the previous certificates and revocation lists");
        return;
    }
    tls_ = std::move(ctx.value());
    tls_trust_ = std::move(now);
    log("the trusted-CA directory changed (" + changed +
        "); new connections use its certificates and revocation lists");
}

void Gatekeeper::accept_next() {
    acceptor_.async_accept([this](const boost::system::error_code& ec, tcp::socket socket) {
        if (ec == asio::error::operation_aborted || shutting_down_) return;
        // Out of descriptors or memory, accepting again at once would fail
        // again at once: wait, longer each time, until a connection gets in.
        if (ec == asio::error::no_descriptors || ec.value() == ENFILE || ec == asio::error::no_buffer_space ||
            ec == asio::error::no_memory) {
            accept_backoff_ = std::min(std::chrono::milliseconds(2000),
                                       std::max(std::chrono::milliseconds(50), accept_backoff_ * 2));
            if (accept_backoff_ == std::chrono::milliseconds(50))
                log("cannot accept connections: " + ec.message() + "; retrying, less often while it lasts");
            accept_timer_.expires_after(accept_backoff_);
            accept_timer_.async_wait([this](const boost::system::error_code& tec) {
                if (!tec && acceptor_.is_open() && !shutting_down_) accept_next();
            });
            return;
        }
        if (!ec) {
            if (accept_backoff_.count() > 0) log("accepting connections again");
            accept_backoff_ = std::chrono::milliseconds(0);
            ::fcntl(socket.native_handle(), F_SETFD, FD_CLOEXEC);
            boost::system::error_code ignored;
            socket.set_option(tcp::no_delay(true), ignored);
            base::socket_keepalive(socket.native_handle());
            trust_refresh();
            const std::uint64_t id = next_id_++;
            auto s = std::make_shared<Session>(*this, id, std::move(socket), tls_);
            sessions_.emplace(id, s);
            s->start();
        }
        if (acceptor_.is_open()) accept_next();
    });
}

void Gatekeeper::log_from(const std::string& address, const std::string& line) {
    constexpr int kLines = 20;  // a minute, per address
    const auto now = std::chrono::steady_clock::now();
    if (peer_logs_.size() > 4096) {
        std::erase_if(peer_logs_, [&](const auto& e) { return now - e.second.window > std::chrono::minutes(1); });
    }
    PeerLog& p = peer_logs_[address];
    if (now - p.window > std::chrono::minutes(1)) {
        if (p.dropped > 0)
            log("dropped " + std::to_string(p.dropped) + " log line(s) about unauthenticated connections from " +
                address + " in the minute before");
        p = PeerLog{now, 0, 0};
    }
    if (++p.lines <= kLines) return log(line);
    if (p.dropped++ == 0)
        log("too many unauthenticated connections from " + address + ": their lines are dropped for the rest of "
            "this minute");
}

int Gatekeeper::subjobs_held() const {
    int n = 0;
    for (const auto& [id, s] : sessions_) n += s->holds_subjob() ? 1 : 0;
    return n;
}

int Gatekeeper::subjobs_held_by(const std::string& subject) const {
    int n = 0;
    for (const auto& [id, s] : sessions_) n += s->holds_subjob() && s->subject() == subject ? 1 : 0;
    return n;
}

void Gatekeeper::session_ended(std::uint64_t id) {
    sessions_.erase(id);
    if (shutting_down_ && sessions_.empty() && stopped_) std::exchange(stopped_, nullptr)();
}

void Gatekeeper::shutdown(std::function<void()> stopped) {
    shutting_down_ = true;
    stopped_ = std::move(stopped);
    boost::system::error_code ec;
    acceptor_.close(ec);
    const auto sessions = sessions_;
    for (const auto& [id, s] : sessions) s->kill("site shutting down");
    // Never from inside this call: the caller is still in its signal handler.
    if (sessions_.empty())
        asio::post(io_, [this] {
            if (stopped_) std::exchange(stopped_, nullptr)();
        });
}

}  // namespace strata::gatekeeper
