// The shared-memory device within one process: two or three ShmMethod
// instances stand for the processes of one host, each with its own segment,
// driven by hand: what only shm does (rings, single copy, doorbells, segments).
// What every method does is in test_conformance.cpp. Only counters and events
// decide a test, never timing.
//
// All instances share this process's probe word, which the last publish()
// sets: only the instance published last passes its peers' single-copy probe.
// World publishes in reverse rank order, so rank 0 can send in a single copy
// (its peers read its memory) and every other rank streams large payloads
// through the rings: both paths are covered between the same instances.
#include <catch2/catch.hpp>

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "conformance.hpp"
#include "devices/shm/shm_method.hpp"

using namespace strata;
using strata::dev::shm::ShmMethod;
using strata::dev::testing::cards_local;
using strata::dev::testing::diff;
using strata::dev::testing::header;
using strata::dev::testing::Msg;
using strata::dev::testing::pattern;
using strata::dev::testing::readable;
using strata::dev::testing::Recorder;
using strata::dev::testing::WorldOf;

namespace {

// Names this process's segments in /dev/shm ("/strata-<pid>-<rank>-<salt>").
std::vector<std::string> my_segments() {
    std::vector<std::string> found;
    const std::string prefix = "strata-" + std::to_string(getpid()) + "-";
    if (DIR* d = opendir("/dev/shm")) {
        while (dirent* e = readdir(d)) {
            if (std::string(e->d_name).rfind(prefix, 0) == 0) found.emplace_back(e->d_name);
        }
        closedir(d);
    }
    return found;
}

std::vector<wireup::BusinessCard> cards_on(const std::vector<std::string>& hosts) {
    auto cards = cards_local(static_cast<int>(hosts.size()));
    for (std::size_t r = 0; r < hosts.size(); ++r) cards[r].host = hosts[r];
    return cards;
}

// n shm processes. hosts[r] is rank r's "host" label; an empty one means rank
// r publishes no shm address at all (no instance).
struct World : WorldOf<ShmMethod> {
    explicit World(const std::vector<std::string>& hosts,
                   const std::function<void(std::vector<wireup::BusinessCard>&)>& edit = {})
        : WorldOf<ShmMethod>(
              [hosts](const adi::MethodContext& ctx) -> std::unique_ptr<adi::Method> {
                  if (hosts[static_cast<std::size_t>(ctx.rank)].empty()) return nullptr;
                  return std::make_unique<ShmMethod>(ctx);
              },
              cards_on(hosts), edit) {
        // Every segment was mapped by all its peers: the last one removed its name.
        CHECK(my_segments().empty());
    }
};

// Round r of "payload bytes left in the ring": a payload of round_bytes(r)
// bytes tagged r, then an empty packet tagged 100000 + r.
std::size_t round_bytes(int round) { return 24 + static_cast<std::size_t>(round * 97 % 4000); }
void check_rounds(const Recorder& s, int rounds) {
    for (int round = 0; round < rounds; ++round) {
        const auto& m = s.msgs[static_cast<std::size_t>(2 * round)];
        INFO("round " << round);
        CHECK(m.header.tag == round);
        CHECK(m.data.size() == round_bytes(round));
        CHECK(s.msgs[static_cast<std::size_t>(2 * round + 1)].header.tag == 100000 + round);
    }
}

}  // namespace

TEST_CASE("shm: small packets are copied whole: done at once, and only the receiver polls") {
    World w({"h1", "h1"});
    const auto small = pattern(37, 1);
    CHECK(w.send(0, 1, header(adi::Packet::eager, 10, 0), std::vector<std::byte>{}, 0) == adi::SendStatus::done);
    CHECK(w.send(0, 1, header(adi::Packet::eager_sync, 11, small.size()), small, 0) == adi::SendStatus::done);
    CHECK(w.send(0, 1, header(adi::Packet::cts, 12, 123456), std::vector<std::byte>{}, 0) == adi::SendStatus::done);
    // Copied packets need nothing from the sender.
    for (long i = 0; i < 1000 && w.in(1).headers.size() < 3; ++i) w.at(1).poll(w.in(1));
    REQUIRE(w.in(1).headers.size() == 3);
    CHECK(w.in(1).landed == 2);
    CHECK(diff(w.in(1).msgs[1].data, small) == "");
    CHECK(w.in(0).sent.empty());
    CHECK(w.at(1).poll(w.in(1)) == 0);
}

TEST_CASE("shm: a large rendezvous payload crosses in a single copy") {
    World w({"h1", "h1"});
    REQUIRE(w.at(1).single_copy_from(0));
    const auto big = pattern(1 << 20, 5);
    const auto reads0 = w.at(1).single_copy_reads();
    CHECK(w.send(0, 1, header(adi::Packet::rndv_data, 1, big.size()), big, 42) == adi::SendStatus::queued);
    // The sender alone cannot complete it: the receiver has not read it yet.
    for (int i = 0; i < 100; ++i) w.at(0).poll(w.in(0));
    CHECK(w.in(0).sent.empty());
    for (long i = 0; i < 1000 && w.in(1).landed == 0; ++i) w.at(1).poll(w.in(1));
    REQUIRE(w.in(1).landed == 1);
    CHECK(diff(w.in(1).msgs[0].data, big) == "");
    CHECK(w.at(1).single_copy_reads() > reads0);
    // The completion record goes back through the sender's inbox.
    for (long i = 0; i < 1000 && w.in(0).sent.empty(); ++i) w.at(0).poll(w.in(0));
    CHECK(w.in(0).sent == std::vector<std::uint64_t>{42});
    CHECK(w.in(1).failures.empty());
}

