// The harness of the device tests: a World of n processes of one method
// inside this process, each an instance with its own Recorder of what it
// delivers, published, connected and driven by hand. test_conformance.cpp runs
// the cases every method must pass (adi/method.hpp) on the subjects() table,
// one World per built method; the per-method files use the same World for
// what only their method does. Only counters and events decide a test, never
// timing.
#pragma once

#include <catch2/catch.hpp>

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "adi/method.hpp"

namespace strata::dev::testing {

// How the receiving engine takes one payload: at most `accept` bytes are kept
// (its receive buffer; what follows is discarded, 0: a landing of capacity 0
// at once), in landings of at most `window` bytes (0: one landing).
struct Limits {
    std::size_t accept = std::numeric_limits<std::size_t>::max();
    std::size_t window = 0;
};

// One payload as the receiving engine would hold it.
struct Msg {
    int peer = -1;
    adi::Header header{};
    Limits limits;                    // as applied: `accept` no more than the length
    std::vector<std::byte> data;      // what was kept, set by on_payload (truncated: less than the length)
    std::size_t windows = 0;          // landings handed out, on_header's included
    std::size_t discarded_calls = 0;  // on_landing_full once the kept bytes were full
    bool done = false;
    // The kept bytes and a guard after them that no landing covers.
    std::vector<std::byte> buffer;
    adi::Landing last;  // the landing handed out last
};

// Collects what one method delivers, checking it follows the contract of
// adi/method.hpp: landings filled in order, on_payload once per payload, with
// the landing last handed out.
class Recorder final : public adi::Upcalls {
public:
    // How the payloads that arrive next are taken: those of `next` first, one
    // each, then `limits`.
    Limits limits;
    std::deque<Limits> next;

    adi::Landing on_header(int peer, const adi::Header& h) override;
    adi::Landing on_landing_full(int peer, const adi::Header& h, const adi::Landing& landing) override;
    void on_payload(int peer, const adi::Header& h, const adi::Landing& landing) override;
    void on_sent(std::uint64_t token) override { sent.push_back(token); }
    void on_peer_failed(int peer, const std::string& why) override { failures.emplace_back(peer, why); }

    std::vector<adi::Header> headers;   // every packet's, payload or not
    std::vector<int> peers;             // who sent each of `headers`
    std::deque<Msg> msgs;               // a deque: landings point into elements that must not move
    std::size_t landed = 0;             // on_payload calls
    std::vector<std::uint64_t> sent;    // on_sent tokens, in order
    std::vector<std::uint64_t> queued;  // tokens of this process's sends that returned queued (World::send)
    std::vector<std::pair<int, std::string>> failures;

private:
    adi::Landing landing_next(Msg& m, std::size_t offset);
    static Msg& msg_of(const adi::Landing& l);
};

// n processes of one method. Each publishes (the last rank first, rank 0 last:
// shm's probe word is per process, and only the instance published last passes
// its peers' single-copy probe, so shm's rank 0 sends by single copy and its
// other ranks through the rings), then all connect at once, each on a thread
// of its own, since a method may wait there for its peers (shm does).
class World {
public:
    // Makes rank `ctx.rank`'s method; nullptr: that rank publishes nothing.
    using Maker = std::function<std::unique_ptr<adi::Method>(const adi::MethodContext&)>;
    // `cards` hold each rank's labels before publishing; `edit` may change the
    // published cards before everyone connects.
    World(const Maker& make, std::vector<wireup::BusinessCard> cards,
          const std::function<void(std::vector<wireup::BusinessCard>&)>& edit = {});
    ~World();
    World(const World&) = delete;
    World& operator=(const World&) = delete;

    int size() const { return static_cast<int>(methods_.size()); }
    // The cards as published (and edited).
    const std::vector<wireup::BusinessCard>& cards() const { return cards_; }
    adi::Method& method(int r) { return *methods_[static_cast<std::size_t>(r)]; }
    Recorder& in(int r) { return recorders_[static_cast<std::size_t>(r)]; }
    // The rank rank `r` talks to: the other of a pair, itself in a world of one.
    int peer(int r) const { return size() == 1 ? r : 1 - r; }

    // Sends and REQUIREs it did not fail; a queued send's token goes to in(from).queued.
    adi::SendStatus send(int from, int to, const adi::Header& h, std::span<const iovec> iov, std::uint64_t token);
    adi::SendStatus send(int from, int to, const adi::Header& h, const std::vector<std::byte>& data,
                         std::uint64_t token);
    void poll_all();
    // Polls every process until `done` holds (REQUIREd, as is that no link failed).
    void pump_until(const std::function<bool()>& done);
    // Polls until `to` has n payloads and every queued send of `from` completed.
    void pump_landed(int from, int to, std::size_t n);

private:
    std::vector<std::unique_ptr<adi::Method>> methods_;
    std::deque<Recorder> recorders_;
    std::vector<wireup::BusinessCard> cards_;
};

// Each send of the process `sender` records completed exactly once: at once
// (done), or by one on_sent when it was queued, never both.
void check_completed(const Recorder& sender);

// Payload i arrived at `r` with tag i and the bytes of want[i], and no other.
void check_in_order(const Recorder& r, const std::vector<std::vector<std::byte>>& want);

// Cards for n processes of one host ("localhost", host label `host`, vendor domain "v").
std::vector<wireup::BusinessCard> cards_local(int n, const std::string& host = "h1");

// A World whose processes are all of method M, for M's own tests.
template <class M>
class WorldOf : public World {
public:
    using World::World;
    // n processes of one host, each made by M's constructor from its context.
    explicit WorldOf(int n)
        : World([](const adi::MethodContext& ctx) { return std::make_unique<M>(ctx); }, cards_local(n)) {}
    M& at(int r) { return static_cast<M&>(method(r)); }
};

// Opens the link from `from` to `to` with an empty packet (tcp connects on
// first use), then clears both Recorders: a test sees only what follows.
void link_open(World& w, int from, int to);

// One method as the conformance suite runs it.
struct Subject {
    const char* name;    // what the test output calls it: "tcp", "ofi (shm)"
    const char* method;  // its caps().name and its name in adi's method table
    int processes;       // 2: a connected pair; 1: a rank talking to itself
    bool sends_now;      // implements send_now(), which a method may leave out
    // A connected world, or nullptr with `skip` saying why this machine cannot
    // run the method (a libfabric provider it does not have).
    std::unique_ptr<World> (*make)(std::string& skip);
};
// Every built method, in the order of adi's table.
std::span<const Subject> subjects();
// Built with the ofi method only: why this machine lacks libfabric
// `provider` (fi_getinfo finds no endpoint of the kind the method opens), or
// nullopt when it has it.
std::optional<std::string> ofi_missing(const char* provider);

// n bytes of a pattern that differs with `seed`.
std::vector<std::byte> pattern(std::size_t n, unsigned seed);
// A header of `type` whose every field is set, so that any change shows.
adi::Header header(adi::Packet type, int tag, std::size_t length);
bool same_header(const adi::Header& a, const adi::Header& b);
// "" when equal, else where the bytes first differ (Catch would print every byte).
std::string diff(const std::vector<std::byte>& got, const std::vector<std::byte>& want);
std::vector<std::byte> prefix(const std::vector<std::byte>& v, std::size_t n);
// Whether `fd` is readable within `ms` milliseconds (1), or not (0).
int readable(int fd, int ms);

}  // namespace strata::dev::testing
