// Client/server (MPI-2 §5.4): MPI_Open_port, MPI_Close_port,
// MPI_Comm_accept, MPI_Comm_connect, MPI_Comm_disconnect. The design is in
// mpi/port.hpp, the conversation between the roots in wireup/port.hpp.
#include "mpi/port.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <optional>
#include <string_view>

#include "collectives/collectives.hpp"
#include "devices/methods.hpp"
#include "devices/tcp/network.hpp"
#include "mpi/comms/agreement.hpp"
#include "mpi/comms/comm.hpp"
#include "mpi/datatypes/datatype.hpp"
#include "mpi/errors.hpp"
#include "mpi/info.hpp"
#include "base/knob.hpp"
#include "base/numbers.hpp"
#include "mpi/entry.hpp"
#include "mpi/setup.hpp"
#include "placement/binding.hpp"
#include "wireup/emulation.hpp"

using namespace strata;
using namespace strata::mpi;
namespace port = strata::wireup::port;

namespace strata::mpi {

const wireup::BusinessCard& card_of(int index) {
    const Runtime& r = rt();
    if (index < r.world_size) return r.world.cards[static_cast<std::size_t>(index)];
    return r.peer_cards[static_cast<std::size_t>(index - r.world_size)];
}

const wireup::Topology& topology_all() {
    const Runtime& r = rt();
    return r.peer_cards.empty() ? r.world.topology : r.joined_topology;
}

void peer_set_hold(std::uint64_t id) {
    for (PeerSetUse& s : rt().peer_sets)
        if (s.id == id) ++s.refs;
}

int peer_set_drop(std::uint64_t id) {
    for (PeerSetUse& s : rt().peer_sets)
        if (s.id == id) return --s.refs;
    return 0;
}

}  // namespace strata::mpi

namespace {

const base::KnobInt connect_timeout_knob{
    "STRATA_CONNECT_TIMEOUT", 180,
    "seconds MPI_Comm_connect waits for the server to accept when its info gives no 'timeout' (0: no limit)"};

// What a root learned, as it hands it to its group: an error class and its
// detail, or the new connection.
struct Outcome {
    int cls = MPI_SUCCESS;
    std::string detail;
    int pair = -1;
    std::uint64_t set = 0;
    std::string key;
    std::uint32_t my_first = 0;      // set rank of this group's rank 0
    std::uint32_t remote_first = 0;  // set rank of the other group's rank 0
    std::vector<wireup::BusinessCard> cards;  // the other group's
    std::string emulation;  // the other job's STRATA_EMULATION
    std::string subject;    // the client's verified certificate subject (server side), or empty
};

Outcome failed(int cls, std::string detail) {
    Outcome o;
    o.cls = cls;
    o.detail = std::move(detail);
    return o;
}
Outcome failed(MpiError e) { return failed(e.cls, std::move(e.detail)); }

constexpr auto wire_fields(std::type_identity<Outcome>) {
    namespace w = base::wire;
    return std::tuple{w::field("cls", &Outcome::cls),
                      w::field("detail", &Outcome::detail),
                      w::field("pair", &Outcome::pair),
                      w::field("set", &Outcome::set),
                      w::field("key", &Outcome::key),
                      w::field("my_first", &Outcome::my_first),
                      w::field("remote_first", &Outcome::remote_first),
                      w::field("cards", &Outcome::cards),
                      w::field("emulation", &Outcome::emulation),
                      w::field("subject", &Outcome::subject)};
}

// Keeps this process's other communication going while a root waits on its port.
void idle() { rt().engine->progress(); }

// This process's site label, and its job's STRATA_EMULATION.
const std::string& my_site() { return rt().world.cards[static_cast<std::size_t>(rt().world_rank)].site; }

// Holds the conversation for `seconds` of emulated flight (port::emulated_latency),
// communication going on meanwhile.
void fly(double seconds) {
    if (seconds <= 0) return;
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < until) idle();
}

std::vector<wireup::BusinessCard> group_cards(const Comm& c) {
    std::vector<wireup::BusinessCard> out;
    for (const int p : c.group()) out.push_back(card_of(p));
    return out;
}