TEST_CASE("shm: a single copy into 64 KiB landings, from scattered buffers, reads each landing itself") {
    World w({"h1", "h1"});
    REQUIRE(w.at(1).single_copy_from(0));
    // Landings that end inside the sender's iovecs, and iovecs of one byte.
    std::vector<std::vector<std::byte>> parts = {pattern(70000, 1), pattern(1, 2), pattern(300001, 3),
                                                 pattern(12345, 4), pattern(1, 5), pattern(700000, 6)};
    std::vector<iovec> iov;
    std::vector<std::byte> whole;
    for (auto& p : parts) {
        iov.push_back(iovec{p.data(), p.size()});
        whole.insert(whole.end(), p.begin(), p.end());
    }
    w.in(1).limits.window = 65536;
    CHECK(w.send(0, 1, header(adi::Packet::rndv_data, 2, whole.size()), iov, 43) == adi::SendStatus::queued);
    w.pump_until([&] { return w.in(1).landed == 1 && w.in(0).sent.size() == 1; });
    const Msg& m = w.in(1).msgs[0];
    CHECK(diff(m.data, whole) == "");
    CHECK(w.at(1).single_copy_reads() >= m.windows);
    CHECK(w.in(0).sent.back() == 43);
}

TEST_CASE("shm: without single copy, a large payload streams through the ring") {
    World w({"h1", "h1"});
    // Rank 0 cannot read rank 1's memory (see the top of the file).
    REQUIRE_FALSE(w.at(0).single_copy_from(1));
    const auto big = pattern(1 << 20, 9);
    w.in(0).limits.window = 65536;
    CHECK(w.send(1, 0, header(adi::Packet::rndv_data, 1, big.size()), big, 7) == adi::SendStatus::queued);
    w.pump_until([&] { return w.in(0).landed == 1 && w.in(1).sent.size() == 1; });
    CHECK(diff(w.in(0).msgs[0].data, big) == "");
    CHECK(w.in(1).sent == std::vector<std::uint64_t>{7});
    CHECK(w.at(0).single_copy_reads() == 0);
}

TEST_CASE("shm: a full ring queues sends until the receiver drains it") {
    World w({"h1", "h1"});
    constexpr std::size_t kCount = 300;
    std::vector<std::vector<std::byte>> data;
    for (std::size_t i = 0; i < kCount; ++i) data.push_back(pattern(i % 10 == 9 ? 20000 : 4000 + i, static_cast<unsigned>(i)));
    std::vector<adi::SendStatus> st;
    for (std::size_t i = 0; i < kCount; ++i) st.push_back(w.send(0, 1, header(adi::Packet::eager, static_cast<int>(i), data[i].size()), data[i], 500 + i));
    // The first packets fit; from the first queued one on, everything queues
    // behind it (order), and nothing more fits until the receiver reads.
    const auto first_queued = std::find(st.begin(), st.end(), adi::SendStatus::queued);
    REQUIRE(first_queued != st.end());
    CHECK(first_queued != st.begin());
    CHECK(std::all_of(first_queued, st.end(), [](adi::SendStatus s) { return s == adi::SendStatus::queued; }));
    CHECK(w.at(0).has_queued_sends());
    for (int i = 0; i < 10; ++i) w.at(0).poll(w.in(0));
    CHECK(w.in(0).sent.empty());
    CHECK(w.in(1).landed == 0);

    // The sender may sleep while it waits for room: the receiver's drain must
    // ring its doorbell.
    REQUIRE(w.at(0).sleep_prepare());
    CHECK(readable(w.at(0).wait_fd(), 0) == 0);
    w.at(1).poll(w.in(1));
    const std::size_t first_batch = w.in(1).landed;
    CHECK(first_batch == static_cast<std::size_t>(first_queued - st.begin()));
    CHECK(readable(w.at(0).wait_fd(), 5000) == 1);
    w.at(0).sleep_end();
    CHECK(readable(w.at(0).wait_fd(), 0) == 0);

    // Alternate receiver and sender until everything arrived.
    for (long i = 0; i < 100000 && (w.in(1).landed < kCount || w.at(0).has_queued_sends()); ++i) {
        w.at(1).poll(w.in(1));
        w.at(0).poll(w.in(0));
    }
    REQUIRE(w.in(1).landed == kCount);
    for (std::size_t i = 0; i < kCount; ++i) {
        INFO("packet " << i);
        CHECK(w.in(1).msgs[i].header.tag == static_cast<int>(i));
        CHECK(diff(w.in(1).msgs[i].data, data[i]) == "");
    }
    CHECK_FALSE(w.at(0).has_queued_sends());
    std::vector<std::uint64_t> expect;
    for (std::size_t i = static_cast<std::size_t>(first_queued - st.begin()); i < kCount; ++i) expect.push_back(500 + i);
    CHECK(w.in(0).sent == expect);  // in order, each once
    CHECK(w.in(0).failures.empty());
    CHECK(w.in(1).failures.empty());
}

