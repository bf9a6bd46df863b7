// Ports (wireup/port.hpp): the names MPI_Open_port writes, the messages of
// the conversation between two roots, the proofs and the connection's key,
// and the channel over a real loopback socket.
#include <catch2/catch.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "wireup/port.hpp"

using namespace strata;
using namespace strata::wireup::port;
using strata::base::wire::decode;

namespace {

Name sample() {
    Name n;
    n.address.append("10.0.0.7,127.0.0.1:40123");
    n.id = 0x0123456789abcdefULL;
    for (std::size_t i = 0; i < n.secret.size(); ++i) n.secret[i] = static_cast<std::uint8_t>(i * 7);
    return n;
}

wireup::BusinessCard card(const std::string& host) {
    wireup::BusinessCard c;
    c.hostname = host;
    c.host = host;
    c.site.append("A");
    c.publish("tcp", "10.0.0.7:4000");
    return c;
}

}  // namespace

TEST_CASE("port names: what name_format writes, name_parse reads back") {
    const Name n = sample();
    const std::string text = name_format(n);
    CHECK(text.rfind("strata-port:1:10.0.0.7,127.0.0.1:40123:0123456789abcdef:", 0) == 0);
    const base::Result<Name> back = name_parse(text);
    REQUIRE(back.ok());
    CHECK(back->address == n.address);
    CHECK(back->id == n.id);
    CHECK(back->secret == n.secret);
}

TEST_CASE("port names: malformed names are refused, saying what is wrong") {
    const std::string good = name_format(sample());
    struct Case {
        std::string text;
        const char* why;
    };
    const Case cases[] = {
        {"", "not a Strata port name"},
        {"tcp://10.0.0.7:4000", "not a Strata port name"},
        {"strata-port:1:", "cut short"},
        {"strata-port:1:abc", "cut short"},
        {good.substr(0, good.size() - 1), "secret is not 64 hexadecimal digits"},
        {good + "0", "secret is not 64 hexadecimal digits"},
        {good.substr(0, good.size() - 64) + std::string(64, 'G'), "secret is not 64 hexadecimal digits"},
        {"strata-port:1:1.2.3.4:5:0123:" + std::string(64, 'a'), "id is not 16 hexadecimal digits"},
    };
    for (const Case& k : cases) {
        INFO(k.text);
        const base::Result<Name> r = name_parse(k.text);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().find(k.why) != std::string::npos);
    }
}

TEST_CASE("port messages survive their encoding and refuse truncation") {
    Hello h{42, {}, "A", "wan:latency_ms=10"};
    h.nonce.fill(3);
    Offer o;
    o.proof.fill(5);
    o.mask = {1, 2, 3};
    o.cards = {card("a"), card("b")};
    Answer a{7, 99, {card("c")}, "wan:latency_ms=10"};
    const Refusal f{Refused::secret, "no"};
    const auto payload = [](const std::vector<std::uint8_t>& frame) {
        return std::vector<std::uint8_t>(frame.begin() + 5, frame.end());
    };
    const auto hello = decode<Hello>(payload(encode(h)));
    REQUIRE(hello);
    CHECK(hello->id == 42);
    CHECK(hello->nonce == h.nonce);
    CHECK(hello->site == "A");
    CHECK(hello->emulation == "wan:latency_ms=10");
    const auto offer = decode<Offer>(payload(encode(o)));
    REQUIRE(offer);
    CHECK(offer->proof == o.proof);
    CHECK(offer->mask == o.mask);
    CHECK(offer->cards == o.cards);
    const auto answer = decode<Answer>(payload(encode(a)));
    REQUIRE(answer);
    CHECK(answer->pair == 7);
    CHECK(answer->set == 99);
    CHECK(answer->cards == a.cards);
    CHECK(answer->emulation == a.emulation);
    const auto refusal = decode<Refusal>(payload(encode(f)));
    REQUIRE(refusal);
    CHECK(refusal->why == Refused::secret);
    CHECK(refusal->text == "no");
    // Every kind of refusal arrives as sent (an identity refusal once read as
    // a broken conversation).
    for (const Refused why :
         {Refused::unknown_port, Refused::secret, Refused::no_context, Refused::malformed, Refused::identity}) {
        const auto back = decode<Refusal>(payload(encode(Refusal{why, "t"})));
        REQUIRE(back);
        CHECK(back->why == why);
    }
    CHECK_FALSE(decode<Refusal>(payload(encode(Refusal{static_cast<Refused>(0), ""}))));
    CHECK_FALSE(decode<Refusal>(payload(encode(Refusal{static_cast<Refused>(6), ""}))));
    // Every shorter payload fails to decode.
    const auto cut = payload(encode(o));
    for (std::size_t n = 0; n < cut.size(); ++n)
        CHECK_FALSE(decode<Offer>(std::vector<std::uint8_t>(cut.begin(), cut.begin() + static_cast<long>(n))));
    // An offer without cards, an answer of set 0, a refusal of no known kind.
    CHECK_FALSE(decode<Offer>(payload(encode(Offer{}))));
    CHECK_FALSE(decode<Answer>(payload(encode(Answer{1, 0, {card("c")}, ""}))));
    CHECK_FALSE(decode<Refusal>(payload(encode(Refusal{static_cast<Refused>(9), ""}))));
}

