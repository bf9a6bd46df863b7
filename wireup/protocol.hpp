// The wire-up protocol: with the environment contract (wireup/environment.hpp)
// and the topology built from its cards (wireup/topology.hpp), the only thing
// the launcher and the MPI library share.
//
// Conversation, one TCP connection per process, frames as below:
//   process -> mpirun  Hello          (a fresh nonce)
//   mpirun  -> process Challenge      (mpirun's nonce and its proof of the key)
//   process -> mpirun  Checkin        (once, from MPI_Init, with the process's proof)
//   mpirun  -> process Release        (the startup barrier opens: everyone's cards)
//   process -> mpirun  Abort          (MPI_Abort or a fatal error; mpirun ends the job)
//   process -> mpirun  Finalize       (from MPI_Finalize, after local sends drained)
//   mpirun  -> process FinalizeDone   (all processes reached MPI_Finalize)
// A process asks mpirun's name service (MPI_Publish_name, MPI_Lookup_name,
// MPI_Unpublish_name; launcher/name_service.hpp) on a connection of its own:
//   process -> mpirun  Hello, mpirun -> process Challenge (as above)
//   process -> mpirun  Names          (its proof, as a Checkin's, and the request)
//   mpirun  -> process NamesReply     (then the process closes the connection)
// Closing the connection without Finalize means the process is going away early.
// Nothing comes from mpirun between Release and FinalizeDone: the connection
// ending (or failing, see base/keepalive.hpp) in that time means mpirun, or
// the way to it, is gone, and the process ends itself at once with a message,
// whatever the program is doing (see Client::checkin).
// The job key itself never travels: Hello, Challenge and Checkin are the
// challenge-response of security/challenge.hpp (roles control_mpirun and
// control_rank; a Checkin's proof binds its rank and pid).
//
// Frames and messages as base/wire.hpp describes them: each message below
// declares its fields (wire_fields), wireup::encode frames it and
// base::wire::decode<M> reads it; frames above kMaxFrame are refused.
#pragma once

#include "base/result.hpp"
#include "base/wire.hpp"
#include "security/challenge.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace strata::wireup {

inline constexpr std::uint32_t kMaxFrame = 16u << 20;

enum class Type : std::uint8_t {
    checkin = 1,
    release = 2,
    abort = 3,
    finalize = 4,
    finalize_done = 5,
    hello = 6,
    challenge = 7,
    names = 8,
    names_reply = 9,
};

// How to reach one process and where it sits: a fixed identity, and entries
// each subsystem publishes for its own kind at the other processes (as PMIx
// keys do). Before the startup barrier the process fills what it knows of
// itself (MPI_Init); at its Checkin mpirun adds what the job description says
// (the fields marked "mpirun"), and the Release hands every card to every
// process. wireup/topology.hpp reads the identity.
struct BusinessCard {
    std::string hostname;  // gethostname(): the real host, e.g. for oversubscription
    // Equal exactly for processes that can share memory (same kernel boot and
    // network namespace; a namespace stands for another host in multi-site
    // tests). mpirun appends the subjob's emulated host identity, if the job
    // gives one, so that processes of different "hosts" on one machine do not.
    std::string host;
    std::string vendor;          // the vendor-fabric domain (STRATA_VENDOR_DOMAIN, else the subjob)
    std::string site;            // mpirun: the subjob's site label (local-area network)
    std::string machine;         // mpirun: the subjob's machine label if the job gives one, else empty
    std::string processor_name;  // mpirun: what MPI_Get_processor_name reports
    std::uint32_t subjob = 0;    // mpirun: the subjob's index
    // What subsystems published, at most one entry per key, each value in its
    // publisher's own form. A communication method publishes its address
    // under its name ("tcp": "10.0.0.7,127.0.0.1:40123"); other keys belong
    // to the subsystem that defines them (kRelayEntry in wireup/routes.hpp,
    // adi::kRepresentationEntry, the TCP method's data TLS, placement/).
    std::vector<std::pair<std::string, std::string>> entries;

    // The entry under `key`, or an empty string.
    const std::string& entry(std::string_view key) const;
    // Sets the entry under `key`, replacing one there was.
    void publish(std::string_view key, std::string value);
    bool operator==(const BusinessCard&) const = default;
};

