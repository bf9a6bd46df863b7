#include "launcher/gatekeeper_adapter.hpp"

#include "adapters/fork_adapter.hpp"
#include "base/keepalive.hpp"
#include "base/knob.hpp"
#include "gram/gram.hpp"
#include "security/digest.hpp"
#include "security/proxy.hpp"
#include "security/tls.hpp"
#include "wireup/environment.hpp"
#include "wireup/pipe_stream.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/write.hpp>

#include <arpa/inet.h>
#include <openssl/ssl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace strata::launcher {

namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

const base::KnobInt kConnectMs("STRATA_GATEKEEPER_TIMEOUT_MS", 20000,
                               "how long mpirun waits to reach a gatekeeper and finish the TLS handshake (at an ssh site: "
                               "for the remote gatekeeper's first message)");
const base::KnobString kDelegation(
    "STRATA_DELEGATION", "limited",
    "the proxy mpirun delegates to each site for its processes (X509_USER_PROXY there): limited (they can "
    "authenticate as you but start no jobs), full (an impersonation proxy) or none");
const base::KnobInt kDelegationHours("STRATA_DELEGATION_HOURS", 12,
                                     "lifetime of a delegated proxy, in hours (never beyond your own credential)");

bool is_address(const std::string& host) {
    unsigned char buf[sizeof(in6_addr)];
    return ::inet_pton(AF_INET, host.c_str(), buf) == 1 || ::inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

}  // namespace

base::Result<std::shared_ptr<asio::ssl::context>> GatekeeperTls::context(const job::Subjob& subjob) {
    if (tls_) return tls_;
    auto cred = security::user_credential_find();
    if (!cred.ok()) return cred.failure();
    auto ctx = security::tls_context_make(security::TlsRole::client, cred.value());
    if (!ctx.ok()) {
        return base::Error{"subjob " + std::to_string(subjob.index) + " (" + subjob.contact +
                           ") needs your grid credential: " + ctx.error() +
                           " (strata-ca user makes one; X509_USER_CERT, X509_USER_KEY and X509_CERT_DIR name "
                           "other files)"};
    }
    tls_ = std::move(ctx.value());
    return tls_;
}

GatekeeperAdapter::GatekeeperAdapter(asio::io_context& io, job::Contact contact, std::shared_ptr<asio::ssl::context> tls)
    : io_(io), contact_(std::move(contact)), tls_(std::move(tls)), resolver_(io), connect_timer_(io) {
    tls_conn_ = TlsConnection::make(gram::frame_splitter(), handlers(), io, *tls_);
    conn_ = tls_conn_;
}

GatekeeperAdapter::GatekeeperAdapter(asio::io_context& io, job::Contact contact,
                                     std::function<void(const std::string&)> log)
    : io_(io), contact_(std::move(contact)), resolver_(io), ssh_log_(std::move(log)), connect_timer_(io) {}

GatekeeperAdapter::~GatekeeperAdapter() {
    boost::system::error_code ec;
    if (conn_) conn_->close();
    if (stdin_) stdin_->close(ec);
    ssh_.reset();  // after its pipes closed: ssh ends the session, the site's gatekeeper the subjob
}

codec::FrameHandlers GatekeeperAdapter::handlers() {
    codec::FrameHandlers h;
    h.frame = [this](const base::wire::RawFrame& f) { handle_frame(f); };
    // Over TLS the stream uses the context: it lives as long as the connection does.
    h.ended = [this, tls = tls_](const codec::FrameEnd& e) { on_ended(e); };
    h.drained = [this] { stage_next(); };
    return h;
}

std::string GatekeeperAdapter::where() const {
    if (contact_.transport == job::Transport::srun) return "Slurm node " + contact_.host;
    if (contact_.transport == job::Transport::ssh)
        return "ssh site " + (contact_.user.empty() ? "" : contact_.user + "@") + contact_.host;
    return "gatekeeper " + contact_.host + ":" + std::to_string(contact_.port);
}