std::uint64_t random_u64() {
    security::Nonce n{};
    std::uint64_t v = 0;
    while (v == 0) {
        if (!security::nonce_fill(n)) return 0;
        std::memcpy(&v, n.data(), sizeof v);
    }
    return v;
}

// A port name as the program passes it, less white space at its end: no
// Strata port name ends in white space, and one read back from a file with
// fgets keeps its line's end (MPICH's testconnect passes it so).
std::string port_text(const char* given) {
    std::string_view s(given);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) s.remove_suffix(1);
    return std::string(s);
}

Port* port_find(const std::string& text) {
    for (auto& p : rt().ports)
        if (p->text == text) return p.get();
    return nullptr;
}

// ---- the server's root ------------------------------------------------------

// One client, from its Hello to its Confirm. nullopt: a client that did not
// prove the port's secret (refused; the root waits for the next one).
std::optional<Outcome> serve_one(port::Channel& ch, const Port& p, const ContextPool::Mask& mine, const Comm& c,
                                 const std::vector<std::string>& allowed) {
    auto deadline = port::Channel::Clock::now() + port::kStepTimeout;
    auto f = ch.receive(deadline, idle);
    if (!f || f->type != static_cast<std::uint8_t>(port::Type::hello)) return std::nullopt;
    const auto hello = base::wire::decode<port::Hello>(f->payload);
    if (!hello) return std::nullopt;
    if (hello->id != p.name.id) {
        (void)ch.send(port::encode(port::Refusal{port::Refused::unknown_port, "no such port here"}));
        return std::nullopt;
    }
    // Under emulation the server holds every frame for the flight each way:
    // the Hello's and the Challenge's now, the Offer's and the Answer's, the Confirm's.
    const double flight =
        port::emulated_latency(wireup::emulation_setting(), hello->emulation, my_site(), hello->site);
    fly(2 * flight);
    port::Challenge challenge;
    if (!security::nonce_fill(challenge.nonce)) return failed(MPI_ERR_INTERN, "cannot make a nonce");
    challenge.proof =
        port::port_proof(p.name.secret, security::ProofRole::port_acceptor, hello->nonce, challenge.nonce);
    if (!ch.send(port::encode(challenge))) return std::nullopt;
    f = ch.receive(deadline, idle);
    if (!f || f->type != static_cast<std::uint8_t>(port::Type::offer)) return std::nullopt;
    const auto offer = base::wire::decode<port::Offer>(f->payload);
    const auto expected =
        port::port_proof(p.name.secret, security::ProofRole::port_connector, hello->nonce, challenge.nonce);
    const std::optional<ContextPool::Mask> theirs = offer ? ContextPool::mask_of(offer->mask) : std::nullopt;
    if (!offer || !security::proof_equal(expected, offer->proof) || !theirs) {
        (void)ch.send(port::encode(port::Refusal{port::Refused::secret, "the client did not prove the port's secret"}));
        return std::nullopt;
    }
    // Who the client is, when it presented a grid credential; whether this accept takes it.
    std::string subject;
    std::string unverified;
    if (!offer->certificates.empty()) {
        const base::Result<std::string> who =
            port::credential_check(offer->certificates, offer->signature, p.name.secret, hello->nonce, challenge.nonce);
        (who ? subject : unverified) = who ? *who : who.error();
    }
    if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), subject) == allowed.end()) {
        const std::string why = !subject.empty() ? "the subject " + subject + " is not one this accept takes"
                                : !unverified.empty() ? unverified
                                                      : "this accept takes only clients with a grid credential";
        (void)ch.send(port::encode(port::Refusal{port::Refused::identity, why}));
        return std::nullopt;
    }
    ContextPool::Mask both = mine;
    for (std::size_t i = 0; i < both.size(); ++i) both[i] &= (*theirs)[i];
    Outcome o;
    o.pair = ContextPool::lowest(both);
    if (o.pair < 0) {
        (void)ch.send(port::encode(port::Refusal{port::Refused::no_context, "no context id is free in both jobs"}));
        return failed(no_context());
    }
    o.set = random_u64();
    o.key = port::set_key(p.name.secret, hello->nonce, challenge.nonce);
    o.my_first = 0;
    o.remote_first = static_cast<std::uint32_t>(c.size());
    o.cards = offer->cards;
    o.emulation = hello->emulation;
    o.subject = subject;
    fly(2 * flight);
    if (!ch.send(port::encode(port::Answer{static_cast<std::uint32_t>(o.pair), o.set, group_cards(c),
                                           wireup::emulation_setting()})))
        return failed(MPI_ERR_OTHER, "the client's root went away during the accept");
    deadline = port::Channel::Clock::now() + port::kStepTimeout;
    f = ch.receive(deadline, idle);
    if (!f || f->type != static_cast<std::uint8_t>(port::Type::confirm))
        return failed(MPI_ERR_OTHER, "the client's root went away during the accept" +
                                         (f ? std::string() : ": " + f.error()));
    fly(flight);
    return o;
}