TEST_CASE("port proofs depend on the secret, the role and both nonces; the key differs from both proofs") {
    const Secret s = sample().secret;
    Secret other = s;
    other[0] ^= 1;
    security::Nonce c{}, v{};
    c.fill(1);
    v.fill(2);
    const auto p = port_proof(s, security::ProofRole::port_connector, c, v);
    CHECK(p == port_proof(s, security::ProofRole::port_connector, c, v));
    CHECK_FALSE(p == port_proof(other, security::ProofRole::port_connector, c, v));
    CHECK_FALSE(p == port_proof(s, security::ProofRole::port_acceptor, c, v));
    CHECK_FALSE(p == port_proof(s, security::ProofRole::port_connector, v, c));
    const std::string key = set_key(s, c, v);
    CHECK(key.size() == 32);
    CHECK(key != std::string(p.begin(), p.end()));
}

TEST_CASE("port channel: dial, accept, frames both ways, and what a closed port and a silent peer give") {
    base::UniqueFd listener(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(listener.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(listener.get(), 4) == 0);
    socklen_t len = sizeof addr;
    ::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&addr), &len);
    const int port = ntohs(addr.sin_port);
    const auto soon = [] { return Channel::Clock::now() + std::chrono::seconds(10); };
    int idles = 0;
    const Channel::Idle idle = [&] { ++idles; };

    base::Result<Channel> client = dial({"not-an-address", "127.0.0.1"}, port, soon(), idle);
    REQUIRE(client.ok());
    base::Result<Channel> server = accept_next(listener.get(), soon(), idle);
    REQUIRE(server.ok());
    Hello h{5, {}, "", ""};
    REQUIRE(client->send(encode(h)).ok());
    const auto got = server->receive(soon(), idle);
    REQUIRE(got.ok());
    CHECK(got->type == static_cast<std::uint8_t>(Type::hello));
    // Nothing comes: the deadline ends the wait, calling idle meanwhile.
    const int before = idles;
    const auto silent = client->receive(Channel::Clock::now() + std::chrono::milliseconds(50), idle);
    REQUIRE_FALSE(silent.ok());
    CHECK(silent.error() == "timed out");
    CHECK(idles > before);
    // The peer goes away.
    server = base::Error{std::string("closed")};
    const auto gone = client->receive(soon(), idle);
    REQUIRE_FALSE(gone.ok());
    CHECK(gone.error().find("closed the connection") != std::string::npos);
    // Nobody listens any more.
    listener = base::UniqueFd();
    const base::Result<Channel> refused = dial({"127.0.0.1"}, port, soon(), idle);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().find("nothing listens at the port") != std::string::npos);
}

TEST_CASE("port: the latency emulated between two jobs' roots") {
    const std::string e = "wan:latency_ms=10;A/C:latency_ms=40";
    CHECK(emulated_latency(e, e, "A", "B") == Approx(0.010));
    CHECK(emulated_latency(e, e, "C", "A") == Approx(0.040));
    CHECK(emulated_latency(e, e, "A", "A") == 0);                      // one site
    CHECK(emulated_latency(e, "wan:latency_ms=10", "A", "B") == 0);    // the jobs emulate differently
    CHECK(emulated_latency("", "", "A", "B") == 0);
    CHECK(emulated_latency("lan:latency_ms=5", "lan:latency_ms=5", "A", "B") == 0);  // no wide area shaped
}
