// The gatekeeper protocol: what mpirun and a site's strata-gatekeeper say to
// each other over their mutually authenticated TLS connection, or over the
// pipes of the ssh session that started a user-level gatekeeper (named after
// Globus GRAM, whose role it plays). Frames and messages as in base/wire.hpp:
// each message declares its fields, gram::encode frames it and
// base::wire::decode<M> reads its payload back.
//
//   both ways             Hello         the sender's Strata version, first
//   mpirun -> gatekeeper  Submit        one subjob, once, after the Hello
//   mpirun -> gatekeeper  StageData     the bytes of the files Submit says it stages, in order
//   gatekeeper -> mpirun  State         PENDING / ACTIVE / DONE / FAILED (+ detail)
//   gatekeeper -> mpirun  Started       a rank's process runs (its pid at the site)
//   gatekeeper -> mpirun  StartFailed   a rank could not be started, and why
//   gatekeeper -> mpirun  Output        a chunk of a rank's stdout or stderr
//   gatekeeper -> mpirun  OutputClosed  a rank's stream reached its end
//   gatekeeper -> mpirun  Exited        how a rank's process ended
//   mpirun -> gatekeeper  Stdin         bytes for rank 0 (only to the subjob holding it)
//   mpirun -> gatekeeper  StdinClosed   end of rank 0's stdin
//   mpirun -> gatekeeper  Cancel        end the subjob (terminate, or kill)
//   gatekeeper -> mpirun  DelegationRequest  a public key for the job's proxy
//   mpirun -> gatekeeper  Delegation    the proxy certificate for it, and its chain
//
// Staged files follow the Submit as StageData chunks, file after file; the
// gatekeeper starts the subjob once every file has all its bytes and its
// SHA-256 matches the Submit's.
//
// When the Submit asks for delegation, the gatekeeper answers an accepted
// Submit with a DelegationRequest and starts nothing before the Delegation
// came and verified (security/proxy.hpp); staging goes on meanwhile.
//
// Each side sends its Hello at once and refuses a peer whose version is not
// its own, naming both (the protocol changes between versions): mpirun
// reports it as the subjob's failure, the gatekeeper as State FAILED.
//
// A refused Submit (not authorized, bad request, unknown adapter) is answered
// with State FAILED and the reason, and the gatekeeper closes the connection.
// After State DONE or FAILED nothing more comes. If the connection drops, the
// gatekeeper kills the subjob's processes: no process outlives its mpirun.
#pragma once

#include "job/command.hpp"
#include "job/process_state.hpp"
#include "base/wire.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace strata::gram {

inline constexpr std::uint32_t kMaxFrame = 4u << 20;

enum class Type : std::uint8_t {
    submit = 1,
    state = 2,
    started = 3,
    start_failed = 4,
    output = 5,
    output_closed = 6,
    exited = 7,
    stdin_data = 8,
    stdin_closed = 9,
    cancel = 10,
    stage_data = 11,
    delegation_request = 12,
    delegation = 13,
    hello = 14,
};

// This build's version ("0.1.0"), as Hello carries it.
const char* version();

// Frames of any type of this protocol, up to `max_payload` bytes.
inline base::wire::FrameSplitter frame_splitter(std::uint32_t max_payload = kMaxFrame) {
    return base::wire::FrameSplitter(static_cast<std::uint8_t>(Type::submit), static_cast<std::uint8_t>(Type::hello),
                                max_payload);
}

// A file sent with the subjob, placed in its per-job directory at the site.
struct StagedFile {
    std::string name;  // a plain file name: no '/', not "." or ".."
    std::uint32_t mode = 0644;
    std::uint32_t size = 0;
    std::string sha256;  // lowercase hex of the content
};
constexpr auto wire_fields(std::type_identity<StagedFile>) {
    namespace w = base::wire;
    return std::tuple{w::field("name", &StagedFile::name), w::within("mode", &StagedFile::mode, 0u, 07777u),
                      w::field("size", &StagedFile::size), w::field("sha256", &StagedFile::sha256)};
}
std::string wire_check(const StagedFile& f);

// Chunks of staged files stay well below any gatekeeper's request limit.
inline constexpr std::size_t kStageChunk = 32 * 1024;

struct Submit {
    std::uint32_t subjob = 0;
    std::uint32_t first_rank = 0;
    std::uint32_t count = 0;
    std::string adapter;  // a name of job/adapter_table.hpp ("fork", "slurm")
    std::string account;  // local account asked for; empty: the grid-mapfile's first
    job::Command command;    // as the subjob gives it; the gatekeeper adds a login's variables
    bool has_stdin = false;  // rank 0 is in this subjob and stdin follows
    // Files StageData brings; the first is the program when `stage_program`.
    std::vector<StagedFile> stage;
    bool stage_program = false;
    // "none", "limited" (a limited proxy: authenticates as the user, starts
    // no jobs) or "full" (an impersonation proxy).
    std::string delegation = "none";
    job::Batch batch;  // queue, project, wall time, for the site's scheduler
    // The subjob's site is private: start a relay for its processes.
    bool relay = false;
    // mpirun's hub (relay/protocol.hpp), at the address of STRATA_WIREUP
    // with this port, through which the relay links to relays it cannot
    // dial; 0: none.
    std::uint16_t hub_port = 0;
};
constexpr auto wire_fields(std::type_identity<Submit>) {
    namespace w = base::wire;
    return std::tuple{w::field("subjob", &Submit::subjob),
                      w::field("first_rank", &Submit::first_rank),
                      w::field("count", &Submit::count),
                      w::field("adapter", &Submit::adapter),
                      w::field("account", &Submit::account),
                      w::field("command", &Submit::command),
                      w::field("has_stdin", &Submit::has_stdin),
                      w::field("stage", &Submit::stage),
                      w::field("stage_program", &Submit::stage_program),
                      w::field("delegation", &Submit::delegation),
                      w::field("batch", &Submit::batch),
                      w::field("relay", &Submit::relay),
                      w::field("hub_port", &Submit::hub_port)};
}
std::string wire_check(const Submit& m);