void GatekeeperAdapter::start(const job::Subjob& subjob, adapters::LaunchSpec spec, adapters::ProcessEvents& events) {
    subjob_ = subjob;
    spec_ = std::move(spec);
    events_ = &events;
    phase_ = Phase::connecting;
    if (spec_.stdin_fd >= 0) {
        stdin_ = std::make_unique<asio::posix::stream_descriptor>(io_);
        boost::system::error_code ec;
        stdin_->assign(spec_.stdin_fd, ec);
        if (ec) {
            // Not pollable (a regular file): rank 0 gets an empty stdin.
            ::close(spec_.stdin_fd);
            stdin_.reset();
        }
        spec_.stdin_fd = -1;
    }
    connect_timer_.expires_after(std::chrono::milliseconds(kConnectMs.get()));
    connect_timer_.async_wait([this](const boost::system::error_code& ec) {
        if (ec == asio::error::operation_aborted || hello_ || phase_ == Phase::finished) return;
        finish("no answer from " + where() + " within " + std::to_string(kConnectMs.get()) +
               " ms (STRATA_GATEKEEPER_TIMEOUT_MS)");
    });
    if (contact_.transport != job::Transport::gatekeeper) return ssh_start();
    resolver_.async_resolve(contact_.host, std::to_string(contact_.port),
                            [this](const boost::system::error_code& ec, tcp::resolver::results_type results) {
                                on_resolved(ec, std::move(results));
                            });
}

void GatekeeperAdapter::on_resolved(const boost::system::error_code& ec, tcp::resolver::results_type results) {
    if (phase_ != Phase::connecting) return;
    if (ec) {
        finish("cannot resolve " + contact_.host + ": " + ec.message());
        return;
    }
    asio::async_connect(tls_conn_->stream().lowest_layer(), results,
                        [this](const boost::system::error_code& cec, const tcp::endpoint&) { on_connected(cec); });
}

void GatekeeperAdapter::on_connected(const boost::system::error_code& ec) {
    if (phase_ != Phase::connecting) return;
    if (ec) {
        finish("cannot reach " + where() + ": " + ec.message() + " (is strata-gatekeeper running there?)");
        return;
    }
    boost::system::error_code ignored;
    tls_conn_->stream().lowest_layer().set_option(tcp::no_delay(true), ignored);
    base::socket_keepalive(tls_conn_->stream().lowest_layer().native_handle());
    // The gatekeeper must prove it is the host the contact names.
    tls_conn_->stream().set_verify_callback([this, check = asio::ssl::host_name_verification(contact_.host)](
                                                bool preverified, asio::ssl::verify_context& ctx) mutable {
        preverified = security::tls_verify_step(preverified, ctx.native_handle());
        const bool ok = check(preverified, ctx);
        // The chain was fine but the name was not: say so, not "unspecified".
        if (preverified && !ok) host_mismatch_ = true;
        return ok;
    });
    if (!is_address(contact_.host)) SSL_set_tlsext_host_name(tls_conn_->stream().native_handle(), contact_.host.c_str());
    tls_conn_->stream().async_handshake(asio::ssl::stream_base::client,
                                        [this](const boost::system::error_code& hec) { on_handshake(hec); });
}

void GatekeeperAdapter::on_handshake(const boost::system::error_code& ec) {
    if (phase_ != Phase::connecting) return;
    if (ec) {
        finish(handshake_failure(ec));
        return;
    }
    submit();
}

void GatekeeperAdapter::ssh_start() {
    int read_fd = -1;
    int write_fd = -1;
    const char* slurm_job = std::getenv("SLURM_JOB_ID");
    if (contact_.transport == job::Transport::srun && slurm_job == nullptr)
        return finish(where() + " is a node of a Slurm allocation, and SLURM_JOB_ID is not set");
    const std::vector<std::string> argv =
        contact_.transport == job::Transport::srun
            ? srun_command(contact_, slurm_job, subjob_.strata.empty() ? gatekeeper_beside_mpirun()
                                                                       : subjob_.strata + "/bin/strata-gatekeeper")
            : ssh_command(ssh_client(), contact_, subjob_.strata);
    auto channel = StdioChannel::start(io_, argv, read_fd, write_fd, [this](const std::string& line) {
        if (ssh_log_) ssh_log_(line);
    });
    const char* tool = contact_.transport == job::Transport::srun ? "srun" : "ssh";
    if (!channel) return finish(std::string("cannot start ") + tool + " for " + where() + ": " + channel.error());
    ssh_ = std::move(*channel);
    conn_ = codec::FramedConnection<codec::PipeStream>::make(gram::frame_splitter(), handlers(), io_, read_fd, write_fd);
    submit();
}

