#include <catch2/catch.hpp>

#include "adi/matching.hpp"

using namespace strata::adi;

namespace {

Request recv_req(int context, int source, int tag) {
    Request r;
    r.kind = Kind::recv;
    r.state = RecvState{};
    r.context = context;
    r.rank = source;
    r.tag = tag;
    return r;
}

Unexpected* msg(int context, int source, int tag, std::uint64_t sreq = 0) {
    auto* u = new Unexpected;
    u->header.type = Packet::eager;
    u->header.context = context;
    u->header.source = source;
    u->header.tag = tag;
    u->header.sender_req = sreq;
    u->peer = source;
    u->complete = true;
    return u;
}

}  // namespace

TEST_CASE("posted receives match in posting order across specific and wildcard sources") {
    PostedQueue q;
    Request any = recv_req(0, kAnySource, 5);
    Request specific = recv_req(0, 3, 5);
    q.push(&any);
    q.push(&specific);
    CHECK(q.take(0, 3, 5) == &any);  // posted first
    CHECK(q.take(0, 3, 5) == &specific);
    CHECK(q.take(0, 3, 5) == nullptr);
    CHECK(q.size() == 0);
}

TEST_CASE("posted receives respect context and tag") {
    PostedQueue q;
    Request a = recv_req(0, 1, 7);
    Request b = recv_req(2, 1, kAnyTag);
    q.push(&a);
    q.push(&b);
    CHECK(q.take(0, 1, 8) == nullptr);
    CHECK(q.take(2, 1, 8) == &b);
    CHECK(q.take(0, 1, 7) == &a);
}

TEST_CASE("wildcard receives alone: each context's in posting order, tags respected") {
    PostedQueue q;
    Request a = recv_req(0, kAnySource, 1);
    Request b = recv_req(1, kAnySource, 2);
    Request c = recv_req(0, kAnySource, 3);
    Request d = recv_req(1, kAnySource, kAnyTag);
    for (Request* r : {&a, &b, &c, &d}) q.push(r);
    CHECK(q.take(1, 4, 2) == &b);
    CHECK(q.take(0, 4, 3) == &c);  // past the first one, whose tag differs
    CHECK(q.take(0, 5, 9) == nullptr);
    CHECK(q.take(1, 5, 9) == &d);
    CHECK(q.take(0, 6, 1) == &a);
    CHECK(q.size() == 0);
    // A specific receive posted after a wildcard one does not take its turn.
    Request e = recv_req(2, kAnySource, 1);
    Request f = recv_req(2, 7, 1);
    q.push(&e);
    q.push(&f);
    CHECK(q.take(2, 7, 1) == &e);
    CHECK(q.take(2, 7, 1) == &f);
    CHECK(q.remove(&e) == false);
}

TEST_CASE("removing a posted receive (cancel)") {
    PostedQueue q;
    Request a = recv_req(0, kAnySource, 1);
    Request b = recv_req(0, 2, 1);
    q.push(&a);
    q.push(&b);
    CHECK(q.remove(&a));
    CHECK_FALSE(q.remove(&a));
    CHECK(q.take(0, 2, 1) == &b);
}

TEST_CASE("unexpected messages: the earliest match wins, wildcards included") {
    UnexpectedQueue q;
    Unexpected* m1 = msg(0, 2, 10);
    Unexpected* m2 = msg(0, 1, 11);
    Unexpected* m3 = msg(0, 2, 11);
    q.push(m1);
    q.push(m2);
    q.push(m3);
    CHECK(q.find(0, kAnySource, kAnyTag) == m1);
    CHECK(q.find(0, kAnySource, 11) == m2);
    CHECK(q.find(0, 2, 11) == m3);
    CHECK(q.find(1, kAnySource, kAnyTag) == nullptr);
    q.remove(m1);
    CHECK(q.find(0, 2, kAnyTag) == m3);
    CHECK(q.find(0, kAnySource, kAnyTag) == m2);
    q.remove(m2);
    q.remove(m3);
    CHECK(q.size() == 0);
    delete m1;
    delete m2;
    delete m3;
}

TEST_CASE("a flood from one sender does not slow searches for another") {
    UnexpectedQueue q;
    std::vector<Unexpected*> all;
    for (int i = 0; i < 20000; ++i) {
        all.push_back(msg(0, 1, i));
        q.push(all.back());
    }
    Unexpected* other = msg(0, 2, 0);
    q.push(other);
    // The search for source 2 looks at source 2's messages only.
    CHECK(q.find(0, 2, kAnyTag) == other);
    CHECK(q.find(0, 1, 19999) == all.back());
    CHECK(q.find_sent(2, 0) == other);
    for (auto* u : all) {
        q.remove(u);
        delete u;
    }
    q.remove(other);
    delete other;
}