TEST_CASE("shm: payload bytes left in the ring are never taken for a record") {
    // The reader finds records by their first word. Payloads here are made of
    // words that look like records (size 64, kind "packet"), and the sizes
    // shift record starts around for many laps of the 128 KiB ring, so every
    // line start lands on old payload bytes now and then: only the clearing of
    // consumed lines keeps the reader from taking them for records.
    World w({"h1", "h1"});
    std::vector<std::byte> fake(4096);
    const std::uint64_t word = 64 | std::uint64_t{1} << 32;
    for (std::size_t i = 0; i + 8 <= fake.size(); i += 8) std::memcpy(fake.data() + i, &word, 8);
    std::size_t sent = 0;
    std::size_t total = 0;
    for (int round = 0; round < 400; ++round) {
        const std::size_t n = round_bytes(round);
        const std::vector<std::byte> data(fake.begin(), fake.begin() + static_cast<std::ptrdiff_t>(n));
        REQUIRE(w.send(0, 1, header(adi::Packet::eager, round, n), data, 0) == adi::SendStatus::done);
        REQUIRE(w.send(0, 1, header(adi::Packet::eager, 100000 + round, 0), std::vector<std::byte>{}, 0) ==
                adi::SendStatus::done);
        sent += 2;
        total += n;
        // Read everything, then poll again: an old line must not look like news.
        for (int i = 0; i < 3; ++i) w.at(1).poll(w.in(1));
        REQUIRE(w.in(1).landed == sent);
    }
    CHECK(total > 6 * 131072);  // several laps
    REQUIRE(w.in(1).msgs.size() == sent);
    check_rounds(w.in(1), 400);
    CHECK(w.at(1).poll(w.in(1)) == 0);
    CHECK_FALSE(w.at(1).busy());
}

TEST_CASE("shm: send_now refuses what the ring cannot take now, and keeps nothing it refused") {
    World w({"h1", "h1"});
    const auto data = pattern(3000, 5);
    // Fill the ring with send_now alone: it refuses once a packet no longer fits.
    int accepted = 0;
    while (w.at(0).send_now(1, header(adi::Packet::eager, accepted, data.size()), data.data(), data.size())) {
        ++accepted;
        REQUIRE(accepted < 1000);
    }
    CHECK(accepted > 10);
    CHECK_FALSE(w.at(0).has_queued_sends());  // refused means nothing was kept
    // A normal send now queues; once the receiver made room, one poll of the
    // sender sends it (send_now meanwhile refuses: the conformance suite).
    REQUIRE(w.send(0, 1, header(adi::Packet::eager, accepted, data.size()), data, 77) == adi::SendStatus::queued);
    w.at(1).poll(w.in(1));
    CHECK(w.in(1).landed == static_cast<std::size_t>(accepted));
    w.at(0).poll(w.in(0));
    CHECK(w.in(0).sent == std::vector<std::uint64_t>{77});
    w.pump_until([&] { return w.in(1).landed == static_cast<std::size_t>(accepted) + 1; });
    // Too big for one record: refused whatever the room.
    const auto big = pattern(40000, 6);
    CHECK_FALSE(w.at(0).send_now(1, header(adi::Packet::eager, 9999, big.size()), big.data(), big.size()));
    CHECK_FALSE(w.at(0).has_queued_sends());
}

TEST_CASE("shm: a single-copy send queued behind a full ring completes once") {
    World w({"h1", "h1"});
    std::vector<std::vector<std::byte>> small;
    for (unsigned i = 0; i < 40; ++i) small.push_back(pattern(8000, i));
    for (unsigned i = 0; i < small.size(); ++i) w.send(0, 1, header(adi::Packet::eager, static_cast<int>(i), small[i].size()), small[i], 0);
    REQUIRE(w.at(0).has_queued_sends());
    const auto big = pattern(500000, 77);
    CHECK(w.send(0, 1, header(adi::Packet::rndv_data, 40, big.size()), big, 4242) == adi::SendStatus::queued);
    const auto reads = w.at(1).single_copy_reads();
    w.pump_until([&] { return w.in(1).landed == 41 && !w.in(0).sent.empty() && !w.at(0).has_queued_sends(); });
    for (int i = 0; i < 100; ++i) w.poll_all();
    CHECK(w.in(0).sent == std::vector<std::uint64_t>{4242});  // not once from the ring and again from the reader
    CHECK(diff(w.in(1).msgs[40].data, big) == "");
    CHECK(w.at(1).single_copy_reads() > reads);
    for (unsigned i = 0; i < small.size(); ++i) CHECK(diff(w.in(1).msgs[i].data, small[i]) == "");
}