void GatekeeperAdapter::submit() {
    phase_ = Phase::submitted;
    gram::Submit m;
    m.subjob = static_cast<std::uint32_t>(subjob_.index);
    m.first_rank = static_cast<std::uint32_t>(subjob_.first_rank);
    m.count = static_cast<std::uint32_t>(subjob_.count);
    m.adapter = job::adapter_name(contact_.adapter);
    m.command = spec_.command;
    m.batch = spec_.batch;
    m.relay = subjob_.network_private;
    m.hub_port = spec_.relay_hub_port;
    if (tls_conn_) {
        boost::system::error_code lec;
        const tcp::endpoint local = tls_conn_->stream().lowest_layer().local_endpoint(lec);
        for (auto& [name, value] : m.command.env)
            if (name == wireup::env::kWireup && !lec) value = wireup::wireup_at(local.address().to_string(), value);
        m.account = subjob_.account;
        m.delegation = kDelegation.get();
    }
    if (!tls_conn_ && !subjob_.account.empty()) {
        // ssh or srun chose the login: `account` is the scheduler's, as `project` is.
        if (!m.batch.project.empty() && m.batch.project != subjob_.account) {
            finish("subjob " + std::to_string(subjob_.index) + " names the account '" + subjob_.account +
                   "' and the project '" + m.batch.project + "'; at an ssh site both are the scheduler's account: "
                   "give one");
            return;
        }
        m.batch.project = subjob_.account;
    }
    m.has_stdin = stdin_ != nullptr;
    if (m.delegation != "none" && m.delegation != "limited" && m.delegation != "full") {
        finish("STRATA_DELEGATION='" + m.delegation + "': expected limited, full or none");
        return;
    }
    if (subjob_.stage) {
        if (base::Status staged = stage_prepare(m.stage); !staged) {
            finish(staged.error());
            return;
        }
        m.stage_program = true;
        m.command.program = m.stage.front().name;
    }
    conn_->send(gram::encode(gram::Hello{gram::version()}));
    conn_->send(gram::encode(m));
    stage_next();
    conn_->start();
    if (stdin_) pump_stdin();
}

bool GatekeeperAdapter::hello(const gram::Hello& m) {
    if (m.version != gram::version()) {
        finish(where() + " runs Strata " + m.version + " but this mpirun is Strata " + gram::version() +
               "; use the same version at both ends");
        return false;
    }
    hello_ = true;
    connect_timer_.cancel();
    return true;
}

std::string GatekeeperAdapter::handshake_failure(const boost::system::error_code& ec) {
    if (host_mismatch_)
        return "TLS handshake with " + where() + " failed: its certificate does not name " + contact_.host;
    const base::Status verified = security::tls_verify_status(tls_conn_->stream().native_handle());
    if (!verified) return "TLS handshake with " + where() + " failed: its certificate was refused: " + verified.error();
    // The site's alert says what it thought of our certificate.
    std::string hint = " (does the site trust the CA that signed your certificate?)";
    if (ec.category() == asio::error::get_ssl_category()) {
        switch (ERR_GET_REASON(static_cast<unsigned long>(ec.value()))) {
            case SSL_R_TLSV1_ALERT_UNKNOWN_CA: break;
            case SSL_R_SSLV3_ALERT_CERTIFICATE_REVOKED:
                hint = " (your certificate is on its CA's revocation list; ask the CA for a new one)";
                break;
            case SSL_R_SSLV3_ALERT_CERTIFICATE_EXPIRED: hint = " (your certificate or proxy has expired)"; break;
            case SSL_R_TLSV1_ALERT_DECRYPT_ERROR:
                hint = " (a signature in your certificate chain does not verify: it is damaged or forged)";
                break;
            default: hint = " (the site refused your credential; its gatekeeper log says why)"; break;
        }
    }
    return "TLS handshake with " + where() + " failed: " + ec.message() + hint;
}