Outcome serve(const Port& p, const ContextPool::Mask& mine, const Comm& c, const std::vector<std::string>& allowed) {
    for (;;) {
        base::Result<port::Channel> ch = port::accept_next(p.listener.get(), std::nullopt, idle);
        if (!ch) return failed(MPI_ERR_PORT, ch.error());
        if (std::optional<Outcome> o = serve_one(*ch, p, mine, c, allowed)) return std::move(*o);
    }
}

// ---- the client's root ------------------------------------------------------

Outcome refusal_outcome(const base::wire::RawFrame& f) {
    const auto r = base::wire::decode<port::Refusal>(f.payload);
    if (!r) return failed(MPI_ERR_PORT, "the server broke the conversation: " + r.error());
    switch (r->why) {
        case port::Refused::unknown_port: return failed(MPI_ERR_PORT, "the port was closed");
        case port::Refused::secret: return failed(MPI_ERR_PORT, "the server refused the port's secret: " + r->text);
        case port::Refused::no_context: return failed(no_context());
        case port::Refused::identity:
            return failed(MPI_ERR_PORT, "the server does not accept this client's identity: " + r->text);
        case port::Refused::malformed: break;
    }
    return failed(MPI_ERR_PORT, "the server refused the connection: " + r->text);
}

Outcome talk(port::Channel& ch, const port::Name& name, const ContextPool::Mask& mine, const Comm& c,
             port::Channel::Clock::time_point deadline) {
    port::Hello hello{name.id, {}, my_site(), wireup::emulation_setting()};
    if (!security::nonce_fill(hello.nonce)) return failed(MPI_ERR_INTERN, "cannot make a nonce");
    if (base::Status sent = ch.send(port::encode(hello)); !sent) return failed(MPI_ERR_PORT, sent.error());
    auto f = ch.receive(deadline, idle);
    if (!f) return failed(MPI_ERR_PORT, f.error() == "timed out" ? "timed out waiting for the server to accept"
                                                                  : "waiting for the server: " + f.error());
    if (f->type == static_cast<std::uint8_t>(port::Type::refusal)) return refusal_outcome(*f);
    const auto challenge = base::wire::decode<port::Challenge>(f->payload);
    if (f->type != static_cast<std::uint8_t>(port::Type::challenge) || !challenge ||
        !security::proof_equal(challenge->proof, port::port_proof(name.secret, security::ProofRole::port_acceptor,
                                                                  hello.nonce, challenge->nonce)))
        return failed(MPI_ERR_PORT, "the process at the port did not prove the port's secret");
    port::Offer offer;
    offer.proof = port::port_proof(name.secret, security::ProofRole::port_connector, hello.nonce, challenge->nonce);
    offer.mask = ContextPool::bytes_of(mine);
    offer.cards = group_cards(c);
    // A grid credential, when the client has one, says who it is.
    base::Result<std::optional<port::Credential>> cred = port::credential_find();
    if (!cred) return failed(MPI_ERR_OTHER, "the grid credential: " + cred.error());
    if (*cred) {
        base::Result<std::vector<std::uint8_t>> signature =
            port::credential_sign(**cred, name.secret, hello.nonce, challenge->nonce);
        if (!signature) return failed(MPI_ERR_OTHER, "the grid credential: " + signature.error());
        offer.certificates = (*cred)->certificates;
        offer.signature = std::move(*signature);
    }
    if (base::Status sent = ch.send(port::encode(offer)); !sent) return failed(MPI_ERR_PORT, sent.error());
    f = ch.receive(port::Channel::Clock::now() + port::kStepTimeout, idle);
    if (!f) return failed(MPI_ERR_OTHER, "the server's root went away during the connect: " + f.error());
    if (f->type == static_cast<std::uint8_t>(port::Type::refusal)) return refusal_outcome(*f);
    const auto answer = base::wire::decode<port::Answer>(f->payload);
    if (f->type != static_cast<std::uint8_t>(port::Type::answer) || !answer)
        return failed(MPI_ERR_OTHER, "the server broke the conversation" + (answer ? "" : ": " + answer.error()));
    (void)ch.send(port::encode_confirm());
    Outcome o;
    o.pair = static_cast<int>(answer->pair);
    o.set = answer->set;
    o.key = port::set_key(name.secret, hello.nonce, challenge->nonce);
    o.my_first = static_cast<std::uint32_t>(answer->cards.size());
    o.remote_first = 0;
    o.cards = answer->cards;
    o.emulation = answer->emulation;
    return o;
}