// A card in a frame, as every message that carries cards writes it (the
// Checkin, the Release, MPI_Comm_accept's exchange).
constexpr auto wire_fields(std::type_identity<BusinessCard>) {
    using C = BusinessCard;
    namespace w = base::wire;
    return std::tuple{w::field("hostname", &C::hostname),
                      w::field("host", &C::host),
                      w::field("vendor", &C::vendor),
                      w::field("site", &C::site),
                      w::field("machine", &C::machine),
                      w::field("processor_name", &C::processor_name),
                      w::field("subjob", &C::subjob),
                      w::field("entries", &C::entries)};
}
// An entry without key, or two under one key: "" when there is none.
std::string wire_check(const BusinessCard& c);

// An entry that is a message of base/wire.hpp (a subsystem's field list):
// published as its payload, and read back whole; a card without the entry
// reads as T{}.
template <class T>
void publish_message(BusinessCard& card, std::string_view key, const T& m) {
    const base::wire::Bytes payload = base::wire::payload(m);
    card.publish(key, std::string(payload.begin(), payload.end()));
}
template <class T>
base::Result<T> entry_message(const BusinessCard& card, std::string_view key) {
    const std::string& e = card.entry(key);
    if (e.empty()) return T{};
    base::Result<T> m = base::wire::decode<T>({reinterpret_cast<const std::uint8_t*>(e.data()), e.size()});
    if (!m) return base::Error{"its '" + std::string(key) + "' entry: " + m.error()};
    return m;
}

struct Hello {
    security::Nonce nonce{};
};
constexpr auto wire_fields(std::type_identity<Hello>) { return std::tuple{base::wire::field("nonce", &Hello::nonce)}; }

struct Challenge {
    security::Nonce nonce{};
    security::Proof proof{};  // control_mpirun over (Hello's nonce, this nonce, 0, 0)
};
constexpr auto wire_fields(std::type_identity<Challenge>) {
    return std::tuple{base::wire::field("nonce", &Challenge::nonce), base::wire::field("proof", &Challenge::proof)};
}

struct Checkin {
    std::uint32_t rank = 0;
    std::uint32_t pid = 0;
    security::Proof proof{};  // control_rank over (Hello's nonce, Challenge's nonce, rank, pid)
    BusinessCard card;
};
constexpr auto wire_fields(std::type_identity<Checkin>) {
    namespace w = base::wire;
    return std::tuple{w::field("rank", &Checkin::rank), w::field("pid", &Checkin::pid),
                      w::field("proof", &Checkin::proof), w::field("card", &Checkin::card)};
}

struct Release {
    std::vector<BusinessCard> cards;  // indexed by rank
    // The communicator file mpirun hands the processes (mpirun -commfile,
    // -gencomm; commfile/comm_file.hpp): what its messages call it, and its
    // text. Both empty without one.
    std::string comm_file;
    std::string comm_text;
};
constexpr auto wire_fields(std::type_identity<Release>) {
    namespace w = base::wire;
    return std::tuple{w::field("cards", &Release::cards), w::field("comm_file", &Release::comm_file),
                      w::field("comm_text", &Release::comm_text)};
}

struct Abort {
    std::int32_t code = 1;
    std::string message;  // already formatted for the user, may be empty
};
constexpr auto wire_fields(std::type_identity<Abort>) {
    return std::tuple{base::wire::field("code", &Abort::code), base::wire::field("message", &Abort::message)};
}

enum class NameOp : std::uint32_t { publish = 1, lookup = 2, unpublish = 3 };

struct Names {
    std::uint32_t rank = 0;
    std::uint32_t pid = 0;
    security::Proof proof{};  // control_names over (Hello's nonce, Challenge's nonce, rank, pid)
    NameOp op = NameOp::lookup;
    std::string service;
    std::string port;  // publish and unpublish
};
constexpr auto wire_fields(std::type_identity<Names>) {
    namespace w = base::wire;
    return std::tuple{w::field("rank", &Names::rank),       w::field("pid", &Names::pid),
                      w::field("proof", &Names::proof),     w::within("op", &Names::op, NameOp::publish, NameOp::unpublish),
                      w::field("service", &Names::service), w::field("port", &Names::port)};
}

struct NamesReply {
    enum class Status : std::uint32_t {
        ok = 0,
        no_name = 1,   // lookup: nothing published under the name (MPI_ERR_NAME)
        refused = 2,   // publish or unpublish could not be done (MPI_ERR_SERVICE)
    };
    Status status = Status::ok;
    std::string text;  // lookup: the port name; otherwise why not
};
constexpr auto wire_fields(std::type_identity<NamesReply>) {
    namespace w = base::wire;
    using S = NamesReply::Status;
    return std::tuple{w::within("status", &NamesReply::status, S::ok, S::refused), w::field("text", &NamesReply::text)};
}