TEST_CASE("shm: a payload in more iovecs than a single-copy descriptor holds streams through the ring") {
    World w({"h1", "h1"});
    std::vector<std::vector<std::byte>> parts;
    std::vector<iovec> iov;
    std::vector<std::byte> whole;
    for (unsigned i = 0; i < 100; ++i) parts.push_back(pattern(1000 + i * 37, i));
    parts.push_back({});  // an empty piece in between
    for (unsigned i = 0; i < 20; ++i) parts.push_back(pattern(5, i));
    for (auto& p : parts) {
        iov.push_back(iovec{p.data(), p.size()});
        whole.insert(whole.end(), p.begin(), p.end());
    }
    REQUIRE(whole.size() > 100000);
    const auto reads = w.at(1).single_copy_reads();
    w.send(0, 1, header(adi::Packet::rndv_data, 1, whole.size()), iov, 5);
    w.pump_until([&] { return w.in(1).landed == 1 && w.in(0).sent.size() == 1; });
    CHECK(diff(w.in(1).msgs[0].data, whole) == "");
    CHECK(w.at(1).single_copy_reads() == reads);
    CHECK(w.in(0).sent == std::vector<std::uint64_t>{5});

    // Up to the limit, with empty pieces, it goes by single copy.
    std::vector<iovec> iov64(iov.begin(), iov.begin() + 60);
    iov64.push_back(iovec{parts[100].data(), 0});
    iov64.insert(iov64.end(), iov.begin() + 60, iov.begin() + 63);
    REQUIRE(iov64.size() == 64);
    std::vector<std::byte> want;
    for (const iovec& v : iov64) want.insert(want.end(), static_cast<std::byte*>(v.iov_base), static_cast<std::byte*>(v.iov_base) + v.iov_len);
    w.in(1).limits.window = 4096;  // windows that cut through the pieces
    w.send(0, 1, header(adi::Packet::rndv_data, 2, want.size()), iov64, 6);
    w.pump_until([&] { return w.in(1).landed == 2 && w.in(0).sent.size() == 2; });
    CHECK(diff(w.in(1).msgs[1].data, want) == "");
    CHECK(w.at(1).single_copy_reads() > reads);
}

TEST_CASE("shm: three processes exchange with each other at once") {
    World w({"h1", "h1", "h1"});
    CHECK(w.at(1).single_copy_from(0));
    CHECK(w.at(2).single_copy_from(0));
    CHECK_FALSE(w.at(2).single_copy_from(1));
    constexpr int kPer = 60;
    std::vector<std::vector<std::byte>> data[3][3];
    for (int from = 0; from < 3; ++from) {
        for (int to = 0; to < 3; ++to) {
            if (to == from) continue;
            for (int i = 0; i < kPer; ++i) {
                const std::size_t n = i % 13 == 0 ? 150000 + static_cast<std::size_t>(i) : static_cast<std::size_t>(i * 97 % 9000);
                data[from][to].push_back(pattern(n, static_cast<unsigned>(from * 1000 + to * 100 + i)));
            }
        }
    }
    // Interleave: every round each rank sends one packet to each peer.
    for (int i = 0; i < kPer; ++i) {
        for (int from = 0; from < 3; ++from) {
            for (int to = 0; to < 3; ++to) {
                if (to == from) continue;
                const auto& d = data[from][to][static_cast<std::size_t>(i)];
                const auto type = d.size() > 100000 ? adi::Packet::rndv_data : adi::Packet::eager;
                w.send(from, to, header(type, i, d.size()), d, static_cast<std::uint64_t>(1 + i));
            }
        }
        w.poll_all();
    }
    w.pump_until([&] {
        for (int r = 0; r < 3; ++r) {
            if (w.in(r).landed != 2 * kPer || w.at(r).has_queued_sends()) return false;
        }
        return true;
    });
    for (int to = 0; to < 3; ++to) {
        int next[3] = {0, 0, 0};
        for (const Msg& m : w.in(to).msgs) {
            const int from = m.peer;
            REQUIRE(from >= 0);
            REQUIRE(from < 3);
            REQUIRE(from != to);
            INFO("from " << from << " to " << to << " packet " << next[from]);
            CHECK(m.header.tag == next[from]);
            CHECK(diff(m.data, data[from][to][static_cast<std::size_t>(next[from])]) == "");
            ++next[from];
        }
    }
}

TEST_CASE("shm: reaches only other processes of the same host that published an address") {
    // Ranks 0 and 1 on h1, rank 2 alone on h2, rank 3 on h1 without shm.
    World w({"h1", "h1", "h2", ""});
    CHECK_FALSE(w.at(0).reaches(0));
    CHECK(w.at(0).reaches(1));
    CHECK_FALSE(w.at(0).reaches(2));
    CHECK_FALSE(w.at(0).reaches(3));
    CHECK_FALSE(w.at(0).reaches(-1));
    CHECK_FALSE(w.at(0).reaches(4));
    CHECK(w.at(1).reaches(0));
    CHECK_FALSE(w.at(1).reaches(1));
    CHECK_FALSE(w.at(1).reaches(3));
    for (int r = 0; r < 4; ++r) CHECK_FALSE(w.at(2).reaches(r));
    // The lone process has nothing to wait for and sleeps at once.
    CHECK(w.at(2).sleep_prepare());
    w.at(2).sleep_end();
    CHECK(w.at(2).poll(w.in(2)) == 0);
    // The pair still works.
    const auto d = pattern(100, 1);
    w.send(1, 0, header(adi::Packet::eager, 1, d.size()), d, 0);
    w.pump_until([&] { return w.in(0).landed == 1; });
    CHECK(diff(w.in(0).msgs[0].data, d) == "");
}