base::Status GatekeeperAdapter::stage_prepare(std::vector<gram::StagedFile>& files) {
    std::vector<std::string> paths;
    if (spec_.command.program.find('/') != std::string::npos) {
        paths.push_back(spec_.command.program);
    } else {
        const char* path_env = std::getenv("PATH");
        const base::Result<std::string> found = adapters::ForkAdapter::resolve_program(spec_.command.program, path_env ? path_env : "");
        if (!found) return base::Error{"cannot stage '" + spec_.command.program + "': " + found.error()};
        paths.push_back(*found);
    }
    paths.insert(paths.end(), subjob_.stage_files.begin(), subjob_.stage_files.end());
    for (const std::string& path : paths) {
        struct stat st;
        if (::stat(path.c_str(), &st) != 0) return base::Error{"cannot stage '" + path + "': " + std::strerror(errno)};
        if (!S_ISREG(st.st_mode)) return base::Error{"cannot stage '" + path + "': not a regular file"};
        if (st.st_size > 0xFFFFFFFFLL) return base::Error{"cannot stage '" + path + "': larger than 4 GiB"};
        auto in = std::make_unique<std::ifstream>(path, std::ios::binary);
        if (!*in) return base::Error{"cannot stage '" + path + "': " + std::strerror(errno)};
        gram::StagedFile f;
        const std::size_t slash = path.rfind('/');
        f.name = slash == std::string::npos ? path : path.substr(slash + 1);
        for (const gram::StagedFile& g : files)
            if (g.name == f.name)
                return base::Error{"cannot stage '" + path + "': another staged file is also named '" + f.name + "'"};
        f.mode = st.st_mode & 0777;
        security::Sha256 sha;
        std::array<char, 65536> chunk{};
        std::uint64_t size = 0;
        while (*in) {
            in->read(chunk.data(), chunk.size());
            sha.update(chunk.data(), static_cast<std::size_t>(in->gcount()));
            size += static_cast<std::uint64_t>(in->gcount());
        }
        if (in->bad() || size > 0xFFFFFFFFULL) return base::Error{"cannot stage '" + path + "': read error"};
        f.size = static_cast<std::uint32_t>(size);
        f.sha256 = sha.hex();
        in->clear();
        in->seekg(0);
        stage_left_.push_back(f.size);
        files.push_back(std::move(f));
        stage_files_.push_back(std::move(in));
    }
    return {};
}

void GatekeeperAdapter::stage_next() {
    while (phase_ == Phase::submitted && stage_at_ < stage_files_.size()) {
        std::uint32_t& left = stage_left_[stage_at_];
        if (left == 0) {
            stage_files_[stage_at_].reset();
            ++stage_at_;
            continue;
        }
        std::ifstream& in = *stage_files_[stage_at_];
        std::string chunk(std::min<std::size_t>(gram::kStageChunk, left), '\0');
        in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
        if (static_cast<std::size_t>(in.gcount()) != chunk.size()) {
            finish("a staged file became shorter while it was being sent; nothing was started");
            return;
        }
        left -= static_cast<std::uint32_t>(chunk.size());
        // One chunk in flight: the next is read when this one is written.
        conn_->send(gram::encode(gram::StageData{std::move(chunk)}));
        return;
    }
}

void GatekeeperAdapter::on_ended(const codec::FrameEnd& e) {
    if (e.malformed) return finish(where() + " sent a malformed message" + malformed_hint());
    if (ssh_) {
        // ssh ended, or is ending: its status and last words say why.
        conn_->close();
        const std::string destination = (contact_.user.empty() ? "" : contact_.user + "@") + contact_.host;
        ssh_->when_exited([this, destination](const ChannelExit& how) {
            const std::string tool = contact_.transport == job::Transport::srun ? "srun" : "ssh";
            finish(cancel_sent_ ? "cancelled" : channel_failure(tool, destination, how, ssh_->stderr_tail(), hello_));
        });
        return;
    }
    // With TLS 1.3 the site judges our certificate after our side of the
    // handshake completed: its refusal arrives as the first read.
    if (!e.write && !conn_->heard() && e.error.category() == asio::error::get_ssl_category())
        finish(handshake_failure(e.error));
    else
        finish(cancel_sent_ ? "cancelled" : "lost the connection to " + where() + ": " + e.error.message());
}

std::string GatekeeperAdapter::malformed_hint() const {
    return ssh_ && !hello_ ? " (does a login script there write to standard output?)" : "";
}