Outcome dial_and_talk(const std::string& text, const ContextPool::Mask& mine, const Comm& c,
                      std::optional<double> timeout) {
    const base::Result<port::Name> name = port::name_parse(text);
    if (!name) return failed(MPI_ERR_PORT, "'" + text + "': " + name.error());
    const base::Result<dev::tcp::CardAddress> where = dev::tcp::card_address_parse(name->address);
    if (!where) return failed(MPI_ERR_PORT, "'" + text + "': " + where.error());
    using Clock = port::Channel::Clock;
    const Clock::time_point deadline =
        timeout ? Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(*timeout))
                : Clock::time_point::max();
    base::Result<port::Channel> ch = port::dial(where->addresses, where->port, deadline, idle);
    if (!ch) return failed(MPI_ERR_PORT, ch.error());
    return talk(*ch, *name, mine, c, deadline);
}

// ---- both sides -------------------------------------------------------------

// Every member: the other group's processes into the engine and the new
// intercommunicator. Returns an error class (detail in `detail`).
MpiError join(const Comm& c, const Outcome& o, MPI_Comm* newcomm) {
    Runtime& r = rt();
    adi::PeerSet set;
    set.id = o.set;
    set.key = o.key;
    set.my_rank = o.my_first + static_cast<std::uint32_t>(c.rank);
    set.first_rank = o.remote_first;
    set.first = r.engine->world_size();
    set.cards = o.cards;
    set.emulation = o.emulation;
    const bool was_heterogeneous = r.heterogeneous;
    // What is added for the set is taken back if it cannot join.
    const auto undo = [&](std::string why) {
        r.representations.resize(static_cast<std::size_t>(set.first));
        r.foreign.resize(static_cast<std::size_t>(set.first));
        r.heterogeneous = was_heterogeneous;
        return MpiError{MPI_ERR_OTHER, std::move(why)};
    };
    for (std::size_t k = 0; k < o.cards.size(); ++k) {
        const std::string who = "process " + std::to_string(o.remote_first + k) + " of the other job";
        if (base::Status read = representation_add(r, o.cards[k], who); !read) return undo(read.error());
    }
    if (const auto places = placement::places_of(o.cards); !places) return undo("the other job: " + places.error());
    if (base::Status added = r.engine->peers_add(set); !added) return undo(added.error());
    // Types made while every process stored data alike went straight
    // between buffer and engine; from now on some may need converting.
    if (r.heterogeneous && !was_heterogeneous) r.datatypes.each([](Datatype& t) { t.direct = false; });
    // In the joined topology another job's subjobs are machines of their
    // own, never this job's of the same index (every member of both groups
    // splits the same way: its own job's subjobs apart from the other's).
    for (wireup::BusinessCard card : o.cards) {
        card.subjob += static_cast<std::uint32_t>(r.peer_sets.size() + 1) << 20;
        r.peer_cards.push_back(std::move(card));
    }
    std::vector<wireup::BusinessCard> all = r.world.cards;
    all.insert(all.end(), r.peer_cards.begin(), r.peer_cards.end());
    // Every card's placement entry was read before (this job's at MPI_Init, the other's above).
    const base::Result<std::vector<wireup::CpuPlace>> places = placement::places_of(all);
    r.joined_topology =
        wireup::Topology::build(all, dev::fast_link, places ? *places : std::vector<wireup::CpuPlace>{});
    r.peer_sets.push_back(PeerSetUse{o.set, set.first, static_cast<int>(o.cards.size()), 0});
    std::vector<int> remote(o.cards.size());
    for (std::size_t k = 0; k < remote.size(); ++k) remote[k] = set.first + static_cast<int>(k);
    auto ic = comm_make(c, o.pair, std::move(remote), c.rank);
    ic->inter = true;
    ic->local = c.group();
    ic->peer_set = o.set;
    ic->peer_subject = o.subject;
    *newcomm = comm_register(std::move(ic));
    return {};
}