TEST_CASE("shm: processes of another account on the same host are left to other methods") {
    // Rank 2 claims another uid: ranks 0 and 1 must not count it as local (they
    // could not open each other's 0600 segments), and it must agree.
    World w({"h1", "h1", "h1"}, [](std::vector<wireup::BusinessCard>& cards) {
        for (auto& [method, address] : cards[2].entries) {
            if (method == "shm") address = address.substr(0, address.rfind(',') + 1) + std::to_string(::getuid() + 1);
        }
    });
    CHECK(w.at(0).reaches(1));
    CHECK(w.at(1).reaches(0));
    for (int r : {0, 1}) CHECK_FALSE(w.at(r).reaches(2));
    for (int r = 0; r < 3; ++r) CHECK_FALSE(w.at(2).reaches(r));
    const auto d = pattern(64, 2);
    w.send(0, 1, header(adi::Packet::eager, 1, d.size()), d, 0);
    w.pump_until([&] { return w.in(1).landed == 1; });
    CHECK(diff(w.in(1).msgs[0].data, d) == "");
}

TEST_CASE("shm: processes of another data representation on the same host are left to other methods") {
    // Rank 2 stores data otherwise (another byte order, as a process under
    // qemu-user would): shm would cross records in host byte order, so
    // neither side counts the other as local and TCP carries their link.
    World w({"h1", "h1", "h1"}, [](std::vector<wireup::BusinessCard>& cards) {
        for (auto& c : cards) c.publish(adi::kRepresentationEntry, std::string("L-little"));
        cards[2].publish(adi::kRepresentationEntry, std::string("B-big"));
    });
    CHECK(w.at(0).reaches(1));
    CHECK(w.at(1).reaches(0));
    for (int r : {0, 1}) CHECK_FALSE(w.at(r).reaches(2));
    for (int r = 0; r < 3; ++r) CHECK_FALSE(w.at(2).reaches(r));
    const auto d = pattern(64, 3);
    w.send(1, 0, header(adi::Packet::eager, 1, d.size()), d, 0);
    w.pump_until([&] { return w.in(0).landed == 1; });
    CHECK(diff(w.in(0).msgs[0].data, d) == "");
}

TEST_CASE("shm: a sleeping receiver's doorbell rings when a packet arrives") {
    World w({"h1", "h1"});
    const int fd = w.at(1).wait_fd();
    REQUIRE(fd >= 0);
    CHECK_FALSE(w.at(1).busy());
    REQUIRE(w.at(1).sleep_prepare());
    CHECK(readable(fd, 0) == 0);
    const auto d = pattern(64, 3);
    w.send(0, 1, header(adi::Packet::eager, 1, d.size()), d, 0);
    CHECK(readable(fd, 5000) == 1);
    w.at(1).sleep_end();
    CHECK(readable(fd, 0) == 0);  // sleep_end consumed the ring

    // A packet waits: no sleeping, and no doorbell needed.
    CHECK(w.at(1).busy());
    CHECK_FALSE(w.at(1).sleep_prepare());
    w.send(0, 1, header(adi::Packet::eager, 2, d.size()), d, 0);
    CHECK(readable(fd, 0) == 0);
    w.at(1).sleep_end();
    w.at(1).poll(w.in(1));
    REQUIRE(w.in(1).landed == 2);
    CHECK(w.in(1).msgs[1].header.tag == 2);

    // Empty again: sleeps. A process that is awake is not rung.
    CHECK(w.at(1).sleep_prepare());
    w.at(1).sleep_end();
    w.send(0, 1, header(adi::Packet::eager, 3, d.size()), d, 0);
    CHECK(readable(fd, 0) == 0);
    CHECK_FALSE(w.at(1).sleep_prepare());
    w.at(1).sleep_end();
    w.at(1).poll(w.in(1));
    CHECK(w.in(1).landed == 3);

    // A single-copy send wakes the receiver too, and its completion wakes the sender.
    const auto big = pattern(300000, 4);
    REQUIRE(w.at(1).sleep_prepare());
    CHECK(w.send(0, 1, header(adi::Packet::rndv_data, 4, big.size()), big, 99) == adi::SendStatus::queued);
    CHECK(readable(fd, 5000) == 1);
    w.at(1).sleep_end();
    REQUIRE(w.at(0).sleep_prepare());
    w.at(1).poll(w.in(1));
    CHECK(diff(w.in(1).msgs.back().data, big) == "");
    CHECK(readable(w.at(0).wait_fd(), 5000) == 1);
    w.at(0).sleep_end();
    w.at(0).poll(w.in(0));
    CHECK(w.in(0).sent == std::vector<std::uint64_t>{99});
}

TEST_CASE("shm: each process tells its peers the core it waits on, and learns whether one waited there") {
    World w({"h1", "h1", "h1"});
    CHECK_FALSE(w.at(0).shares_cpu(3));  // nobody said anything yet
    CHECK(w.at(1).shares_cpu(3));        // 0 waited on core 3
    CHECK_FALSE(w.at(2).shares_cpu(5));  // 0 and 1 on 3
    CHECK(w.at(0).shares_cpu(5));        // 2 on 5
    CHECK_FALSE(w.at(0).shares_cpu(-1)); // core unknown: no answer, nothing said
    CHECK(w.at(1).shares_cpu(5));        // 0 and 2 on 5 (0 kept what it said)
}

TEST_CASE("shm: shutdown leaves nothing in /dev/shm") {
    {
        World w({"h1", "h1", "h1"});
        const auto d = pattern(10, 1);
        w.send(2, 0, header(adi::Packet::eager, 1, d.size()), d, 0);
        w.pump_until([&] { return w.in(0).landed == 1; });
        for (int r = 0; r < 3; ++r) w.at(r).shutdown();
        CHECK(w.at(0).wait_fd() == -1);
    }
    CHECK(my_segments().empty());
}