void GatekeeperAdapter::handle_frame(const base::wire::RawFrame& frame) {
    auto malformed = [&] { finish(where() + " sent a malformed message" + malformed_hint()); };
    const auto type = static_cast<gram::Type>(frame.type);
    if (type == gram::Type::hello) {
        const auto m = base::wire::decode<gram::Hello>(frame.payload);
        if (!m || hello_) return malformed();
        hello(*m);
        return;
    }
    if (!hello_) return malformed();
    const int first = subjob_.first_rank;
    auto rank_ok = [&](std::uint32_t rank) {
        return rank >= static_cast<std::uint32_t>(first) && rank < static_cast<std::uint32_t>(first + subjob_.count);
    };
    switch (type) {
        case gram::Type::state: {
            const auto m = base::wire::decode<gram::State>(frame.payload);
            if (!m) return malformed();
            if (m->state == adapters::JobState::done || m->state == adapters::JobState::failed) {
                phase_ = Phase::finished;
                conn_->close();
                boost::system::error_code ec;
                if (stdin_) stdin_->close(ec);
            }
            events_->on_subjob_state(subjob_.index, m->state, m->detail);
            return;
        }
        case gram::Type::started: {
            const auto m = base::wire::decode<gram::Started>(frame.payload);
            if (!m || !rank_ok(m->rank)) return malformed();
            events_->on_started(static_cast<int>(m->rank), m->pid);
            return;
        }
        case gram::Type::start_failed: {
            const auto m = base::wire::decode<gram::StartFailed>(frame.payload);
            if (!m || !rank_ok(m->rank)) return malformed();
            events_->on_start_failed(static_cast<int>(m->rank), m->reason);
            return;
        }
        case gram::Type::output: {
            const auto m = base::wire::decode<gram::Output>(frame.payload);
            if (!m || !rank_ok(m->rank)) return malformed();
            events_->on_output(static_cast<int>(m->rank), m->stream, m->bytes);
            return;
        }
        case gram::Type::output_closed: {
            const auto m = base::wire::decode<gram::OutputClosed>(frame.payload);
            if (!m || !rank_ok(m->rank)) return malformed();
            events_->on_output_closed(static_cast<int>(m->rank), m->stream);
            return;
        }
        case gram::Type::exited: {
            const auto m = base::wire::decode<gram::Exited>(frame.payload);
            if (!m || !rank_ok(m->rank)) return malformed();
            events_->on_exited(static_cast<int>(m->rank), m->pid, m->how);
            return;
        }
        case gram::Type::delegation_request: {
            const auto m = base::wire::decode<gram::DelegationRequest>(frame.payload);
            if (!m || delegated_ || !tls_ || kDelegation.get() == "none") return malformed();
            delegated_ = true;
            return delegate(*m);
        }
        default: return malformed();
    }
}

void GatekeeperAdapter::delegate(const gram::DelegationRequest& m) {
    // Signed with the credential this connection authenticated with.
    SSL_CTX* ctx = tls_->native_handle();
    STACK_OF(X509)* extra = nullptr;
    SSL_CTX_get0_chain_certs(ctx, &extra);
    std::vector<X509*> chain;
    for (int i = 0; extra != nullptr && i < sk_X509_num(extra); ++i) chain.push_back(sk_X509_value(extra, i));
    const auto policy =
        kDelegation.get() == "full" ? security::ProxyPolicy::impersonation : security::ProxyPolicy::limited;
    auto pem = security::proxy_delegate(SSL_CTX_get0_certificate(ctx), SSL_CTX_get0_privatekey(ctx), chain,
                                        m.public_key_pem, policy,
                                        std::chrono::hours(std::max<std::int64_t>(1, kDelegationHours.get())));
    if (!pem.ok()) return finish("cannot delegate a proxy to " + where() + ": " + pem.error());
    conn_->send(gram::encode(gram::Delegation{std::move(pem.value())}));
}

void GatekeeperAdapter::pump_stdin() {
    stdin_->async_read_some(asio::buffer(stdin_buf_), [this](const boost::system::error_code& ec, std::size_t n) {
        if (ec == asio::error::operation_aborted || phase_ != Phase::submitted || !stdin_) return;
        if (ec || n == 0) {
            boost::system::error_code ignored;
            stdin_->close(ignored);
            stdin_.reset();
            conn_->send(gram::encode_stdin_closed());
            return;
        }
        conn_->send(gram::encode(gram::Stdin{std::string(stdin_buf_.data(), n)}));
        pump_stdin();
    });
}

void GatekeeperAdapter::cancel(adapters::CancelMode mode) {
    switch (phase_) {
        case Phase::idle:
        case Phase::finished: return;
        case Phase::connecting:
            // Nothing was submitted yet: dropping the attempt is the whole cancel.
            finish("cancelled before it was submitted");
            return;
        case Phase::submitted:
            cancel_sent_ = true;
            conn_->send(gram::encode(gram::Cancel{mode}));
            return;
    }
}

void GatekeeperAdapter::finish(const std::string& reason) {
    if (phase_ == Phase::finished) return;
    phase_ = Phase::finished;
    connect_timer_.cancel();
    resolver_.cancel();
    if (conn_) conn_->close();  // none when ssh could not be started
    boost::system::error_code ec;
    if (stdin_) stdin_->close(ec);
    events_->on_subjob_state(subjob_.index, adapters::JobState::failed, reason);
}

adapters::SubjobState GatekeeperAdapter::state() const {
    switch (phase_) {
        case Phase::idle: return adapters::SubjobState::idle;
        case Phase::finished: return adapters::SubjobState::done;
        default: return adapters::SubjobState::running;
    }
}

}  // namespace strata::launcher