// Each message's frame type (Type{}: not a message of this protocol).
template <class M>
inline constexpr Type kTypeOf = Type{};
template <>
inline constexpr Type kTypeOf<Checkin> = Type::checkin;
template <>
inline constexpr Type kTypeOf<Hello> = Type::hello;
template <>
inline constexpr Type kTypeOf<Challenge> = Type::challenge;
template <>
inline constexpr Type kTypeOf<Release> = Type::release;
template <>
inline constexpr Type kTypeOf<Abort> = Type::abort;
template <>
inline constexpr Type kTypeOf<Names> = Type::names;
template <>
inline constexpr Type kTypeOf<NamesReply> = Type::names_reply;

// A decoded frame: its type and raw payload.
struct Frame {
    Type type;
    std::vector<std::uint8_t> payload;
};

// The frame of a message (base::wire::decode<M> reads its payload back).
template <class M>
std::vector<std::uint8_t> encode(const M& m) {
    return base::wire::frame_of<kTypeOf<M>>(m);
}
// finalize, finalize_done
inline std::vector<std::uint8_t> encode_empty(Type t) { return base::wire::frame_empty(static_cast<std::uint8_t>(t)); }

// The frames of this protocol: any of its types, up to kMaxFrame.
base::wire::FrameSplitter frame_splitter();

// Incremental frame parser for a byte stream.
class FrameReader {
public:
    FrameReader();
    void feed(const std::uint8_t* data, std::size_t n);
    // Next complete frame, if any. Sets `bad` and returns nullopt on an oversized
    // or unknown frame; the stream must then be dropped.
    std::optional<Frame> next(bool& bad);

private:
    base::wire::FrameSplitter split_;
};

// The library's side of the conversation. Blocking calls on one socket; the
// socket is also pollable so MPI_Finalize can keep the progress engine running
// while it waits for FinalizeDone.
class Client {
public:
    // Reads the environment contract; nullopt (singleton run) when absent.
    // Fails on a malformed environment or an unreachable launcher.
    static base::Result<std::optional<Client>> from_environment();

    Client(Client&&) noexcept;
    Client& operator=(Client&&) noexcept;
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;
    ~Client();

    int rank() const { return rank_; }
    int size() const { return size_; }
    int subjob() const { return subjob_; }
    const std::string& job_key() const { return job_key_; }

    // Proves the job key to mpirun and has it prove the key back (Hello,
    // Challenge), sends Checkin and blocks until Release, which it returns.
    // From the Release until send_finalize() or abort(), a small
    // thread (all signals blocked) sleeps in poll() on the connection and
    // ends the process (exit status 1, a line on stderr) if mpirun goes away.
    base::Result<Release> checkin(const BusinessCard& card);
    // Best effort: tells the launcher to end the job with `code`. After checkin
    // only (before it the connection is anonymous and mpirun ignores it). Waits
    // up to STRATA_ABORT_WAIT_MS for mpirun to close the connection, which it
    // does once it has recorded the Abort; the caller then exits. mpirun exits
    // with (code & 255), or 1 if that is 0.
    void abort(int code, const std::string& message);
    // Sends Finalize; then poll_finalize_done() until it returns true.
    base::Status send_finalize();
    // Non-blocking check for FinalizeDone: true when it arrived, false while
    // it has not; fails if the launcher went away.
    base::Result<bool> poll_finalize_done();
    // Asks mpirun's name service on a connection of its own (the conversation
    // above) and returns its answer; fails when mpirun cannot be reached or
    // breaks the conversation. After checkin.
    base::Result<NamesReply> names(NameOp op, const std::string& service, const std::string& port);
    int fd() const { return fd_; }

private:
    class Watch;
    Client();
    void watch_stop();
    // Blocks until the next frame; fails ("... `during`") when the connection
    // fails or the frame is malformed.
    base::Result<Frame> frame_read(const char* during) { return frame_read_from(fd_, reader_, during); }
    static base::Result<Frame> frame_read_from(int fd, FrameReader& reader, const char* during);
    // Hello and Challenge on `fd`: the two nonces, once mpirun proved the job key.
    base::Result<std::pair<security::Nonce, security::Nonce>> challenge_run(int fd, FrameReader& reader,
                                                                           const char* during) const;
    int fd_ = -1;
    int rank_ = 0;
    int size_ = 1;
    int subjob_ = 0;
    std::string job_key_;
    FrameReader reader_;
    bool checked_in_ = false;  // abort() is meaningful only after checkin
    std::unique_ptr<Watch> watch_;  // from the Release to Finalize or Abort
    std::string host_;  // mpirun's control listener (env::kWireup)
    std::string port_;
};

}  // namespace strata::wireup