// MPI_Comm_accept and MPI_Comm_connect, once their arguments are checked:
// the group agrees on its free context pairs, the root talks over the port
// (`root_talk`), and every member joins what the root learned.
template <class RootTalk>
int port_join(const char* fn, MPI_Comm comm, const Comm& c, int root, MPI_Comm* newcomm, RootTalk&& root_talk) {
    const coll::Group g = group_local(c);
    ContextPool::Mask mine{};
    if (adi::Error e = mask_agree(g, mine); e != adi::Error::none) return error_raise(comm, agreement_failed(e), fn);
    base::wire::Bytes bytes;
    if (c.rank == root) bytes = base::wire::payload(root_talk(mine));
    if (adi::Error e = agree_bcast(g, bytes, root); e != adi::Error::none)
        return error_raise(comm, agreement_failed(e), fn);
    const base::Result<Outcome> o = base::wire::decode<Outcome>(bytes);
    if (!o) return error_raise(comm, MPI_ERR_INTERN, fn, "malformed outcome from the root: " + o.error());
    if (o->cls != MPI_SUCCESS) return error_raise(comm, o->cls, fn, o->detail);
    if (const MpiError e = join(c, *o, newcomm); !e.ok()) return error_raise(comm, e, fn);
    return MPI_SUCCESS;
}

// Every process of both groups of `c` (of its one group, for an
// intracommunicator) reached MPI_Comm_disconnect.
adi::Error disconnect_barrier(const Comm& c) {
    const coll::Group local = group_local(c);
    if (adi::Error e = coll::barrier(local); e != adi::Error::none || !c.inter) return e;
    if (c.rank == 0) {
        const base::wire::Bytes none;
        base::wire::Bytes theirs;
        if (adi::Error e = agree_swap(group_remote(c), 0, kTagAgreeLeaders, none, theirs); e != adi::Error::none)
            return e;
    }
    return coll::barrier(local);
}

// `info` as the port calls read it: MPI_INFO_NULL or a live info (else
// MPI_ERR_INFO on `comm`), and its "timeout" key, whole seconds from 0 up
// (MPI_Comm_connect's; another value is MPI_ERR_ARG).
int info_read(const char* fn, MPI_Comm comm, MPI_Info info, std::optional<double>* timeout) {
    const std::optional<const Info*> found = info_lookup(info);
    if (!found) return error_raise(comm, MPI_ERR_INFO, fn, "info is not a valid info object");
    if (*found == nullptr || timeout == nullptr) return MPI_SUCCESS;
    const std::optional<std::string> text = (*found)->get("timeout");
    if (!text) return MPI_SUCCESS;
    const base::ParsedInt<int> seconds = base::parse_int<int>(*text, 0, 1000000);
    if (!seconds)
        return error_raise(comm, MPI_ERR_ARG, fn,
                           "info key timeout='" + *text + "': expected whole seconds, 0 or more");
    *timeout = *seconds;
    return MPI_SUCCESS;
}