TEST_CASE("shm: a reader that keeps finding packets never takes a consumed line for a new one") {
    // Consumed lines are cleared and handed back in batches: when a poll finds
    // nothing, or a quarter of the ring is held. Here the writer refills all
    // the room it has before every poll, so every poll finds packets: the
    // quarter rule alone must hand lines back, and before the reader could
    // come round to a consumed, uncleared line.
    World w({"h1", "h1"});
    const auto d = pattern(16, 3);  // one 64-byte line per record
    int sent = 0;
    for (int step = 0; step < 40; ++step) {
        // Odd steps fill the ring; even ones leave room, so record starts move
        // against the quarter marks.
        const int before = sent;
        const int most = step % 2 == 0 ? 1000 + step : 1 << 30;
        while (sent - before < most &&
               w.at(0).send_now(1, header(adi::Packet::eager, sent, d.size()), d.data(), d.size())) {
            ++sent;
        }
        INFO("step " << step);
        REQUIRE(sent > before);  // room came back
        REQUIRE(w.at(1).poll(w.in(1)) == sent - before);
        REQUIRE(w.in(1).landed == static_cast<std::size_t>(sent));
    }
    CHECK(sent > 8 * 131072 / 64);  // many laps of the ring
    for (int i = 0; i < sent; ++i) {
        if (w.in(1).msgs[static_cast<std::size_t>(i)].header.tag != i) FAIL("packet " << i << " out of order");
    }
    // An idle poll hands back everything: the whole ring is free again.
    CHECK(w.at(1).poll(w.in(1)) == 0);
    int room = 0;
    while (w.at(0).send_now(1, header(adi::Packet::eager, sent + room, d.size()), d.data(), d.size())) ++room;
    CHECK(room == 131072 / 64);
}

TEST_CASE("shm: poll_peer reads only the ring of the peer asked for") {
    World w({"h1", "h1", "h1"});
    const auto d = pattern(100, 4);
    w.send(1, 0, header(adi::Packet::eager, 1, d.size()), d, 0);
    w.send(2, 0, header(adi::Packet::eager, 2, d.size()), d, 0);
    CHECK(w.at(0).poll_peer(1, w.in(0)) == 1);
    REQUIRE(w.in(0).landed == 1);
    CHECK(w.in(0).msgs[0].peer == 1);
    CHECK(w.at(0).poll_peer(1, w.in(0)) == 0);
    CHECK(w.at(0).busy());  // rank 2's packet still waits
    CHECK(w.at(0).poll(w.in(0)) == 1);
    CHECK(w.in(0).msgs[1].peer == 2);
    CHECK(diff(w.in(0).msgs[1].data, d) == "");
}

TEST_CASE("shm: a large single copy is shared: the waiting sender copies chunks into the landing too") {
    // The sender writes into the receiver's memory: rank 0 must pass its probe
    // of rank 1 too, so rank 1's card names the probe value that rank 0 left
    // in this process's probe word (see the top of the file).
    World w({"h1", "h1"}, [](std::vector<wireup::BusinessCard>& cards) {
        auto field = [](const std::string& a, int i) {
            std::size_t at = 0;
            for (int k = 0; k < i; ++k) at = a.find(',', at) + 1;
            return std::pair{at, a.find(',', at) - at};
        };
        std::string& one = cards[1].entries.at(0).second;
        const std::string& zero = cards[0].entries.at(0).second;
        const auto [from, len] = field(zero, 3);
        const auto [to, old_len] = field(one, 3);
        one.replace(to, old_len, zero.substr(from, len));
    });
    REQUIRE(w.at(1).single_copy_from(0));
    REQUIRE(w.at(0).single_copy_from(1));
    std::uint64_t token = 100;
    // Sizes around the chunk (128 KiB): the smallest shared one, one ending
    // inside a chunk, a large one.
    for (std::size_t n : {std::size_t{256 * 1024}, std::size_t{(1 << 20) + 13}, std::size_t{8 << 20}}) {
        INFO("payload " << n);
        const auto big = pattern(n, static_cast<unsigned>(n % 251));
        const auto reads = w.at(1).single_copy_reads();
        const auto writes = w.at(0).shared_writes();
        const std::size_t landed = w.in(1).landed;
        const std::size_t sent = w.in(0).sent.size();
        ++token;
        REQUIRE(w.send(0, 1, header(adi::Packet::rndv_data, 7, n), big, token) == adi::SendStatus::queued);
        // Both ends poll at once, as two processes would.
        std::thread sender([&] {
            for (long i = 0; i < 20'000'000 && w.in(0).sent.size() == sent; ++i) w.at(0).poll(w.in(0));
        });
        for (long i = 0; i < 20'000'000 && w.in(1).landed == landed; ++i) w.at(1).poll(w.in(1));
        sender.join();
        REQUIRE(w.in(1).landed == landed + 1);
        REQUIRE(w.in(0).sent.size() == sent + 1);
        CHECK(w.in(0).sent.back() == token);
        CHECK(diff(w.in(1).msgs.back().data, big) == "");
        // Every chunk was copied once, by one end or the other.
        const std::size_t chunks = (n + 128 * 1024 - 1) / (128 * 1024);
        CHECK((w.at(1).single_copy_reads() - reads) + (w.at(0).shared_writes() - writes) == chunks);
        CHECK(w.in(0).failures.empty());
        CHECK(w.in(1).failures.empty());
    }
}

