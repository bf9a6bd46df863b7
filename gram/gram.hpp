// The gatekeeper protocol: what mpirun and a site's strata-gatekeeper say to
// each other over their mutually authenticated TLS connection, or over the
// pipes of the ssh session that started a user-level gatekeeper (named after
// Globus GRAM, whose role it plays). Frames as in wireup/codec.hpp.
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
#include "wireup/codec.hpp"

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
inline codec::FrameSplitter frame_splitter(std::uint32_t max_payload = kMaxFrame) {
    return codec::FrameSplitter(static_cast<std::uint8_t>(Type::submit), static_cast<std::uint8_t>(Type::hello),
                                max_payload);
}

// A file sent with the subjob, placed in its per-job directory at the site.
struct StagedFile {
    std::string name;  // a plain file name: no '/', not "." or ".."
    std::uint32_t mode = 0644;
    std::uint32_t size = 0;
    std::string sha256;  // lowercase hex of the content
};

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

struct Hello {
    std::string version;
};

struct DelegationRequest {
    std::string public_key_pem;
};

struct Delegation {
    std::string certificates_pem;  // the proxy first, then its issuers
};

struct StageData {
    std::string bytes;
};

struct State {
    job::JobState state = job::JobState::pending;
    std::string detail;
};

struct Started {
    std::uint32_t rank = 0;
    std::uint32_t pid = 0;
};

struct StartFailed {
    std::uint32_t rank = 0;
    std::string reason;
};

struct Output {
    std::uint32_t rank = 0;
    job::Stream stream = job::Stream::out;
    std::string bytes;
};

struct OutputClosed {
    std::uint32_t rank = 0;
    job::Stream stream = job::Stream::out;
};

struct Exited {
    std::uint32_t rank = 0;
    std::uint32_t pid = 0;
    job::ProcessExit how;
};

struct Cancel {
    job::CancelMode mode = job::CancelMode::terminate;
};

std::vector<std::uint8_t> encode(const Hello& m);
std::vector<std::uint8_t> encode(const Submit& m);
std::vector<std::uint8_t> encode(const State& m);
std::vector<std::uint8_t> encode(const Started& m);
std::vector<std::uint8_t> encode(const StartFailed& m);
std::vector<std::uint8_t> encode(const Output& m);
std::vector<std::uint8_t> encode(const OutputClosed& m);
std::vector<std::uint8_t> encode(const Exited& m);
std::vector<std::uint8_t> encode(const Cancel& m);
std::vector<std::uint8_t> encode_stdin(const char* data, std::size_t n);
std::vector<std::uint8_t> encode_stdin_closed();
std::vector<std::uint8_t> encode(const StageData& m);
std::vector<std::uint8_t> encode(const DelegationRequest& m);
std::vector<std::uint8_t> encode(const Delegation& m);

// Decoders return nullopt on a malformed payload (wrong lengths, values out of
// range, trailing bytes).
std::optional<Hello> decode_hello(const std::vector<std::uint8_t>& payload);
std::optional<Submit> decode_submit(const std::vector<std::uint8_t>& payload);
std::optional<State> decode_state(const std::vector<std::uint8_t>& payload);
std::optional<Started> decode_started(const std::vector<std::uint8_t>& payload);
std::optional<StartFailed> decode_start_failed(const std::vector<std::uint8_t>& payload);
std::optional<Output> decode_output(const std::vector<std::uint8_t>& payload);
std::optional<OutputClosed> decode_output_closed(const std::vector<std::uint8_t>& payload);
std::optional<Exited> decode_exited(const std::vector<std::uint8_t>& payload);
std::optional<Cancel> decode_cancel(const std::vector<std::uint8_t>& payload);
std::optional<std::string> decode_stdin(const std::vector<std::uint8_t>& payload);
std::optional<StageData> decode_stage_data(const std::vector<std::uint8_t>& payload);
std::optional<DelegationRequest> decode_delegation_request(const std::vector<std::uint8_t>& payload);
std::optional<Delegation> decode_delegation(const std::vector<std::uint8_t>& payload);

// Whether `name` can be a staged file's name.
bool staged_name_valid(const std::string& name);

}  // namespace strata::gram