// MPI_Comm_accept's info key "allowed_subjects": the certificate subjects
// (Globus form, separated by ';') of the clients it takes; none: any client.
std::vector<std::string> allowed_subjects(MPI_Info info) {
    std::vector<std::string> out;
    const std::optional<const Info*> found = info_lookup(info);
    const std::optional<std::string> text =
        found && *found != nullptr ? (*found)->get("allowed_subjects") : std::nullopt;
    if (!text) return out;
    std::size_t at = 0;
    while (at <= text->size()) {
        const std::size_t end = std::min(text->find(';', at), text->size());
        std::string one = text->substr(at, end - at);
        one.erase(0, one.find_first_not_of(" \t"));
        one.erase(one.find_last_not_of(" \t") + 1);
        if (!one.empty()) out.push_back(std::move(one));
        at = end + 1;
    }
    return out;
}

// The checks MPI_Comm_accept and MPI_Comm_connect share; `timeout` receives
// the info's (connect only).
// The rest of MPI_Comm_accept's and MPI_Comm_connect's arguments, once the
// entry point checked comm and newcomm; newcomm is MPI_COMM_NULL until the
// join succeeds.
int join_check(const Call& call, const Comm& c, MPI_Info info, int root, MPI_Comm& newcomm,
               std::optional<double>* timeout = nullptr) {
    newcomm = MPI_COMM_NULL;
    if (root < 0 || root >= c.size())
        return call.raise(MPI_ERR_ROOT, "root " + std::to_string(root) + " is not in comm of size " +
                                            std::to_string(c.size()));
    return info_read(call.fn, call.comm, info, timeout);
}

// MPI_Publish_name, MPI_Lookup_name and MPI_Unpublish_name: a request to
// mpirun's name service (launcher/name_service.hpp). `out` (lookup) receives
// the port name. `fail_class`: the class of a refusal.
int names_ask(const char* fn, wireup::NameOp op, const char* service, MPI_Info info, const char* port, char* out,
              int fail_class) {
    if (int e = info_read(fn, MPI_COMM_WORLD, info, nullptr)) return e;
    Runtime& r = rt();
    if (!r.client)
        return error_raise(MPI_COMM_WORLD, fail_class, fn,
                           "no name service: the process was not started by mpirun (the name service is mpirun's)");
    const base::Result<wireup::NamesReply> reply = r.client->names(op, service, port != nullptr ? port : "");
    if (!reply) return error_raise(MPI_COMM_WORLD, fail_class, fn, reply.error());
    if (reply->status != wireup::NamesReply::Status::ok)
        return error_raise(MPI_COMM_WORLD, fail_class, fn, reply->text);
    if (out != nullptr) {
        if (reply->text.size() >= MPI_MAX_PORT_NAME)
            return error_raise(MPI_COMM_WORLD, MPI_ERR_NAME, fn, "the published port name is too long");
        std::memcpy(out, reply->text.c_str(), reply->text.size() + 1);
    }
    return MPI_SUCCESS;
}

}  // namespace