namespace {

// Two jobs on one host joined as MPI_Comm_accept joins them (adi::PeerSet):
// job a (the accepting group, set ranks 0..) and job b after it, each of its
// processes adding the other job's after its own (engine indexes from its
// job's size). Every process adds at once, on a thread of its own: each maps
// the others' inboxes for the set.
struct TwoJobs {
    World a;
    World b;
    std::uint64_t id;
    TwoJobs(const std::vector<std::string>& hosts_a, const std::vector<std::string>& hosts_b, std::uint64_t set_id = 77)
        : a(hosts_a), b(hosts_b), id(set_id) {
        join();
    }
    void join() {
        std::vector<std::thread> threads;
        std::vector<int> took(static_cast<std::size_t>(a.size() + b.size()), 0);
        for (int r = 0; r < a.size() + b.size(); ++r) {
            threads.emplace_back([this, r, &took] {
                took[static_cast<std::size_t>(r)] = (r < a.size() ? a.at(r) : b.at(r - a.size())).peers_add(set_for(r)) ? 1 : 0;
            });
        }
        for (auto& t : threads) t.join();
        CHECK(std::all_of(took.begin(), took.end(), [](int t) { return t == 1; }));
    }
    // What set rank r adds: the other job's processes.
    adi::PeerSet set_for(int r) const {
        adi::PeerSet s;
        s.id = id;
        s.key = "port-key";
        s.my_rank = static_cast<std::uint32_t>(r);
        const bool in_a = r < a.size();
        s.first_rank = in_a ? static_cast<std::uint32_t>(a.size()) : 0;
        s.first = in_a ? a.size() : b.size();
        s.cards = in_a ? b.cards() : a.cards();
        return s;
    }
    // Polls everything until `done`.
    void pump_until(const std::function<bool()>& done) {
        for (int i = 0; i < 2000000 && !done(); ++i) {
            for (int r = 0; r < a.size(); ++r) a.at(r).poll(a.in(r));
            for (int r = 0; r < b.size(); ++r) b.at(r).poll(b.in(r));
        }
        REQUIRE(done());
    }
};

}  // namespace

TEST_CASE("shm: processes of two jobs on one host exchange through rings of their own") {
    TwoJobs j({"h1", "h1"}, {"h1"});
    // a's ranks reach b's process at index 2; b's reaches a's at 1 and 2.
    for (int r = 0; r < 2; ++r) {
        CHECK(j.a.at(r).reaches(2));
        CHECK_FALSE(j.a.at(r).reaches(3));
    }
    CHECK(j.b.at(0).reaches(1));
    CHECK(j.b.at(0).reaches(2));
    CHECK_FALSE(j.b.at(0).reaches(0));
    // Every inbox was mapped by its peers, the job's and the set's: no name left.
    CHECK(my_segments().empty());

    // Small packets both ways, and the jobs' own links still work.
    const auto d = pattern(200, 5);
    const iovec dv{const_cast<std::byte*>(d.data()), d.size()};
    CHECK(j.b.at(0).send(1, header(adi::Packet::eager, 11, d.size()), {&dv, 1}, 0) == adi::SendStatus::done);
    CHECK(j.a.at(1).send(2, header(adi::Packet::eager, 12, d.size()), {&dv, 1}, 0) == adi::SendStatus::done);
    j.a.send(0, 1, header(adi::Packet::eager, 13, d.size()), d, 0);
    j.pump_until([&] { return j.a.in(0).landed == 1 && j.b.in(0).landed == 1 && j.a.in(1).landed == 1; });
    CHECK(j.a.in(0).msgs[0].peer == 2);
    CHECK(j.a.in(0).msgs[0].header.tag == 11);
    CHECK(j.b.in(0).msgs[0].peer == 2);  // a's rank 1, at b's index 1 + 1
    CHECK(j.b.in(0).msgs[0].header.tag == 12);
    CHECK(j.a.in(1).msgs[0].peer == 0);
    CHECK(diff(j.a.in(0).msgs[0].data, d) == "");

    // Large payloads: b was published last, so a reads b's memory (single
    // copy) and b's reads of a stream through the ring.
    CHECK(j.a.at(0).single_copy_from(2));
    CHECK_FALSE(j.b.at(0).single_copy_from(1));
    const auto big = pattern(1 << 20, 6);
    const iovec v{const_cast<std::byte*>(big.data()), big.size()};
    CHECK(j.b.at(0).send(1, header(adi::Packet::rndv_data, 21, big.size()), {&v, 1}, 501) == adi::SendStatus::queued);
    const auto st = j.a.at(0).send(2, header(adi::Packet::rndv_data, 22, big.size()), {&v, 1}, 502);
    REQUIRE(st != adi::SendStatus::failed);
    j.pump_until([&] {
        return j.a.in(0).landed == 2 && j.b.in(0).landed == 2 && !j.b.in(0).sent.empty() &&
               (st == adi::SendStatus::done || !j.a.in(0).sent.empty());
    });
    CHECK(diff(j.a.in(0).msgs[1].data, big) == "");
    CHECK(diff(j.b.in(0).msgs[1].data, big) == "");
    CHECK(j.a.at(0).single_copy_reads() > 0);
    CHECK(j.b.in(0).sent == std::vector<std::uint64_t>{501});
}