struct Hello {
    std::string version;
};
constexpr auto wire_fields(std::type_identity<Hello>) { return std::tuple{base::wire::field("version", &Hello::version)}; }
inline std::string wire_check(const Hello& m) { return m.version.empty() ? "no version" : ""; }

struct DelegationRequest {
    std::string public_key_pem;
};
constexpr auto wire_fields(std::type_identity<DelegationRequest>) {
    return std::tuple{base::wire::field("public_key_pem", &DelegationRequest::public_key_pem)};
}
inline std::string wire_check(const DelegationRequest& m) { return m.public_key_pem.empty() ? "no public key" : ""; }

struct Delegation {
    std::string certificates_pem;  // the proxy first, then its issuers
};
constexpr auto wire_fields(std::type_identity<Delegation>) {
    return std::tuple{base::wire::field("certificates_pem", &Delegation::certificates_pem)};
}
inline std::string wire_check(const Delegation& m) { return m.certificates_pem.empty() ? "no certificates" : ""; }

struct StageData {
    std::string bytes;
};
constexpr auto wire_fields(std::type_identity<StageData>) { return std::tuple{base::wire::field("bytes", &StageData::bytes)}; }

// Bytes for rank 0's standard input.
struct Stdin {
    std::string bytes;
};
constexpr auto wire_fields(std::type_identity<Stdin>) { return std::tuple{base::wire::field("bytes", &Stdin::bytes)}; }

struct State {
    job::JobState state = job::JobState::pending;
    std::string detail;
};
constexpr auto wire_fields(std::type_identity<State>) {
    namespace w = base::wire;
    return std::tuple{w::within("state", &State::state, job::JobState::pending, job::JobState::failed),
                      w::field("detail", &State::detail)};
}

struct Started {
    std::uint32_t rank = 0;
    std::uint32_t pid = 0;
};
constexpr auto wire_fields(std::type_identity<Started>) {
    return std::tuple{base::wire::field("rank", &Started::rank), base::wire::field("pid", &Started::pid)};
}

struct StartFailed {
    std::uint32_t rank = 0;
    std::string reason;
};
constexpr auto wire_fields(std::type_identity<StartFailed>) {
    return std::tuple{base::wire::field("rank", &StartFailed::rank), base::wire::field("reason", &StartFailed::reason)};
}

struct Output {
    std::uint32_t rank = 0;
    job::Stream stream = job::Stream::out;
    std::string bytes;
};
constexpr auto wire_fields(std::type_identity<Output>) {
    namespace w = base::wire;
    return std::tuple{w::field("rank", &Output::rank), w::within("stream", &Output::stream, job::Stream::out, job::Stream::err),
                      w::field("bytes", &Output::bytes)};
}

struct OutputClosed {
    std::uint32_t rank = 0;
    job::Stream stream = job::Stream::out;
};
constexpr auto wire_fields(std::type_identity<OutputClosed>) {
    namespace w = base::wire;
    return std::tuple{w::field("rank", &OutputClosed::rank),
                      w::within("stream", &OutputClosed::stream, job::Stream::out, job::Stream::err)};
}

struct Exited {
    std::uint32_t rank = 0;
    std::uint32_t pid = 0;
    job::ProcessExit how;
};
constexpr auto wire_fields(std::type_identity<Exited>) {
    namespace w = base::wire;
    return std::tuple{w::field("rank", &Exited::rank), w::field("pid", &Exited::pid), w::field("how", &Exited::how)};
}

struct Cancel {
    job::CancelMode mode = job::CancelMode::terminate;
};
constexpr auto wire_fields(std::type_identity<Cancel>) {
    return std::tuple{base::wire::within("mode", &Cancel::mode, job::CancelMode::terminate, job::CancelMode::kill)};
}

// Each message's frame type (Type{}: not a message of this protocol).
template <class M>
inline constexpr Type kTypeOf = Type{};
template <>
inline constexpr Type kTypeOf<Hello> = Type::hello;
template <>
inline constexpr Type kTypeOf<Submit> = Type::submit;
template <>
inline constexpr Type kTypeOf<State> = Type::state;
template <>
inline constexpr Type kTypeOf<Started> = Type::started;
template <>
inline constexpr Type kTypeOf<StartFailed> = Type::start_failed;
template <>
inline constexpr Type kTypeOf<Output> = Type::output;
template <>
inline constexpr Type kTypeOf<OutputClosed> = Type::output_closed;
template <>
inline constexpr Type kTypeOf<Exited> = Type::exited;
template <>
inline constexpr Type kTypeOf<Stdin> = Type::stdin_data;
template <>
inline constexpr Type kTypeOf<Cancel> = Type::cancel;
template <>
inline constexpr Type kTypeOf<StageData> = Type::stage_data;
template <>
inline constexpr Type kTypeOf<DelegationRequest> = Type::delegation_request;
template <>
inline constexpr Type kTypeOf<Delegation> = Type::delegation;

template <class M>
std::vector<std::uint8_t> encode(const M& m) {
    return base::wire::frame_of<kTypeOf<M>>(m);
}
inline std::vector<std::uint8_t> encode_stdin_closed() {
    return base::wire::frame_empty(static_cast<std::uint8_t>(Type::stdin_closed));
}

// Whether `name` can be a staged file's name.
bool staged_name_valid(const std::string& name);

}  // namespace strata::gram