namespace strata::mpi::body {

int Publish_name(const Call& call, const char* service_name, MPI_Info info, const char* port_name) {
    return names_ask(call.fn, wireup::NameOp::publish, service_name, info, port_name, nullptr, MPI_ERR_SERVICE);
}

int Lookup_name(const Call& call, const char* service_name, MPI_Info info, char* port_name) {
    return names_ask(call.fn, wireup::NameOp::lookup, service_name, info, nullptr, port_name, MPI_ERR_NAME);
}

int Unpublish_name(const Call& call, const char* service_name, MPI_Info info, const char* port_name) {
    return names_ask(call.fn, wireup::NameOp::unpublish, service_name, info, port_name, nullptr, MPI_ERR_SERVICE);
}

int Open_port(const Call& call, MPI_Info info, char* port_name) {
    if (int e = info_read(call.fn, MPI_COMM_WORLD, info, nullptr)) return e;
    base::Result<dev::tcp::Listening> l = dev::tcp::listener_open(rt().world_rank);
    if (!l) return call.raise(MPI_ERR_OTHER, "cannot open a port: " + l.error());
    auto p = std::make_unique<Port>();
    p->listener = std::move(l->fd);
    p->name.address = l->address;
    p->name.id = random_u64();
    security::Nonce secret{};
    if (p->name.id == 0 || !security::nonce_fill(secret))
        return call.raise(MPI_ERR_INTERN, "the OpenSSL random generator is not seeded");
    std::copy(secret.begin(), secret.end(), p->name.secret.begin());
    p->text = port::name_format(p->name);
    if (p->text.size() >= MPI_MAX_PORT_NAME)
        return call.raise(MPI_ERR_OTHER,
                          "the port name would exceed MPI_MAX_PORT_NAME; choose one network with STRATA_NETWORK");
    std::memcpy(port_name, p->text.c_str(), p->text.size() + 1);
    rt().ports.push_back(std::move(p));
    return MPI_SUCCESS;
}

int Close_port(const Call& call, const char* port_name) {
    auto& ports = rt().ports;
    const std::string text = port_text(port_name);
    const auto it = std::find_if(ports.begin(), ports.end(), [&](const auto& p) { return p->text == text; });
    if (it == ports.end()) return call.raise(MPI_ERR_PORT, "this process has no open port of that name");
    ports.erase(it);
    return MPI_SUCCESS;
}

int Comm_accept(const Call& call, const char* port_name, MPI_Info info, int root, Comm& comm, MPI_Comm& newcomm) {
    if (int e = join_check(call, comm, info, root, newcomm)) return e;
    return port_join(call.fn, call.comm, comm, root, &newcomm, [&](const ContextPool::Mask& mine) {
        const Port* p = port_name != nullptr ? port_find(port_text(port_name)) : nullptr;
        if (p == nullptr) return failed(MPI_ERR_PORT, "the root has no open port of that name (MPI_Open_port)");
        return serve(*p, mine, comm, allowed_subjects(info));
    });
}

int Comm_connect(const Call& call, const char* port_name, MPI_Info info, int root, Comm& comm, MPI_Comm& newcomm) {
    std::optional<double> timeout;
    if (int e = join_check(call, comm, info, root, newcomm, &timeout)) return e;
    // MPI-2 5.4.2: without an accept, a connect times out after an
    // implementation-defined time.
    if (!timeout && connect_timeout_knob.get() > 0) timeout = static_cast<double>(connect_timeout_knob.get());
    return port_join(call.fn, call.comm, comm, root, &newcomm, [&](const ContextPool::Mask& mine) {
        if (port_name == nullptr) return failed(MPI_ERR_PORT, "port_name is NULL at the root");
        return dial_and_talk(port_text(port_name), mine, comm, timeout);
    });
}

// MPI-3's MPI_Comm_get_info: the hints in use on a communicator, in a new
// info object the program frees. Strata sets one: "peer_subject", on an
// intercommunicator MPI_Comm_accept returned (and its duplicates), the
// certificate subject the client proved (README "Client/server between jobs").
int Comm_get_info(const Call& call, Comm& comm, MPI_Info& info_used) {
    Info used;
    if (!comm.peer_subject.empty() && !used.set("peer_subject", comm.peer_subject))
        return call.raise(MPI_ERR_INTERN, "the certificate subject is longer than an info value");
    info_used = info_create(std::move(used));
    return MPI_SUCCESS;
}

int Comm_disconnect(const Call& call, MPI_Comm& comm) {
    Comm* c = nullptr;
    if (int e = check::made_comm(call, comm, c, "disconnected")) return e;
    const Call on{call.fn, comm};
    Runtime& r = rt();
    // Pending communication completes first (MPI-2 §5.5.6): what this
    // process sends has left, and both groups reached the call.
    r.engine->wait([&] { return r.engine->sends_drained(); });
    if (adi::Error e = disconnect_barrier(*c); e != adi::Error::none) return on.raise(agreement_failed(e));
    const std::uint64_t set = c->peer_set;
    const int e = comm_destroy(comm);
    comm = MPI_COMM_NULL;
    // The last communicator holding the other job's processes: their
    // links may close.
    for (const PeerSetUse& s : r.peer_sets)
        if (s.id == set && s.refs == 0) r.engine->peers_close(s.first, s.count);
    return e;
}

}  // namespace strata::mpi::body

#include "port.inc"