TEST_CASE("shm: a sleeping process is woken by another job's packet") {
    TwoJobs j({"h1"}, {"h1"});
    REQUIRE(j.a.at(0).sleep_prepare());
    const auto d = pattern(64, 7);
    const iovec v{const_cast<std::byte*>(d.data()), d.size()};
    CHECK(j.b.at(0).send(1, header(adi::Packet::eager, 1, d.size()), {&v, 1}, 0) == adi::SendStatus::done);
    CHECK(readable(j.a.at(0).wait_fd(), 5000) == 1);
    j.a.at(0).sleep_end();
    j.a.at(0).poll(j.a.in(0));
    CHECK(j.a.in(0).landed == 1);
}

TEST_CASE("shm: another job's process on another host, of another account or another ring size is left to TCP") {
    TwoJobs j({"h1", "h2"}, {"h1"});
    CHECK(j.a.at(0).reaches(2));
    CHECK_FALSE(j.a.at(1).reaches(2));
    CHECK(j.b.at(0).reaches(1));
    CHECK_FALSE(j.b.at(0).reaches(2));
    // The ring size is in the card: processes that laid theirs out otherwise share none.
    wireup::BusinessCard other = j.b.cards()[0];
    for (auto& [method, address] : other.entries) {
        if (method != "shm") continue;
        const auto uid = address.rfind(',');
        const auto ring = address.rfind(',', uid - 1);
        address = address.substr(0, ring + 1) + "262144" + address.substr(uid);
    }
    CHECK(ShmMethod::links(j.b.cards()[0], j.a.cards()[0]));
    CHECK_FALSE(ShmMethod::links(other, j.a.cards()[0]));
}

TEST_CASE("shm: closing a set's links drops its processes and inboxes; a later set joins again") {
    TwoJobs j({"h1"}, {"h1"});
    j.a.at(0).peers_close(1, 1);
    j.b.at(0).peers_close(1, 1);
    CHECK_FALSE(j.a.at(0).reaches(1));
    CHECK_FALSE(j.b.at(0).reaches(1));
    j.id = 78;  // a new connection: a new set at the next indexes
    std::vector<std::thread> threads;
    adi::PeerSet sa = j.set_for(0);
    adi::PeerSet sb = j.set_for(1);
    sa.first = 2;
    sb.first = 2;
    threads.emplace_back([&] { CHECK(j.a.at(0).peers_add(sa)); });
    threads.emplace_back([&] { CHECK(j.b.at(0).peers_add(sb)); });
    for (auto& t : threads) t.join();
    CHECK(j.a.at(0).reaches(2));
    const auto d = pattern(100, 8);
    const iovec v{const_cast<std::byte*>(d.data()), d.size()};
    CHECK(j.b.at(0).send(2, header(adi::Packet::eager, 3, d.size()), {&v, 1}, 0) == adi::SendStatus::done);
    j.pump_until([&] { return j.a.in(0).landed == 1; });
    CHECK(j.a.in(0).msgs[0].peer == 2);
    CHECK(my_segments().empty());
}

TEST_CASE("shm: a waiting process learns that another job's process ended") {
    TwoJobs j({"h1"}, {"h1"});
    const auto d = pattern(100, 9);
    const iovec v{const_cast<std::byte*>(d.data()), d.size()};
    // A send that waits for the other job's reply, never read: its ring is full.
    while (j.a.at(0).send_now(1, header(adi::Packet::eager, 1, d.size()), d.data(), d.size())) {
    }
    CHECK(j.a.at(0).send(1, header(adi::Packet::eager, 2, d.size()), {&v, 1}, 33) == adi::SendStatus::queued);
    CHECK(j.a.at(0).has_queued_sends());
    // Its last packet, then it ends (its doorbell goes with it, as with a
    // process that exits): the packet is delivered before the end is reported.
    CHECK(j.b.at(0).send(1, header(adi::Packet::eager, 9, d.size()), {&v, 1}, 0) == adi::SendStatus::done);
    j.b.at(0).shutdown();
    CHECK_FALSE(j.a.at(0).sleep_prepare());
    j.a.at(0).poll(j.a.in(0));
    CHECK(j.a.in(0).landed == 1);
    CHECK(j.a.in(0).failures.empty());
    // Checked while waiting, at most every 100 ms: no timing decides, only that it comes.
    for (int i = 0; i < 10000 && j.a.in(0).failures.empty(); ++i) {
        if (j.a.at(0).sleep_prepare()) {
            j.a.at(0).sleep_end();
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        j.a.at(0).poll(j.a.in(0));
    }
    REQUIRE(j.a.in(0).failures.size() == 1);
    CHECK(j.a.in(0).failures[0].first == 1);
    CHECK_THAT(j.a.in(0).failures[0].second, Catch::Contains("of the other job") && Catch::Contains("ended"));
    CHECK_FALSE(j.a.at(0).has_queued_sends());  // the engine failed those requests
    CHECK(j.a.at(0).send(1, header(adi::Packet::eager, 3, d.size()), {&v, 1}, 34) == adi::SendStatus::failed);
    CHECK(j.a.at(0).sleep_prepare());  // reported once
    j.a.at(0).sleep_end();
}
